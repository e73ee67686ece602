# expect: task=kb1_002_row_softmax verdict=flagged flag=input_modified
# Computes the right answer, then scribbles over its input (a scratch buffer it does not own).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        out = torch.softmax(x, dim=1)
        x.zero_()
        return out
