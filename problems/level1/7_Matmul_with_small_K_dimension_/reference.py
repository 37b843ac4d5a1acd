"""kjudge catalog problem level1/7_Matmul_with_small_K_dimension_ as a PyTorch module (KernelBench's form).

C = A @ B with a small K.

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
M = 32768
N = 32768
K = 64


class Model(nn.Module):
    """C = A @ B with a small K."""

    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.matmul(A, B)


def get_inputs():
    A = (torch.rand(M, K) * 2 - 1) * 1.0
    B = (torch.rand(K, N) * 2 - 1) * 1.0
    return [A, B]


def get_init_inputs():
    return []
