"""kjudge catalog problem level1/19_ReLU as a PyTorch module (KernelBench's form).

Y = max(X, 0).

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
M = 4096
N = 393216


class Model(nn.Module):
    """Y = max(X, 0)."""

    def __init__(self):
        super().__init__()

    def forward(self, X):
        return torch.relu(X)


def get_inputs():
    X = torch.randn(M, N)
    return [X]


def get_init_inputs():
    return []
