"""kjudge catalog problem level1/20_LeakyReLU as a PyTorch module (KernelBench's form).

Y = X > 0 ? X : negative_slope * X.

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
negative_slope = 0.01


class Model(nn.Module):
    """Y = X > 0 ? X : negative_slope * X."""

    def __init__(self):
        super().__init__()

    def forward(self, X):
        return F.leaky_relu(X, negative_slope=negative_slope)


def get_inputs():
    X = torch.randn(M, N)
    return [X]


def get_init_inputs():
    return []
