"""kjudge catalog problem level1/36_RMSNorm_ as a PyTorch module (KernelBench's form).

Y = X / sqrt(mean over channels of X^2 + 1e-5) (dim 1, no weight).

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
N = 112
C = 64
H = 512
W = 512

# The op's epsilon (as in reference.cu).
eps = 1e-5


class Model(nn.Module):
    """Y = X / sqrt(mean over channels of X^2 + 1e-5) (dim 1, no weight)."""

    def __init__(self):
        super().__init__()

    def forward(self, X):
        return X / torch.sqrt(torch.mean(X ** 2, dim=1, keepdim=True) + eps)


def get_inputs():
    X = torch.rand(N, C, H, W)
    return [X]


def get_init_inputs():
    return []
