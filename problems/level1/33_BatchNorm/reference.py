"""kjudge catalog problem level1/33_BatchNorm as a PyTorch module (KernelBench's form).

Training-mode batch normalisation without affine parameters:
Y = (X - mean[c]) / sqrt(var[c] + 1e-5), biased statistics over (N, H, W) of each channel.
Written out rather than F.batch_norm, which refuses one value per channel (the 1 x 1 x 1 x 1
test shape; reference.cu normalises it to 0).

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
N = 64
C = 64
H = 512
W = 512

# The op's epsilon (as in reference.cu).
eps = 1e-5


class Model(nn.Module):
    """The math of the module docstring."""

    def __init__(self):
        super().__init__()

    def forward(self, X):
        mean = X.mean(dim=(0, 2, 3), keepdim=True)
        var = X.var(dim=(0, 2, 3), unbiased=False, keepdim=True)
        return (X - mean) / torch.sqrt(var + eps)


def get_inputs():
    X = torch.rand(N, C, H, W)
    return [X]


def get_init_inputs():
    return []
