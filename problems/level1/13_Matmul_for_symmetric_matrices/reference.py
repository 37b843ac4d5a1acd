"""kjudge catalog problem level1/13_Matmul_for_symmetric_matrices as a PyTorch module (KernelBench's form).

C = S_A @ S_B where S_A, S_B are the symmetric matrices given by the LOWER triangles of A and B
(reference.cu reads only A[max(i,k)][min(i,k)]; the upper triangles are ignored).

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
N = 4096


class Model(nn.Module):
    """The math of the module docstring."""

    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        sym_a = torch.tril(A) + torch.tril(A, -1).transpose(0, 1)
        sym_b = torch.tril(B) + torch.tril(B, -1).transpose(0, 1)
        return torch.matmul(sym_a, sym_b)


def get_inputs():
    A = (torch.rand(N, N) * 2 - 1) * 1.0
    B = (torch.rand(N, N) * 2 - 1) * 1.0
    return [A, B]


def get_init_inputs():
    return []
