"""kjudge catalog problem level1/5_Matrix_scalar_multiplication as a PyTorch module (KernelBench's form).

C = A * s.

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
M = 65536
N = 16384

# Scalars of the spec (fixed values).
s = 3.14


class Model(nn.Module):
    """C = A * s."""

    def __init__(self):
        super().__init__()

    def forward(self, A):
        return A * s


def get_inputs():
    A = (torch.rand(M, N) * 2 - 1) * 1.0
    return [A]


def get_init_inputs():
    return []
