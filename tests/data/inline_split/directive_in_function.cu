// expect: refused directive
// A #define inside a host function would reach the kernels after it in load_inline's file,
// but not the device part.
#include <torch/extension.h>
#define VEC 4
torch::Tensor widen(torch::Tensor x) {
#undef VEC
#define VEC 8
    return x;
}
__global__ void copy_kernel(float* x) { x[threadIdx.x] *= VEC; }
