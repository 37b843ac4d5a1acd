"""kjudge catalog problem level1/98_KLDivLoss as a PyTorch module (KernelBench's form).

L = (1 / B) * sum q * (log q - log p), p = softmax(P), q = softmax(Q) along rows.
P and Q are LOGITS here (reference.cu takes logits; KernelBench feeds probabilities).

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
B = 16384
D = 16384


class Model(nn.Module):
    """L = (1 / B) * sum q * (log q - log p), p = softmax(P), q = softmax(Q) along rows."""

    def __init__(self):
        super().__init__()

    def forward(self, P, Q):
        log_p = torch.log_softmax(P, dim=1)
        log_q = torch.log_softmax(Q, dim=1)
        return F.kl_div(log_p, log_q, reduction="batchmean", log_target=True).reshape(1)


def get_inputs():
    P = torch.randn(B, D)
    Q = torch.randn(B, D)
    return [P, Q]


def get_init_inputs():
    return []
