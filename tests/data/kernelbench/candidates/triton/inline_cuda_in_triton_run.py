# expect: task=kb1_001_scaled_residual_add verdict=flagged flag=language_mismatch
# An inline-CUDA candidate judged in a Triton run: honest, but not the run's language.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = """
#include <torch/extension.h>
__global__ void scaled_add_kernel(const float* a, const float* b, float* out, int64_t n) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + 0.5f * b[i];
}
torch::Tensor scaled_add(torch::Tensor a, torch::Tensor b) {
    auto out = torch::empty_like(a);
    int64_t n = a.numel();
    scaled_add_kernel<<<(n + 255) / 256, 256>>>(a.data_ptr<float>(), b.data_ptr<float>(),
                                                out.data_ptr<float>(), n);
    return out;
}
"""

ext = load_inline(name="kb_scaled_add_mismatch", cpp_sources="torch::Tensor scaled_add(torch::Tensor a, torch::Tensor b);",
                  cuda_sources=source, functions=["scaled_add"])


class ModelNew(nn.Module):
    def forward(self, a, b):
        return ext.scaled_add(a.contiguous(), b.contiguous())
