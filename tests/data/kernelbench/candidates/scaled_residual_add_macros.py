# expect: task=kb1_001_scaled_residual_add verdict=pass
# Honest, written with macros: a pasted kernel name, an index macro, a checking macro and a
# block size, all expanding to ordinary CUDA.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = """
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

#define BLOCK 256
#define GLOBAL_INDEX() ((int64_t)blockIdx.x * blockDim.x + threadIdx.x)
#define GRID_STRIDE() ((int64_t)gridDim.x * blockDim.x)
#define KERNEL_NAME(op) op##_kernel
#define CHECK_CUDA_FLOAT(t) \\
    TORCH_CHECK((t).is_cuda() && (t).scalar_type() == torch::kFloat32, #t " must be CUDA float32")

__global__ void KERNEL_NAME(scaled_add)(const float* __restrict__ a, const float* __restrict__ b,
                                       float* __restrict__ out, float alpha, int64_t n) {
    for (int64_t i = GLOBAL_INDEX(); i < n; i += GRID_STRIDE()) {
        out[i] = a[i] + alpha * b[i];
    }
}

torch::Tensor scaled_add_cuda(torch::Tensor a, torch::Tensor b, double alpha) {
    CHECK_CUDA_FLOAT(a);
    CHECK_CUDA_FLOAT(b);
    TORCH_CHECK(a.sizes() == b.sizes(), "inputs must have the same shape");
    auto a_c = a.contiguous();
    auto b_c = b.contiguous();
    auto out = torch::empty_like(a_c);
    const int64_t n = a_c.numel();
    if (n == 0) return out;
    const int grid = (int)std::min<int64_t>((n + BLOCK - 1) / BLOCK, 65535);
    KERNEL_NAME(scaled_add)<<<grid, BLOCK, 0, at::cuda::getCurrentCUDAStream()>>>(
        a_c.data_ptr<float>(), b_c.data_ptr<float>(), out.data_ptr<float>(), (float)alpha, n);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}
"""

cpp_source = "torch::Tensor scaled_add_cuda(torch::Tensor a, torch::Tensor b, double alpha);"

scaled_add = load_inline(
    name="kb_scaled_add_macros",
    cpp_sources=cpp_source,
    cuda_sources=source,
    functions=["scaled_add_cuda"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.scaled_add = scaled_add

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return self.scaled_add.scaled_add_cuda(a, b, 0.5)
