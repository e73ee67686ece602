# expect: task=kb1_001_scaled_residual_add verdict=wrong
# The scaled add with a bug that writes NaN into its first element (0/0 in a guard meant for an
# empty input): wrong, and the message counts the NaN apart from the finite errors.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = """
#include <torch/extension.h>

torch::Tensor scaled_add(torch::Tensor a, torch::Tensor b, double alpha) {
    auto out = torch::empty_like(a);
    const float* pa = a.data_ptr<float>();
    const float* pb = b.data_ptr<float>();
    float* po = out.data_ptr<float>();
    const int64_t n = a.numel();
    for (int64_t i = 0; i < n; ++i)
        po[i] = pa[i] + static_cast<float>(alpha) * pb[i];
    const float empty = 0.0f;
    po[0] = empty / empty;
    return out;
}
"""

module = load_inline(
    name="kb_cpu_scaled_add_nan",
    cpp_sources=source,
    functions=["scaled_add"],
    extra_cflags=["-O1"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return module.scaled_add(a.contiguous(), b.contiguous(), 0.5)
