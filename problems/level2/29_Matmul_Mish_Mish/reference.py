"""kjudge catalog problem level2/29_Matmul_Mish_Mish as a PyTorch module (KernelBench's form).

Y = mish(mish(X @ W^T + B)), mish(x) = x * tanh(log(1 + exp(x))).

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
    """Y = mish(mish(X @ W^T + B)), mish(x) = x * tanh(log(1 + exp(x)))."""

    def __init__(self):
        super().__init__()

    def forward(self, X, W, B):
        v = F.linear(X, W, B)
        return F.mish(F.mish(v))


def get_inputs():
    X = torch.rand(M, K)
    W = (torch.rand(N, K) * 2 - 1) * 0.05
    B = (torch.rand(N) * 2 - 1) * 2.0
    return [X, W, B]


def get_init_inputs():
    return []
