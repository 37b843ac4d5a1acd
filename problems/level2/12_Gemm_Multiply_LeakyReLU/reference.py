"""kjudge catalog problem level2/12_Gemm_Multiply_LeakyReLU as a PyTorch module (KernelBench's form).

Y = leaky_relu((X @ W^T + B) * multiplier, negative_slope).

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

# Scalars of the spec (fixed values).
multiplier = 2.0
negative_slope = 0.1


class Model(nn.Module):
    """Y = leaky_relu((X @ W^T + B) * multiplier, negative_slope)."""

    def __init__(self):
        super().__init__()

    def forward(self, X, W, B):
        v = F.linear(X, W, B) * multiplier
        return F.leaky_relu(v, negative_slope=negative_slope)


def get_inputs():
    X = torch.rand(M, K)
    W = (torch.rand(N, K) * 2 - 1) * 0.05
    B = (torch.rand(N) * 2 - 1) * 2.0
    return [X, W, B]


def get_init_inputs():
    return []
