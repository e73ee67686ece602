# expect: task=kb1_001_scaled_residual_add verdict=pass
import torch
import torch.nn as nn
import triton
import triton.language as tl


# a + alpha * b, one block of elements per program; the mask covers the ragged end
# (4096 x 4093 is no multiple of the block).
@triton.jit
def scaled_add_kernel(a_ptr, b_ptr, out_ptr, alpha, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    a = tl.load(a_ptr + offsets, mask=mask)
    b = tl.load(b_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, a + alpha * b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        a = a.contiguous()
        b = b.contiguous()
        out = torch.empty_like(a)
        n_elements = out.numel()
        grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
        scaled_add_kernel[grid](a, b, out, 0.5, n_elements, BLOCK_SIZE=1024)
        return out
