"""kjudge catalog problem level2/bert_gemm_bias_add_layernorm as a PyTorch module (KernelBench's form).

BertSelfOutput: Y = LayerNorm(X @ W^T + b + R) over H with weight gamma, bias beta, eps 1e-12.

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
T = 8192
H = 768

# Scalars of the spec (fixed values).
eps = 1e-12


class Model(nn.Module):
    """BertSelfOutput: Y = LayerNorm(X @ W^T + b + R) over H with weight gamma, bias beta, eps 1e-12."""

    def __init__(self):
        super().__init__()

    def forward(self, X, W, b, R, gamma, beta):
        z = F.linear(X, W, b) + R
        return F.layer_norm(z, (z.shape[-1],), gamma, beta, eps=eps)


def get_inputs():
    X = torch.randn(T, H)
    W = torch.randn(H, H) * 0.02
    b = (torch.rand(H) * 2 - 1) * 0.1
    R = torch.randn(T, H)
    gamma = torch.rand(H) * 1.0 + 0.5
    beta = (torch.rand(H) * 2 - 1) * 0.5
    return [X, W, b, R, gamma, beta]


def get_init_inputs():
    return []
