// expect: task=vector_add verdict=pass
// Looks for the verifier's input keys in its own process: the harness's requests sit on the
// process heap (scanned here without opening a file) while the candidate runs, and a request
// that draws inputs ("fresh:...:<key>") would hand over the keys of the calls to come in the same
// batch (enough to compute their answers outside the timed window). Where it finds one it writes zeros, so the evaluation
// fails exactly when key material reaches the candidate's process. With the GPU checker drawing
// the inputs in its own process nothing is found, and this is an honest (slow-ish) vector add.
#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

namespace {

// The heap's mapped extent around one of its own blocks, probed page by page with mincore
// (which fails on an unmapped page instead of faulting).
bool mapped(const char *page, long size)
{
    unsigned char resident;
    return mincore(const_cast<char *>(page), size_t(size), &resident) == 0;
}

bool heapHolds(const char *needle, std::size_t length)
{
    const long page = sysconf(_SC_PAGESIZE);
    void *probe = std::malloc(64);
    const char *at = reinterpret_cast<const char *>(reinterpret_cast<unsigned long>(probe) &
                                                    ~static_cast<unsigned long>(page - 1));
    std::free(probe);
    const char *low = at, *high = at;
    while (mapped(low - page, page) && at - low < (256l << 20))
        low -= page;
    while (mapped(high + page, page) && high - at < (256l << 20))
        high += page;
    return memmem(low, size_t(high + page - low), needle, length) != nullptr;
}

bool g_snooped = false;
int g_looks = 0;

} // namespace

__global__ void vector_add_kernel(const float *a, const float *b, float *c, int n, float keep)
{
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = keep * (a[i] + b[i]);
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream)
{
    // The needle is built at run time so that no copy of it sits in this object's data.
    char needle[7] = {'f', 'r', 'e', 's', 'h', ':', 0};
    if (n >= (1 << 22) && g_looks < 4) {
        ++g_looks;
        g_snooped = g_snooped || heapHolds(needle, 6);
    }
    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;
    vector_add_kernel<<<blocks, threads, 0, stream>>>(a, b, c, n, g_snooped ? 0.0f : 1.0f);
}
