"""kjudge catalog problem level2/56_Matmul_Sigmoid_Sum as a PyTorch module (KernelBench's form).

Y[m] = sum_n sigmoid((X @ W^T + B)[m][n]) (Y is M x 1).

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
M = 128
K = 32768
N = 32768


class Model(nn.Module):
    """Y[m] = sum_n sigmoid((X @ W^T + B)[m][n]) (Y is M x 1)."""

    def __init__(self):
        super().__init__()

    def forward(self, X, W, B):
        v = torch.sigmoid(F.linear(X, W, B))
        return torch.sum(v, dim=1, keepdim=True)


def get_inputs():
    X = torch.rand(M, K)
    W = (torch.rand(N, K) * 2 - 1) * 0.025
    B = (torch.rand(N) * 2 - 1) * 2.0
    return [X, W, B]


def get_init_inputs():
    return []
