# expect: task=kb1_003_small_matmul verdict=compile_error flag=torch_library_compute
# Triton's bundled matmul (triton.ops) computes the answer; the candidate's own kernel only
# copies. The screen blocks it; Triton 3.x no longer has triton.ops, so its import fails too
# (the verdict is the compile error, the flag stays).
import torch
import torch.nn as nn
import triton
import triton.language as tl
from triton.ops import matmul as library_matmul


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n), mask=offsets < n)


class ModelNew(nn.Module):
    def forward(self, A, B):
        C = library_matmul(A, B)
        out = torch.empty_like(C)
        copy_kernel[(triton.cdiv(C.numel(), 1024),)](C, out, C.numel(), BLOCK=1024)
        return out
