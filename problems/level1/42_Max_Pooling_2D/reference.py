"""kjudge catalog problem level1/42_Max_Pooling_2D as a PyTorch module (KernelBench's form).

2-D max pooling (square kernel K, stride S, padding P, dilation DIL; padding ignored).

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
B = 32
C = 64
H = 512
W = 512
K = 4
S = 1
P = 1
DIL = 1


class Model(nn.Module):
    """2-D max pooling (square kernel K, stride S, padding P, dilation DIL; padding ignored)."""

    def __init__(self, K, S, P, DIL):
        super().__init__()
        self.K = K
        self.S = S
        self.P = P
        self.DIL = DIL

    def forward(self, X):
        return F.max_pool2d(X, self.K, stride=self.S, padding=self.P, dilation=self.DIL)


def get_inputs():
    X = torch.randn(B, C, H, W)
    return [X]


def get_init_inputs():
    return [K, S, P, DIL]
