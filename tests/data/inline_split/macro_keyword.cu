// expect: refused macro
// A kernel declared through a macro: the cut cannot see that it is one.
#include <torch/extension.h>
#define KERNEL __global__
KERNEL void twice_kernel(float* x) { x[threadIdx.x] *= 2.f; }
torch::Tensor twice(torch::Tensor x) {
    twice_kernel<<<1, 32>>>(x.data_ptr<float>());
    return x;
}
