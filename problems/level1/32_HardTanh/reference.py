"""kjudge catalog problem level1/32_HardTanh as a PyTorch module (KernelBench's form).

Y = min(max(X, min_val), max_val).

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
M = 4096
N = 393216

# Scalars of the spec (fixed values).
min_val = -1.0
max_val = 1.0


class Model(nn.Module):
    """Y = min(max(X, min_val), max_val)."""

    def __init__(self):
        super().__init__()

    def forward(self, X):
        return F.hardtanh(X, min_val=min_val, max_val=max_val)


def get_inputs():
    X = torch.randn(M, N) * 2.0
    return [X]


def get_init_inputs():
    return []
