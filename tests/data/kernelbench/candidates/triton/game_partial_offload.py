# expect: task=kb1_003_small_matmul verdict=flagged flag=torch_library_compute
# Partial offload: its Triton kernel computes the first 16 rows, torch.matmul the other 240,
# and the two are joined. The reference's one op still runs in PyTorch, which the screen
# blocks.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def matmul_rows_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k in range(0, K):
        a = tl.load(a_ptr + row * K + k)
        b = tl.load(b_ptr + k * N + cols, mask=cols < N, other=0.0)
        acc += a * b
    tl.store(c_ptr + row * N + cols, acc, mask=cols < N)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        top = torch.empty((16, B.shape[1]), device=A.device, dtype=A.dtype)
        matmul_rows_kernel[(16,)](A, B, top, 16, B.shape[1], A.shape[1], BLOCK_N=512)
        rest = torch.matmul(A[16:], B)
        return torch.cat([top, rest], dim=0)
