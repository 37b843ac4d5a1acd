"""kjudge catalog problem level1/16_Matmul_with_transposed_A as a PyTorch module (KernelBench's form).

C = A^T @ B, A is [K, M].

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
M = 2048
N = 4096
K = 8192


class Model(nn.Module):
    """C = A^T @ B, A is [K, M]."""

    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.matmul(A.T, B)


def get_inputs():
    A = (torch.rand(K, M) * 2 - 1) * 1.0
    B = (torch.rand(K, N) * 2 - 1) * 1.0
    return [A, B]


def get_init_inputs():
    return []
