// expect: task=vector_add verdict=flagged flag=precision_downgrade
// Device-only form (NVRTC): adds in half precision through inline PTX, in an fp32 task, with
// the "f16" of every instruction built by token pasting and stringizing and joined to the rest
// of its string by the compiler, so the source text never spells ".f16".
// kiln-launch: grid=((n + 255) / 256) block=(256)

#define PASTE(a, b) a##b
#define TEXT(x) #x
#define STR(x) TEXT(x)
#define HALF STR(PASTE(f, 16))

extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned short ha, hb, hc;
    asm("cvt.rn." HALF ".f32 %0, %1;" : "=h"(ha) : "f"(a[i]));
    asm("cvt.rn." HALF ".f32 %0, %1;" : "=h"(hb) : "f"(b[i]));
    asm("add." HALF " %0, %1, %2;" : "=h"(hc) : "h"(ha), "h"(hb));
    float sum;
    asm("cvt.f32." HALF " %0, %1;" : "=f"(sum) : "h"(hc));
    c[i] = sum;
}
