// expect: task=vector_add verdict=timeout
// Hostile, device-only (the trusted launcher): honest on the correctness shapes, then a kernel
// that never ends on the timing shape (64 Mi elements), once the verifier times it. The
// launcher's watchdog ends it; the timeout is this candidate's and the next one runs normally.
// The loop condition is a volatile read and its body writes the outputs, so the compiler cannot
// remove it.
// kiln-launch: grid=((n + 255) / 256) block=(256)

extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    volatile int forever = n >= (1 << 26);
    do {
        if (i < n)
            c[i] = a[i] + b[i];
    } while (forever);
}
