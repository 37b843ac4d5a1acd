"""kjudge catalog problem level1/100_HingeLoss as a PyTorch module (KernelBench's form).

L = mean(max(0, 1 - P * t)), t[d] = +1 where S[d] >= 0 else -1 (broadcast along the last dimension).

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
B = 32768
D = 32768


class Model(nn.Module):
    """L = mean(max(0, 1 - P * t)), t[d] = +1 where S[d] >= 0 else -1 (broadcast along the last dimension)."""

    def __init__(self):
        super().__init__()

    def forward(self, P, S):
        t = torch.where(S >= 0, torch.ones_like(S), -torch.ones_like(S))
        return torch.mean(torch.clamp(1 - P * t, min=0)).reshape(1)


def get_inputs():
    P = torch.randn(B, D)
    S = (torch.rand(D) * 2 - 1) * 1.0
    return [P, S]


def get_init_inputs():
    return []
