"""kjudge catalog problem level1/97_ScaledDotProductAttention as a PyTorch module (KernelBench's form).

O = softmax(Q @ K^T / sqrt(D)) @ V per batch and head (no mask, no dropout).
Uses F.scaled_dot_product_attention where this PyTorch has it (2.0+), else the same math.

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
B = 32
NH = 32
S = 512
D = 1024


class Model(nn.Module):
    """O = softmax(Q @ K^T / sqrt(D)) @ V per batch and head (no mask, no dropout)."""

    def __init__(self):
        super().__init__()

    def forward(self, Q, K, V):
        if hasattr(F, "scaled_dot_product_attention"):
            return F.scaled_dot_product_attention(Q, K, V)
        scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(Q.shape[-1])
        return torch.matmul(torch.softmax(scores, dim=-1), V)


def get_inputs():
    Q = torch.randn(B, NH, S, D)
    K = torch.randn(B, NH, S, D)
    V = torch.randn(B, NH, S, D)
    return [Q, K, V]


def get_init_inputs():
    return []
