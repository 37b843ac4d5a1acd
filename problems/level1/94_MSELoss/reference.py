"""kjudge catalog problem level1/94_MSELoss as a PyTorch module (KernelBench's form).

L = mean((P - T)^2) over all elements, as a 1-element tensor.

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
    """L = mean((P - T)^2) over all elements, as a 1-element tensor."""

    def __init__(self):
        super().__init__()

    def forward(self, P, T):
        return torch.mean((P - T) ** 2).reshape(1)


def get_inputs():
    P = torch.randn(B, D)
    T = torch.randn(B, D)
    return [P, T]


def get_init_inputs():
    return []
