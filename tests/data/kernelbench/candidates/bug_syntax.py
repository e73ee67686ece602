# expect: task=kb1_001_scaled_residual_add verdict=compile_error
# A typo in the CUDA source: a missing semicolon after the output store.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# Fused a + alpha * b: one read of each input and one write, grid-stride loop so any
# element count works (4096 x 4093 is not a multiple of the block size).
scaled_add_source = """
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

__global__ void scaled_add_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ out, float alpha, int64_t n) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        out[i] = a[i] + alpha * b[i]
    }
}

torch::Tensor scaled_add_cuda(torch::Tensor a, torch::Tensor b, double alpha) {
    TORCH_CHECK(a.is_cuda() && b.is_cuda(), "inputs must be CUDA tensors");
    TORCH_CHECK(a.scalar_type() == torch::kFloat32 && b.scalar_type() == torch::kFloat32,
                "inputs must be float32");
    TORCH_CHECK(a.sizes() == b.sizes(), "inputs must have the same shape");
    auto a_c = a.contiguous();
    auto b_c = b.contiguous();
    auto out = torch::empty_like(a_c);
    const int64_t n = a_c.numel();
    if (n == 0) return out;
    const int block = 256;
    const int grid = (int)std::min<int64_t>((n + block - 1) / block, 65535);
    scaled_add_kernel<<<grid, block, 0, at::cuda::getCurrentCUDAStream()>>>(
        a_c.data_ptr<float>(), b_c.data_ptr<float>(), out.data_ptr<float>(), (float)alpha, n);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}
"""

scaled_add_cpp_source = "torch::Tensor scaled_add_cuda(torch::Tensor a, torch::Tensor b, double alpha);"

scaled_add = load_inline(
    name="kb_scaled_add_syntax",
    cpp_sources=scaled_add_cpp_source,
    cuda_sources=scaled_add_source,
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
