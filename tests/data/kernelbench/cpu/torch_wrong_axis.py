# expect: task=kb1_002_row_softmax verdict=flagged flag=torch_library_compute
# An honest mistake (the softmax runs over the columns), in plain PyTorch: flagged for the
# library compute, and its correctness stage must fail.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, dim=0)
