import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Softmax over rows of 8192 features: every probability is far below KernelBench's
    absolute tolerance of 0.01, so an all-zero answer would meet it.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=1)

batch_size = 32
dim = 8192

def get_inputs():
    return [torch.randn(batch_size, dim)]

def get_init_inputs():
    return []
