"""kjudge catalog problem level1/40_LayerNorm as a PyTorch module (KernelBench's form).

LayerNorm over (C, H, W) of each sample without affine parameters, eps 1e-5.
Written out rather than F.layer_norm: on a constant row (the 1 x 1 x 1 x 1 test shape) PyTorch's
fused kernel leaves a rounding residue (~1e-15 in f64) where reference.cu gives exactly 0, and
the judge's relative L2 rule would then fail a correct kernel's 0.

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
N = 16
C = 64
H = 256
W = 256

# The op's epsilon (as in reference.cu).
eps = 1e-5


class Model(nn.Module):
    """LayerNorm over (C, H, W) of each sample without affine parameters, eps 1e-5."""

    def __init__(self):
        super().__init__()

    def forward(self, X):
        mean = X.mean(dim=(1, 2, 3), keepdim=True)
        var = X.var(dim=(1, 2, 3), unbiased=False, keepdim=True)
        return (X - mean) / torch.sqrt(var + eps)


def get_inputs():
    X = torch.rand(N, C, H, W)
    return [X]


def get_init_inputs():
    return []
