"""kjudge catalog problem level1/63_conv_standard_2D__square_input__square_kernel as a PyTorch module (KernelBench's form).

2-D convolution (cross-correlation), stride 1, no padding, no bias; the weight Wt is an input.

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
B = 16
CI = 16
CO = 128
H = 1024
W = 1024
K = 3


class Model(nn.Module):
    """2-D convolution (cross-correlation), stride 1, no padding, no bias; the weight Wt is an input."""

    def __init__(self):
        super().__init__()

    def forward(self, X, Wt):
        return F.conv2d(X, Wt)


def get_inputs():
    X = torch.rand(B, CI, H, W)
    Wt = (torch.rand(CO, CI, K, K) * 2 - 1) * 0.0833333
    return [X, Wt]


def get_init_inputs():
    return []
