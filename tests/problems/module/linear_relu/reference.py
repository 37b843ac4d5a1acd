# kjudge's own test fixture (written for kjudge; not from KernelBench): a module-only problem in
# KernelBench's form. One fully connected layer followed by a ReLU.
import torch
import torch.nn as nn


class Model(nn.Module):
    """y = relu(x @ W^T + b)."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.relu(self.linear(x))


batch_size = 128
in_features = 2048
out_features = 1024


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
