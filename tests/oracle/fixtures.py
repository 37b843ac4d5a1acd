"""Small problems in KernelBench's *form* (Model, get_inputs, get_init_inputs, int size globals),
written for these tests; `reference(...)` next to each is what the test computes itself."""

ELEMENTWISE = '''
import torch
import torch.nn as nn

batch_size = 64
dim = 4096


class Model(nn.Module):
    """A smooth elementwise map: tanh(x) * 0.5 + x / 3."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.tanh(x) * 0.5 + x / 3


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
'''

# A causal mask the module registers as a buffer (structural: left to the module, not bound)
# next to a scale parameter that must be bound.
CAUSAL_MASK = '''
import torch
import torch.nn as nn

length = 6


class Model(nn.Module):
    def __init__(self, length):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(1))
        self.register_buffer("mask", torch.tril(torch.ones(length, length)))

    def forward(self, x):
        return (x * self.mask) * self.scale


def get_inputs():
    return [torch.randn(length, length)]


def get_init_inputs():
    return [length]
'''

LINEAR_RELU = '''
import torch
import torch.nn as nn

batch_size = 32
in_features = 1024
out_features = 512


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.relu(self.linear(x))


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
'''

# level3/44_MiniGPTBlock's pattern: forward calls a lambda made in __init__ over a submodule, so
# a deep copy of the model still reaches the original's layers (and their dtype).
LAMBDA_OVER_SUBMODULE = '''
import torch
import torch.nn as nn

batch_size = 32
in_features = 1024
out_features = 512


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.mlp = nn.ModuleDict(dict(linear=nn.Linear(in_features, out_features)))
        m = self.mlp
        self.mlpf = lambda x: torch.relu(m.linear(x))

    def forward(self, x):
        return self.mlpf(x)


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
'''

TWO_OUTPUTS = '''
import torch
import torch.nn as nn

rows = 100
cols = 100


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return a + b, (a * b).sum(dim=1)


def get_inputs():
    return [torch.randn(rows, cols), torch.randn(rows, cols)]


def get_init_inputs():
    return []
'''

CONV = '''
import torch
import torch.nn as nn

batch_size = 8
in_channels = 3
out_channels = 16
kernel_size = 3
height = 64
width = 64


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=1, stride=2)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
'''

RAISES = '''
import torch
import torch.nn as nn

n = 4


class Model(nn.Module):
    def forward(self, x):
        raise RuntimeError("this module always fails")


def get_inputs():
    return [torch.randn(n)]


def get_init_inputs():
    return []
'''


def load_request(key, source, globals_, forward, outputs, parameters=(), name="test/fixture"):
    return {"op": "load", "key": key, "problem": name, "filename": "reference.py",
            "source": source, "globals": globals_, "forward": list(forward),
            "parameters": [list(p) for p in parameters], "outputs": list(outputs)}

# Slow to build (as a level-3 model is): an identical second load must not build it again.
SLOW_TO_BUILD = ELEMENTWISE.replace("super().__init__()", "super().__init__()\n        import time\n        time.sleep(0.6)")

# Writes the backend switches it runs under into its output: cudnn.allow_tf32 + 2 * the CUDA
# matmul's allow_tf32 (issue 28: torch_eager under PyTorch's defaults, the rest without TF32).
FLAGS_PROBE = """
import torch
import torch.nn as nn

batch_size = 2
dim = 8


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        flags = float(torch.backends.cudnn.allow_tf32) + 2.0 * float(torch.backends.cuda.matmul.allow_tf32)
        return x * 0 + flags


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
"""
