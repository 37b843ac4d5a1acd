"""kjudge catalog problem level1/95_CrossEntropyLoss as a PyTorch module (KernelBench's form).

L = mean over rows of logsumexp(X[b]) - X[b][t[b]], t[b] = min((int)(T[b] * (float)C), C - 1).
The targets arrive as floats in [0, 1) (the judge generates float inputs); the class index is
computed in float32 exactly as reference.cu does, whatever precision the rest runs in.

Written for kjudge from this directory's problem.toml and reference.cu (the hand-written CUDA
reference, which stays the judge's reference): the same math, argument order and sizes. Every
input of the spec, weights included, is an argument of forward; the module has no parameters.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

# Sizes of the spec at its bench shape (the oracle sets them at every shape it runs).
B = 32768
C = 4096


class Model(nn.Module):
    """L = mean over rows of logsumexp(X[b]) - X[b][t[b]], t[b] = min((int)(T[b] * (float)C), C - 1)."""

    def __init__(self):
        super().__init__()

    def forward(self, X, T):
        classes = X.shape[1]
        target = (T.to(torch.float32) * float(classes)).to(torch.int64).clamp(max=classes - 1)
        return F.cross_entropy(X, target).reshape(1)


def get_inputs():
    X = torch.randn(B, C)
    T = torch.rand(B)
    return [X, T]


def get_init_inputs():
    return []
