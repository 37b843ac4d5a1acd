"""kjudge catalog problem level1/45_Average_Pooling_2D as a PyTorch module (KernelBench's form).

2-D average pooling (square kernel K, stride S, no padding).

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
B = 8
C = 64
H = 2048
W = 2048
K = 11
S = 11


class Model(nn.Module):
    """2-D average pooling (square kernel K, stride S, no padding)."""

    def __init__(self, K, S):
        super().__init__()
        self.K = K
        self.S = S

    def forward(self, X):
        return F.avg_pool2d(X, self.K, stride=self.S)


def get_inputs():
    X = torch.rand(B, C, H, W)
    return [X]


def get_init_inputs():
    return [K, S]
