"""kjudge catalog problem level2/76_Gemm_Add_ReLU as a PyTorch module (KernelBench's form).

Y = relu(X @ W^T + B) (a bias-free Linear, then B added).

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
M = 1024
K = 8192
N = 8192


class Model(nn.Module):
    """Y = relu(X @ W^T + B) (a bias-free Linear, then B added)."""

    def __init__(self):
        super().__init__()

    def forward(self, X, W, B):
        return torch.relu(F.linear(X, W) + B)


def get_inputs():
    X = torch.rand(M, K)
    W = (torch.rand(N, K) * 2 - 1) * 0.05
    B = torch.randn(N)
    return [X, W, B]


def get_init_inputs():
    return []
