"""kjudge catalog problem level1/28_HardSigmoid as a PyTorch module (KernelBench's form).

Y = min(max(X + 3, 0), 6) / 6.

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


class Model(nn.Module):
    """Y = min(max(X + 3, 0), 6) / 6."""

    def __init__(self):
        super().__init__()

    def forward(self, X):
        return F.hardsigmoid(X)


def get_inputs():
    X = (torch.rand(M, N) * 2 - 1) * 5.0
    return [X]


def get_init_inputs():
    return []
