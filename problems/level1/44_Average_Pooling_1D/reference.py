"""kjudge catalog problem level1/44_Average_Pooling_1D as a PyTorch module (KernelBench's form).

1-D average pooling (kernel K, stride S, padding P; padding counts as zeros, divisor K).

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
B = 64
C = 128
L = 65536
K = 8
S = 1
P = 4


class Model(nn.Module):
    """1-D average pooling (kernel K, stride S, padding P; padding counts as zeros, divisor K)."""

    def __init__(self, K, S, P):
        super().__init__()
        self.K = K
        self.S = S
        self.P = P

    def forward(self, X):
        return F.avg_pool1d(X, self.K, stride=self.S, padding=self.P, count_include_pad=True)


def get_inputs():
    X = torch.rand(B, C, L)
    return [X]


def get_init_inputs():
    return [K, S, P]
