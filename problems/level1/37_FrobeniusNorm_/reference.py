"""kjudge catalog problem level1/37_FrobeniusNorm_ as a PyTorch module (KernelBench's form).

Y = X / ||X||_F (one norm over the whole tensor).

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


class Model(nn.Module):
    """Y = X / ||X||_F (one norm over the whole tensor)."""

    def __init__(self):
        super().__init__()

    def forward(self, X):
        return X / torch.norm(X, p="fro")


def get_inputs():
    X = (torch.rand(N, C, H, W) * 2 - 1) * 1.0
    return [X]


def get_init_inputs():
    return []
