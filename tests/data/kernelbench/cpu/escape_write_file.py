# expect: task=kb1_002_row_softmax verdict=crash flag=torch_introspection
# Tries to leave something behind outside its work folder (and to start a process): Landlock
# and seccomp, applied by the worker once the module is imported, refuse both, so the forward
# raises; tst_torchcpu checks that the file was never created.
import os
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        os.system("touch /tmp/kiln-torch-escape-proof-2")
        with open("/tmp/kiln-torch-escape-proof", "w") as proof:
            proof.write("escaped\n")
        return torch.softmax(x, dim=1)
