{{! KernelBench level 1 #95, cross-entropy loss (mean over rows), Triton. Knobs: LSE CHUNK ROWS WARPS REDUCE EXP }}
# Cross-entropy in Triton: log-sum-exp by {{LSE}} (chunks of {{CHUNK}}), {{ROWS}} rows per
# program, {{WARPS}} warps, the mean by {{REDUCE}}, exponentials by {{EXP}}.
import torch
import torch.nn as nn
import triton
import triton.language as tl

# Globals a kernel reads must be compile-time constants.
LOG2E = tl.constexpr(1.4426950408889634)
LN2 = tl.constexpr(0.6931471805599453)


@triton.jit
def exp_of(v):
{{#if EXP == exp2}}
    return tl.exp2(v * LOG2E)
{{else}}
    return tl.exp(v)
{{/if}}


@triton.jit
def log_of(v):
{{#if EXP == exp2}}
    return tl.log2(v) * LN2
{{else}}
    return tl.log(v)
{{/if}}


# log(sum(exp(row))) of one row of `cols` logits.
@triton.jit
def row_logsumexp(row_ptr, cols, BLOCK: tl.constexpr):
{{#if LSE == full_row}}
    offsets = tl.arange(0, BLOCK)
    x = tl.load(row_ptr + offsets, mask=offsets < cols, other=-float("inf"))
    top = tl.max(x, axis=0)
    return top + log_of(tl.sum(exp_of(x - top), axis=0))
{{#elif LSE == two_pass}}
    top = -float("inf")
    for start in range(0, cols, BLOCK):
        offsets = start + tl.arange(0, BLOCK)
        x = tl.load(row_ptr + offsets, mask=offsets < cols, other=-float("inf"))
        top = tl.maximum(top, tl.max(x, axis=0))
    total = 0.0
    for start in range(0, cols, BLOCK):
        offsets = start + tl.arange(0, BLOCK)
        x = tl.load(row_ptr + offsets, mask=offsets < cols, other=-float("inf"))
        total += tl.sum(exp_of(x - top), axis=0)
    return top + log_of(total)
{{else}}
    # One sweep: a running maximum, and the sum rescaled whenever the maximum grows.
    top = tl.full((BLOCK,), -float("inf"), tl.float32)
    total = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, cols, BLOCK):
        offsets = start + tl.arange(0, BLOCK)
        x = tl.load(row_ptr + offsets, mask=offsets < cols, other=-float("inf"))
        grown = tl.maximum(top, x)
        # A lane that has seen only padding holds -inf: shift it by 0, not by -inf (NaN).
        shift = tl.where(grown == -float("inf"), 0.0, grown)
        total = total * exp_of(top - shift) + exp_of(x - shift)
        top = grown
    row_top = tl.max(top, axis=0)
    return row_top + log_of(tl.sum(total * exp_of(top - row_top), axis=0))
{{/if}}


@triton.jit
def cross_entropy_kernel(x_ptr, target_ptr, out_ptr, rows, cols, row_stride, scale,
                         ROWS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    loss = 0.0
    for r in range(ROWS):
        row = pid * ROWS + r
        if row < rows:
            row_ptr = x_ptr + row.to(tl.int64) * row_stride
            target = tl.load(target_ptr + row)
            picked = tl.load(row_ptr + target)
            loss += row_logsumexp(row_ptr, cols, BLOCK) - picked
{{#if REDUCE == atomic}}
    tl.atomic_add(out_ptr, loss * scale)
{{else}}
    tl.store(out_ptr + pid, loss * scale)
{{/if}}
{{#if REDUCE == partials}}


# The programs' partial sums, added by one program.
@triton.jit
def sum_kernel(partial_ptr, out_ptr, count, BLOCK: tl.constexpr):
    total = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, count, BLOCK):
        offsets = start + tl.arange(0, BLOCK)
        total += tl.load(partial_ptr + offsets, mask=offsets < count, other=0.0)
    tl.store(out_ptr, tl.sum(total, axis=0))
{{/if}}


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        predictions = predictions.contiguous()
        rows, cols = predictions.shape
{{#if LSE == full_row}}
        block = triton.next_power_of_2(cols)
{{else}}
        block = min({{CHUNK}}, triton.next_power_of_2(cols))
{{/if}}
        programs = triton.cdiv(rows, {{ROWS}})
        out = torch.zeros((), device=predictions.device, dtype=torch.float32)
{{#if REDUCE == atomic}}
        cross_entropy_kernel[(programs,)](predictions, targets, out, rows, cols,
                                          predictions.stride(0), 1.0 / rows, ROWS={{ROWS}},
                                          BLOCK=block, num_warps={{WARPS}})
{{else}}
        partials = torch.empty(programs, device=predictions.device, dtype=torch.float32)
        cross_entropy_kernel[(programs,)](predictions, targets, partials, rows, cols,
                                          predictions.stride(0), 1.0 / rows, ROWS={{ROWS}},
                                          BLOCK=block, num_warps={{WARPS}})
        sum_kernel[(1,)](partials, out, programs, BLOCK=1024, num_warps=4)
{{/if}}
        return out
