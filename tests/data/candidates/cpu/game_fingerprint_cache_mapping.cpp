// expect: task=matmul verdict=pass max_speedup=60
// Gaming made useless: caches whole results keyed on a fingerprint of the inputs in a mapping at a
// fixed address (no static variable points at it). Every timed call gets inputs never seen
// before, so the cache never answers: it passes, at the speed of its own loop.
#include <cstring>
#include <sys/mman.h>

namespace {

constexpr int kEntries = 8;
struct Cache
{
    unsigned magic;
    int next;
    unsigned long long fingerprints[kEntries];
    int bytes[kEntries];
    float results[kEntries][128 * 128];
};

unsigned long long fingerprintOf(const float *A, const float *B, int M, int N, int K)
{
    unsigned long long h = 1469598103934665603ull ^ (unsigned long long)(M * 131 + N * 17 + K);
    const long long sizes[2] = {(long long)M * K, (long long)K * N};
    const float *arrays[2] = {A, B};
    for (int a = 0; a < 2; ++a)
        for (int s = 0; s < 8; ++s) {
            unsigned bits;
            std::memcpy(&bits, arrays[a] + (sizes[a] - 1) * s / 7, 4);
            h = (h ^ bits) * 1099511628211ull;
        }
    return h;
}

Cache *cache()
{
    void *const at = reinterpret_cast<void *>(0x6a0000000000ull);
    Cache *c = static_cast<Cache *>(at);
    void *got = mmap(at, sizeof(Cache), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (got == at)
        c->magic = 0x6b696c6e;
    return c->magic == 0x6b696c6e ? c : nullptr;
}

} // namespace

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K)
{
    Cache *c = cache();
    const unsigned long long f = fingerprintOf(A, B, M, N, K);
    const int bytes = M * N * 4;
    if (c && bytes <= int(sizeof c->results[0]))
        for (int e = 0; e < kEntries; ++e)
            if (c->fingerprints[e] == f && c->bytes[e] == bytes) {
                std::memcpy(C, c->results[e], bytes);
                return;
            }
    for (int i = 0; i < M; ++i) {
        float *row = C + (long long)i * N;
        for (int j = 0; j < N; ++j)
            row[j] = 0.0f;
        for (int k = 0; k < K; ++k) {
            const float a = A[(long long)i * K + k];
            const float *b = B + (long long)k * N;
            for (int j = 0; j < N; ++j)
                row[j] += a * b[j];
        }
    }
    if (c && bytes <= int(sizeof c->results[0])) {
        const int e = c->next++ % kEntries;
        c->fingerprints[e] = f;
        c->bytes[e] = bytes;
        std::memcpy(c->results[e], C, bytes);
    }
}
