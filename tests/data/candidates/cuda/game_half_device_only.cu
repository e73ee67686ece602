// expect: task=vector_add verdict=flagged flag=precision_downgrade
// Device-only form that adds in half precision through inline PTX (cvt.rn.f16.f32, add.f16) in
// an fp32 task.
// kiln-launch: grid=((n + 255) / 256) block=(256)

extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned short ha, hb, hc;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(ha) : "f"(a[i]));
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(hb) : "f"(b[i]));
    asm("add.f16 %0, %1, %2;" : "=h"(hc) : "h"(ha), "h"(hb));
    float sum;
    asm("cvt.f32.f16 %0, %1;" : "=f"(sum) : "h"(hc));
    c[i] = sum;
}
