"""kjudge catalog problem level1/24_LogSoftmax as a PyTorch module (KernelBench's form).

Y = log_softmax(X) along each row (dim 1).

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
    """Y = log_softmax(X) along each row (dim 1)."""

    def __init__(self):
        super().__init__()

    def forward(self, X):
        return torch.log_softmax(X, dim=1)


def get_inputs():
    X = torch.randn(M, N)
    return [X]


def get_init_inputs():
    return []
