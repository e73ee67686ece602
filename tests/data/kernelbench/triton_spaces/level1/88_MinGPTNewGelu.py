import math

import torch
import torch.nn as nn


# GELU in its tanh form, as minGPT computes it (the forward the offline policy's Triton space
# for KernelBench level 1 #88 is written for); Kiln's own, smaller size.
class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


batch_size = 1000
dim = 1030


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []
