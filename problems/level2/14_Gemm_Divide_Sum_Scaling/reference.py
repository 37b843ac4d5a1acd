"""kjudge catalog problem level2/14_Gemm_Divide_Sum_Scaling as a PyTorch module (KernelBench's form).

Y[m] = scaling_factor * sum_n (X @ W^T)[m][n] / 2 (no bias; Y is M x 1).

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
M = 1024
K = 8192
N = 8192

# Scalars of the spec (fixed values).
scaling_factor = 1.5


class Model(nn.Module):
    """Y[m] = scaling_factor * sum_n (X @ W^T)[m][n] / 2 (no bias; Y is M x 1)."""

    def __init__(self):
        super().__init__()

    def forward(self, X, W):
        v = torch.matmul(X, W.T) / 2
        return torch.sum(v, dim=1, keepdim=True) * scaling_factor


def get_inputs():
    X = torch.rand(M, K)
    W = (torch.rand(N, K) * 2 - 1) * 0.05
    return [X, W]


def get_init_inputs():
    return []
