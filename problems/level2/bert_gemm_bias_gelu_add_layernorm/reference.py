"""kjudge catalog problem level2/bert_gemm_bias_gelu_add_layernorm as a PyTorch module (KernelBench's form).

BertIntermediate + BertOutput: Y = LayerNorm(gelu(X @ W1^T + b1) @ W2^T + b2 + X) over H,
erf GELU, LayerNorm weight gamma, bias beta, eps 1e-12.

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
I = 3072

# Scalars of the spec (fixed values).
eps = 1e-12


class Model(nn.Module):
    """The math of the module docstring."""

    def __init__(self):
        super().__init__()

    def forward(self, X, W1, b1, W2, b2, gamma, beta):
        h1 = F.gelu(F.linear(X, W1, b1))
        z = F.linear(h1, W2, b2) + X
        return F.layer_norm(z, (z.shape[-1],), gamma, beta, eps=eps)


def get_inputs():
    X = torch.randn(T, H)
    W1 = torch.randn(I, H) * 0.02
    b1 = (torch.rand(I) * 2 - 1) * 0.1
    W2 = torch.randn(H, I) * 0.02
    b2 = (torch.rand(H) * 2 - 1) * 0.1
    gamma = torch.rand(H) * 1.0 + 0.5
    beta = (torch.rand(H) * 2 - 1) * 0.5
    return [X, W1, b1, W2, b2, gamma, beta]


def get_init_inputs():
    return []
