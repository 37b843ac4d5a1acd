"""kjudge catalog problem level2/68_Matmul_Min_Subtract as a PyTorch module (KernelBench's form).

Y = min(v, constant) - constant, v = X @ W^T + B.

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
M = 128
K = 16384
N = 16384

# Scalars of the spec (fixed values).
constant = 2.0


class Model(nn.Module):
    """Y = min(v, constant) - constant, v = X @ W^T + B."""

    def __init__(self):
        super().__init__()

    def forward(self, X, W, B):
        v = F.linear(X, W, B)
        return torch.clamp(v, max=constant) - constant


def get_inputs():
    X = torch.rand(M, K)
    W = (torch.rand(N, K) * 2 - 1) * 0.035
    B = (torch.rand(N) * 2 - 1) * 2.0
    return [X, W, B]


def get_init_inputs():
    return []
