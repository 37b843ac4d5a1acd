"""kjudge catalog problem level1/35_GroupNorm_ as a PyTorch module (KernelBench's form).

Group normalisation without affine parameters: G groups of C / G consecutive channels,
Y = (X - mean[n][g]) / sqrt(var[n][g] + 1e-5), biased statistics per (sample, group).
Written out rather than F.group_norm, which refuses one value per group (the 1 x 1 x 1 x 1
test shape; reference.cu normalises it to 0).

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
N = 112
C = 64
G = 8
H = 512
W = 512

# The op's epsilon (as in reference.cu).
eps = 1e-5


class Model(nn.Module):
    """The math of the module docstring."""

    def __init__(self, G):
        super().__init__()
        self.G = G

    def forward(self, X):
        groups = X.reshape(X.shape[0], self.G, -1)
        mean = groups.mean(dim=2, keepdim=True)
        var = groups.var(dim=2, unbiased=False, keepdim=True)
        return ((groups - mean) / torch.sqrt(var + eps)).reshape(X.shape)


def get_inputs():
    X = torch.rand(N, C, H, W)
    return [X]


def get_init_inputs():
    return [G]
