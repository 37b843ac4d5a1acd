"""kjudge catalog problem level1/9_Tall_skinny_matrix_multiplication_ as a PyTorch module (KernelBench's form).

C = A @ B, A [M, N], B [N, M] (M x M result).

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
M = 32768
N = 32


class Model(nn.Module):
    """C = A @ B, A [M, N], B [N, M] (M x M result)."""

    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.matmul(A, B)


def get_inputs():
    A = (torch.rand(M, N) * 2 - 1) * 1.0
    B = (torch.rand(N, M) * 2 - 1) * 1.0
    return [A, B]


def get_init_inputs():
    return []
