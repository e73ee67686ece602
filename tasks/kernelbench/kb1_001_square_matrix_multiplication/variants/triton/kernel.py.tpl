{{! KernelBench level 1 #1, square matmul, Triton. Knobs: TILE BLOCK_K WARPS STAGES GROUP_M AUTOTUNE }}
# C = A @ B in Triton: {{TILE}} output tiles, BLOCK_K={{BLOCK_K}}, {{WARPS}} warps, {{STAGES}} stages,
# program order grouped by {{GROUP_M}} rows of tiles, autotune {{AUTOTUNE}}.
import torch
import torch.nn as nn
import triton
import triton.language as tl

{{#if TILE == 32x32}}
TILE_M, TILE_N = 32, 32
{{#elif TILE == 64x64}}
TILE_M, TILE_N = 64, 64
{{#elif TILE == 128x64}}
TILE_M, TILE_N = 128, 64
{{else}}
TILE_M, TILE_N = 128, 128
{{/if}}
# Shared memory of one pipeline stage: an A tile and a B tile of fp32.
STAGE_BYTES = (TILE_M + TILE_N) * {{BLOCK_K}} * 4
# Fewer stages when the requested ones would not fit in an SM's shared memory.
NUM_STAGES = max(1, min({{STAGES}}, (160 * 1024) // STAGE_BYTES))


{{#if AUTOTUNE == on}}
@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": TILE_M, "BLOCK_N": TILE_N, "BLOCK_K": {{BLOCK_K}}},
                      num_warps={{WARPS}}, num_stages=NUM_STAGES),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_warps=4, num_stages=3),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32}, num_warps=8, num_stages=3),
    ],
    key=["M", "N", "K"],
)
{{/if}}
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
{{#if GROUP_M == 1}}
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
{{else}}
    # Programs that run together share rows of A and columns of B in L2: the launch order
    # (program_id 0 fastest) is renumbered so that each group of GROUP_M tile rows is done first.
    tiles_m = tl.num_programs(0)
    tiles_n = tl.num_programs(1)
    pid = tl.program_id(1) * tiles_m + tl.program_id(0)
    tiles_in_group = GROUP_M * tiles_n
    group = pid // tiles_in_group
    first_m = group * GROUP_M
    group_rows = min(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % tiles_in_group) % group_rows
    pid_n = (pid % tiles_in_group) // group_rows
{{/if}}
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a_mask = (rm[:, None] < M) & (rk[None, :] < K - k)
        b_mask = (rk[:, None] < K - k) & (rn[None, :] < N)
        a = tl.load(a_ptrs, mask=a_mask, other=0.0)
        b = tl.load(b_ptrs, mask=b_mask, other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc, mask=c_mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        M, K = A.shape
        N = B.shape[1]
        C = torch.empty((M, N), device=A.device, dtype=torch.float32)
        grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]), triton.cdiv(N, meta["BLOCK_N"]))
{{#if AUTOTUNE == on}}
        matmul_kernel[grid](A, B, C, M, N, K, A.stride(0), A.stride(1), B.stride(0), B.stride(1),
                            C.stride(0), C.stride(1), GROUP_M={{GROUP_M}})
{{else}}
        matmul_kernel[grid](A, B, C, M, N, K, A.stride(0), A.stride(1), B.stride(0), B.stride(1),
                            C.stride(0), C.stride(1), BLOCK_M=TILE_M, BLOCK_N=TILE_N,
                            BLOCK_K={{BLOCK_K}}, GROUP_M={{GROUP_M}}, num_warps={{WARPS}},
                            num_stages=NUM_STAGES)
{{/if}}
        return C
