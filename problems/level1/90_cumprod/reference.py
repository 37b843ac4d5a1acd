"""kjudge catalog problem level1/90_cumprod as a PyTorch module (KernelBench's form).

Y = inclusive prefix product of each row.

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
B = 32768
N = 32768


class Model(nn.Module):
    """Y = inclusive prefix product of each row."""

    def __init__(self):
        super().__init__()

    def forward(self, X):
        return torch.cumprod(X, dim=1)


def get_inputs():
    X = torch.rand(B, N) * 0.020000000000000018 + 0.99
    return [X]


def get_init_inputs():
    return []
