# expect: task=kb1_001_scaled_residual_add verdict=pass
# An honest ModelNew for torch's CPU device: the scaled add as a C++ extension (load_inline
# with C++ sources only), run by the CPU-device tests in CI.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = """
#include <torch/extension.h>

torch::Tensor scaled_add(torch::Tensor a, torch::Tensor b, double alpha) {
    TORCH_CHECK(a.is_contiguous() && b.is_contiguous(), "contiguous inputs expected");
    auto out = torch::empty_like(a);
    const float* pa = a.data_ptr<float>();
    const float* pb = b.data_ptr<float>();
    float* po = out.data_ptr<float>();
    const float scale = static_cast<float>(alpha);
    const int64_t n = a.numel();
    for (int64_t i = 0; i < n; ++i)
        po[i] = pa[i] + scale * pb[i];
    return out;
}
"""

module = load_inline(
    name="kb_cpu_scaled_add",
    cpp_sources=source,
    functions=["scaled_add"],
    extra_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return module.scaled_add(a.contiguous(), b.contiguous(), 0.5)
