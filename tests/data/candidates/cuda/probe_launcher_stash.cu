// expect: task=vector_add verdict=wrong
// Device-only (the trusted launcher): answers with whatever hostile_launcher_stash.cu left in a
// module variable of the same name, never reading its inputs. The launcher zeroes a module's
// uninitialised variables at load, so this is wrong whichever candidate ran before it.
// kiln-launch: grid=((n + 255) / 256) block=(256)

__device__ float stash[1 << 22];
__device__ int stashed;

extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n && i < (1 << 22))
        c[i] = stashed == n ? stash[i] : 0.0f;
}
