"""kjudge catalog problem level2/40_Matmul_Scaling_ResidualAdd as a PyTorch module (KernelBench's form).

Y = v * scaling_factor + v, v = X @ W^T + B.

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
M = 16384
K = 4096
N = 4096

# Scalars of the spec (fixed values).
scaling_factor = 0.5


class Model(nn.Module):
    """Y = v * scaling_factor + v, v = X @ W^T + B."""

    def __init__(self):
        super().__init__()

    def forward(self, X, W, B):
        v = F.linear(X, W, B)
        return v * scaling_factor + v


def get_inputs():
    X = torch.rand(M, K)
    W = (torch.rand(N, K) * 2 - 1) * 0.07
    B = (torch.rand(N) * 2 - 1) * 2.0
    return [X, W, B]


def get_init_inputs():
    return []
