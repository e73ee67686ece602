import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs a ReLU activation. This file is malformed on
    purpose: it has no get_inputs() (the function below is misspelt), so the
    importer must report it and skip it.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)

batch_size = 16
dim = 16384

def get_input():
    x = torch.randn(batch_size, dim)
    return [x]

def get_init_inputs():
    return []  # No special initialization inputs needed
