#include <torch/extension.h>
#ifndef SCALE
#define SCALE 1.0f
#endif
static int blocks_for(int n, int per_block = 256) { return (n + per_block - 1) / per_block; }
 void kiln_signature_scale_kernel(float* x, int n);
 void* kiln_kernel_scale_kernel();
torch::Tensor scale(torch::Tensor x) {
    const int n = (int)x.numel();
    kiln::inline_module::launch<decltype(kiln_signature_scale_kernel)>(kiln_kernel_scale_kernel(), blocks_for(n), 256, 0, 0, x.data_ptr<float>(), n);
    return x;
}
