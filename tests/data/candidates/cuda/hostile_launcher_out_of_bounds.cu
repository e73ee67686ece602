// expect: task=vector_add verdict=flagged flag=guard_band_overwrite
// Device-only (the trusted launcher): an honest sum that also writes a few elements past the
// end of its output and before its start. The guard bands around every buffer of the device
// mirror show it, in the launcher as in a single-use process.
// kiln-launch: grid=((n + 255) / 256) block=(256)

extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
    if (i == 0)
        for (int k = 1; k <= 4; ++k) {
            c[n - 1 + k] = 0.0f;
            c[-k] = 0.0f;
        }
}
