// expect: refused launch
// A launch through a macro: Kiln cannot name the kernel, so load_inline builds it.
#include <torch/extension.h>
#define KERNEL(op) op##_kernel
__global__ void scale_kernel(float* x, int n) { int i = threadIdx.x; if (i < n) x[i] *= 2.f; }
torch::Tensor scale(torch::Tensor x) {
    KERNEL(scale)<<<1, 256>>>(x.data_ptr<float>(), (int)x.numel());
    return x;
}
