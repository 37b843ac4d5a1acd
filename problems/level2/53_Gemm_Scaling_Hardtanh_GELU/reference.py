"""kjudge catalog problem level2/53_Gemm_Scaling_Hardtanh_GELU as a PyTorch module (KernelBench's form).

Y = gelu(hardtanh((X @ W^T + B) * scaling_factor, hardtanh_min, hardtanh_max)) (erf GELU).

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
M = 2048
K = 8192
N = 8192

# Scalars of the spec (fixed values).
scaling_factor = 0.5
hardtanh_min = -2.0
hardtanh_max = 2.0


class Model(nn.Module):
    """Y = gelu(hardtanh((X @ W^T + B) * scaling_factor, hardtanh_min, hardtanh_max)) (erf GELU)."""

    def __init__(self):
        super().__init__()

    def forward(self, X, W, B):
        v = F.linear(X, W, B) * scaling_factor
        v = F.hardtanh(v, min_val=hardtanh_min, max_val=hardtanh_max)
        return F.gelu(v)


def get_inputs():
    X = torch.rand(M, K)
    W = (torch.rand(N, K) * 2 - 1) * 0.05
    B = (torch.rand(N) * 2 - 1) * 2.0
    return [X, W, B]


def get_init_inputs():
    return []
