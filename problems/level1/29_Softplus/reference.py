"""kjudge catalog problem level1/29_Softplus as a PyTorch module (KernelBench's form).

Y = X > 20 ? X : log(1 + exp(X)) (beta 1, threshold 20).

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
M = 4096
N = 393216


class Model(nn.Module):
    """Y = X > 20 ? X : log(1 + exp(X)) (beta 1, threshold 20)."""

    def __init__(self):
        super().__init__()

    def forward(self, X):
        return F.softplus(X)


def get_inputs():
    X = (torch.rand(M, N) * 2 - 1) * 30.0
    return [X]


def get_init_inputs():
    return []
