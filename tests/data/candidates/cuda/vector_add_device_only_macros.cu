// expect: task=vector_add verdict=pass
// Honest device-only form (NVRTC) written with macros: a pasted kernel helper, a stringized
// PTX instruction in f32, an index macro and a branch on the architecture.
// kiln-launch: grid=((n + 255) / 256) block=(256)

#define PASTE(a, b) a##b
#define TEXT(x) #x
#define INDEX() (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x)
#define DEVICE_OP(name) __device__ __forceinline__ float PASTE(op_, name)(float x, float y)

DEVICE_OP(add)
{
    float r;
    asm(TEXT(add.rn.f32) " %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
    return r;
}

#if __CUDA_ARCH__ >= 350
#define LOAD(p) __ldg(p)
#else
#define LOAD(p) (*(p))
#endif

extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    const long long i = INDEX();
    if (i < n)
        c[i] = op_add(LOAD(a + i), LOAD(b + i));
}
