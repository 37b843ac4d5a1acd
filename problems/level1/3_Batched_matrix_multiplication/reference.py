"""kjudge catalog problem level1/3_Batched_matrix_multiplication as a PyTorch module (KernelBench's form).

C[b] = A[b] @ B[b].

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
BATCH = 128
M = 512
N = 2048
K = 1024


class Model(nn.Module):
    """C[b] = A[b] @ B[b]."""

    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.bmm(A, B)


def get_inputs():
    A = (torch.rand(BATCH, M, K) * 2 - 1) * 1.0
    B = (torch.rand(BATCH, K, N) * 2 - 1) * 1.0
    return [A, B]


def get_init_inputs():
    return []
