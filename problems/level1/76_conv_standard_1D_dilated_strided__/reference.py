"""kjudge catalog problem level1/76_conv_standard_1D_dilated_strided__ as a PyTorch module (KernelBench's form).

1-D convolution (cross-correlation), stride S, dilation DIL, no padding, no bias; the weight Wt
is an input.

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
B = 64
CI = 64
CO = 128
L = 524280
K = 3
S = 3
DIL = 4


class Model(nn.Module):
    """The math of the module docstring."""

    def __init__(self, S, DIL):
        super().__init__()
        self.S = S
        self.DIL = DIL

    def forward(self, X, Wt):
        return F.conv1d(X, Wt, stride=self.S, dilation=self.DIL)


def get_inputs():
    X = torch.rand(B, CI, L)
    Wt = (torch.rand(CO, CI, K) * 2 - 1) * 0.0721688
    return [X, Wt]


def get_init_inputs():
    return [S, DIL]
