// expect: task=vector_add verdict=crash
// Hostile, device-only (the trusted launcher): the kernel stores through a wild pointer; the
// context is lost, the launcher is replaced and the fault is this candidate's.
// kiln-launch: grid=((n + 255) / 256) block=(256)

extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
    if (i == 0) {
        volatile float *wild = reinterpret_cast<float *>(0x10);
        *wild = 1.0f;
    }
}
