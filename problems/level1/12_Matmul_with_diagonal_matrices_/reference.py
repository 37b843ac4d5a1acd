"""kjudge catalog problem level1/12_Matmul_with_diagonal_matrices_ as a PyTorch module (KernelBench's form).

C = diag(A) @ B: row i of B scaled by A[i].

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
N = 4096
M = 4096


class Model(nn.Module):
    """C = diag(A) @ B: row i of B scaled by A[i]."""

    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.diag(A) @ B


def get_inputs():
    A = (torch.rand(N) * 2 - 1) * 1.0
    B = (torch.rand(N, M) * 2 - 1) * 1.0
    return [A, B]


def get_init_inputs():
    return []
