"""kjudge catalog problem level2/bert_linear as a PyTorch module (KernelBench's form).

Y = X @ W^T + b (nn.Linear's math with the weight as an input).

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
M = 128
K = 768
N = 768


class Model(nn.Module):
    """Y = X @ W^T + b (nn.Linear's math with the weight as an input)."""

    def __init__(self):
        super().__init__()

    def forward(self, X, W, b):
        return F.linear(X, W, b)


def get_inputs():
    X = torch.randn(M, K)
    W = torch.randn(N, K) * 0.02
    b = (torch.rand(N) * 2 - 1) * 0.1
    return [X, W, b]


def get_init_inputs():
    return []
