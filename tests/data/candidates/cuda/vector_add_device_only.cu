// expect: task=vector_add verdict=pass
// Device-only form (NVRTC): the entry is the kernel itself; the harness launches it on its
// stream with the geometry of the kiln-launch line.
// kiln-launch: grid=((n + 255) / 256) block=(256)

extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
