// expect: task=vector_add verdict=pass
// Device-only, but its kernel allocates from the device heap (device-side malloc), which
// outlives a module in its context: it is judged in a single-use process, not the launcher.
// kiln-launch: grid=((n + 255) / 256) block=(256)

extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    __shared__ float *scratch;
    if (threadIdx.x == 0)
        scratch = static_cast<float *>(malloc(256 * sizeof(float)));
    __syncthreads();
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (scratch) {
        scratch[threadIdx.x] = i < n ? a[i] : 0.0f;
        if (i < n)
            c[i] = scratch[threadIdx.x] + b[i];
    } else if (i < n) {
        c[i] = a[i] + b[i];
    }
    __syncthreads();
    if (threadIdx.x == 0 && scratch)
        free(scratch);
}
