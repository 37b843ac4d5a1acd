# Written for kjudge's importer test in KernelBench's form (not a KernelBench file): an MLP whose
# hidden width is a list global, which test shapes never shrink, so even the smallest test
# shape holds a 6000 x 6000 weight: more elements than the importer runs on a CPU in float64.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, hidden, out_features):
        super().__init__()
        layers = []
        width = in_features
        for h in hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        layers.append(nn.Linear(width, out_features))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


batch_size = 16
in_features = 64
hidden = [6000, 6000]
out_features = 32


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [in_features, hidden, out_features]
