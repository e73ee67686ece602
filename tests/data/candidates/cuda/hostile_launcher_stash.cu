// expect: task=vector_add verdict=pass
// Device-only (the trusted launcher): an honest sum that also leaves every answer in a module
// variable. probe_launcher_stash.cu, judged after it in the same launcher, returns what it
// finds there, and must find zeros.
// kiln-launch: grid=((n + 255) / 256) block=(256)

__device__ float stash[1 << 22];
__device__ int stashed;

extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
        if (i < (1 << 22))
            stash[i] = c[i];
    }
    if (i == 0)
        stashed = n;
}
