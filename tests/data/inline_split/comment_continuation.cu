// expect: split
// A line comment continued by a backslash hides the #define under it, as the preprocessor
// does: neither part may define SCALE as 3.
#include <torch/extension.h>
// disabled: \
#define SCALE 3.0f
#ifndef SCALE
#define SCALE 1.0f
#endif

static int blocks_for(int n, int per_block = 256) { return (n + per_block - 1) / per_block; }

__global__ void scale_kernel(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= SCALE;
}

torch::Tensor scale(torch::Tensor x) {
    const int n = (int)x.numel();
    scale_kernel<<<blocks_for(n), 256>>>(x.data_ptr<float>(), n);
    return x;
}
