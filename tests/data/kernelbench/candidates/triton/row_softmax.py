# expect: task=kb1_002_row_softmax verdict=pass
import torch
import torch.nn as nn
import triton
import triton.language as tl


# One program per row: the whole row in registers (4099 columns fit one 8192-wide block),
# max subtracted before exp so nothing overflows, everything in fp32.
@triton.jit
def row_softmax_kernel(x_ptr, y_ptr, cols, row_stride, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    offsets = tl.arange(0, BLOCK_SIZE)
    mask = offsets < cols
    x = tl.load(x_ptr + row * row_stride + offsets, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    numerator = tl.exp(x)
    y = numerator / tl.sum(numerator, axis=0)
    tl.store(y_ptr + row * row_stride + offsets, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        rows, cols = x.shape
        block = triton.next_power_of_2(cols)
        row_softmax_kernel[(rows,)](x, y, cols, x.stride(0), BLOCK_SIZE=block, num_warps=8)
        return y
