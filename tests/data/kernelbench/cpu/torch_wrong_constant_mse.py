# expect: task=kb1_001_mse_loss verdict=flagged flag=torch_library_compute
# Returns the loss's expected value instead of computing it. For randn inputs the true loss
# stays within KernelBench's tolerance of 2.0 on every seed; the spread input set (1 % of the
# values scaled) is what catches it: its correctness stage must fail on that set only.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions, targets):
        return torch.full((), 2.0, device=predictions.device)
