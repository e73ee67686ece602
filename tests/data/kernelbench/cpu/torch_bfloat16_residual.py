# expect: task=kb1_001_scaled_residual_add verdict=flagged flag=precision_downgrade
# Runs part of the scaled residual in bfloat16, below the problem's fp32. Its answer stays
# exact here (the bfloat16 term cancels), so correctness passes and the audit runs: the screen
# reads .bfloat16(), and on torch's CPU device the audit's op record sees the bfloat16 ops too
# (tst_torchcpu checks that evidence). The same term computed in bfloat16 alone drifts outside
# the tolerance on the spread input set, which is correctness's finding, not precision's.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        scaled = (0.5 * b.bfloat16()).float()
        return a + 0.5 * b + (scaled - scaled)
