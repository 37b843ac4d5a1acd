#!/usr/bin/python3
"""Imports KernelBench's level folders as kjudge problems defined by a PyTorch module.

Usage: /usr/bin/python3 deploy/kernelbench/import_kernelbench.py KERNELBENCH_DIR [OUT]
       (OUT defaults to problems/kernelbench; --help explains every option)

For every KERNELBENCH_DIR/level{1,2,3}/<stem>.py it writes OUT/level<L>/<stem>/ with
reference.py (the file, copied; see FIXES for the few files changed programmatically),
problem.toml (common/problem_spec.h plus the [module] section of docs/pytorch-problems.md) and
starter.cu (a kernel skeleton whose plan names the real tensors and sizes), and solution.cu
with `example = "solution.cu"` where we wrote an example solution (--examples, default
problems/kernelbench/examples/level<L>/<stem>.cu: our own code). It never commits or stores
KernelBench's text anywhere else.

How a problem is derived (docs/pytorch-problems.md section 5 has the frozen naming rules):
  * The module is built at its own globals (the bench shape) on the CPU and run on the `meta`
    device (shapes and FLOPs only, no memory); get_inputs()'s random calls are traced to choose
    each input's `init` (torch.rand -> uniform [0, 1), torch.randn -> normal(0, 1),
    torch.randint -> an integer range, scalable = false; anything else from its values).
    Structure get_inputs() gives its random values is kept as an init transform, read from
    what it returns (detect_transform): softmax rows (level1/98), tril / triu / symmetric
    matrices (level1/13-15), +-1 signs (level1/100).
  * Buffers the module's own classes register with seed-independent values (a causal mask
    torch.tril(torch.ones(T, T))) stay the module's own: not inputs, not in
    [module].parameters (structural_buffers); the description tells the candidate to compute
    them. Parameters and torch.nn modules' buffers (BatchNorm statistics) are inputs.
  * Test shapes override the module's int globals with small awkward values (never globals that
    other globals are computed from, nor structural ones: kernel sizes, strides, axes, ...),
    trying a ladder of candidates until one builds, runs on the CPU in float64 within the time
    budget, and float32 PyTorch agrees with it within the spec tolerance.
  * Every tensor dimension is named by the first int global (source order) whose value it equals
    at every shape, else `<tensor>_d<i>` (a derived size, listed at every shape). Globals equal
    at every shape (level1/54: in_channels = kernel_size = 3) are told apart first: the size
    one is varied in an extra test shape, a structural one (kernel size, stride: constants an
    example may hard-code) only in a meta-run probe used for naming (naming_probes).
  * Hand patches (hand_patches.py, each with its reason in the description): where the output
    follows PyTorch's random stream or hidden state (level2/66's dropout, level3/35's h0/c0,
    level3/33's hidden copy), the randomness or the state becomes an input tensor.
  * Skipped: modules whose output depends on dropout's random mask in training mode (a kernel
    cannot reproduce PyTorch's random stream); modules no test shape of which runs on the CPU
    for another reason than size. Where every candidate was only too big or too slow for the
    CPU (level3/1_MLP, VGG16 at batch 1), the smallest candidates are kept, checked on the meta
    device only, and problem.toml is flagged `# gpu-only-check:`: check_problems.py compares
    float32 with float64 at those test shapes on a GPU host.
  * FLOPs: a TorchDispatchMode counter on the meta run: 2 * MACs for mm/addmm/bmm/baddbmm/
    convolution, one per output element for every other computing op (views, copies and
    factories count 0). bytes = the bytes of every input (parameters included) and output.
    min_flops (GEMM-like problems only): 7/8 of the GEMM flops gemm_bound.py recognises on the
    same meta run (one matmul whose whole result reaches the outputs, or softmax attention;
    never convolutions), fitted exactly over the sizes (problems/README.md "[cost]").
  * regimes: the input regimes worker/oracle/check_problems.py's admit_regimes admits on the
    CPU (problems/README.md "Input regimes"); a GPU-only problem gets none here.
Parallel: -j N (default: half the CPU cores, since torch runs on 2 threads per process) imports N
problems at once, each in its own process (spawned); the files written and the report's order are
those of -j 1 (CTest `importer` compares), only the timings differ.
Exit status: 0 when every level folder was read (individual problems may be skipped; the report
says why), 1 when a level folder could not be read, 2 on bad usage.
"""
from __future__ import annotations

import argparse
import ast
import json
import math
import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "worker" / "oracle"))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # hand_patches

try:
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode
except ImportError:  # pragma: no cover - reported by main()
    torch = None  # type: ignore
    TorchDispatchMode = object  # type: ignore

if torch is not None:
    from kjudge_oracle.module_problem import ModuleProblem, ModuleProblemError, load_namespace
    from kjudge_oracle import spec_tools, torch_compat
import gemm_bound  # noqa: E402
from gemm_bound import GemmBound, fit_monomial, min_flops_expr  # noqa: E402
from hand_patches import HandPatchError, apply_hand_patches  # noqa: E402

LEVELS = (1, 2, 3)
EXAMPLE_LINE = ('example = "solution.cu"  # ours: problems/kernelbench/examples/level<L>/'
                '<name>.cu, copied by the importer')
DTYPES = {}  # torch dtype -> spec dtype, filled in _init_dtypes()
CTYPES = {"f32": "float", "f64": "double", "f16": "__half", "bf16": "__nv_bfloat16",
          "i32": "int", "i64": "long long", "u8": "unsigned char", "i8": "signed char"}
ESIZE = {"f32": 4, "f64": 8, "f16": 2, "bf16": 2, "i32": 4, "i64": 8, "u8": 1, "i8": 1}

# Globals that keep their bench value at every test shape: structure, not size.
FIXED_NAME = re.compile(
    r"(kernel|stride|padding|dilation|groups|pool|layers|heads|head$|n_head|scale|scaling|"
    r"divisor|factor|stages|patch|expand|ratio|block_len|hardtanh|clamp|^eps|"
    r"_dim$|^dim$|dim_|num_classes|output_classes|growth|reduce|squeeze|d_state|d_head|"
    r"d_conv)", re.IGNORECASE)
BATCH_NAME = re.compile(r"^(batch_size|batch|b)$")
# Small awkward values per test shape (index = global's position among the varied ones).
SHAPE_VALUES = [
    [5, 7, 9, 11, 13, 6, 10, 12, 14, 15],
    [17, 19, 23, 29, 31, 37, 41, 43, 47, 53],
    [33, 45, 57, 63, 67, 71, 73, 79, 83, 89],
]
BATCH_VALUES = [1, 2, 3]
# Per test shape (f64 + f32 run): a CPU-seconds budget on an ESTIMATE computed from the meta
# run alone (cpu_seconds_estimate: FLOPs and dispatched ops), never a measured time: a measured
# one (even time.process_time) grows on a loaded machine (torch's threads spin while descheduled;
# level3/30 once came out GPU-only on a busy host), and which shapes qualify decides the size
# names, the test shapes and the gpu-only flag. Same KernelBench commit -> same files.
CPU_SECONDS = {1: 2.0, 2: 2.0, 3: 8.0}
CPU_FLOPS_PER_SECOND = 2e9   # float64 + float32 forward on a 2-core CPU, conservative
CPU_SECONDS_PER_OP = 2e-4    # per dispatched ATen op (both runs): dispatch and small-op overhead
CPU_FLOPS = {1: 4e8, 2: 4e8, 3: 1e10}
CPU_ELEMS = 3e7                          # elements of the largest op (inputs + outputs)     # f64 FLOPs above which a candidate is not even run
F64_BENCH_LIMIT = 40e9                   # bytes: above this the bench shape runs in f32
TOL_LADDER = [1e-4, 1e-3, 1e-2, 2e-2, 5e-2]
# Tolerances raised for the bench shape from a GPU run (the judge checks every timed sample there,
# and a baseline once): the CPU's small test shapes admitted a tighter one than float32 PyTorch
# meets at the bench shape's sizes. (problem, tolerance, why) -- the why goes into the notes.
BENCH_TOLERANCE = {
    "level2/14_Gemm_Divide_Sum_Scaling": (
        1e-2, "tolerance 1e-2, not the 1e-4 the CPU test shapes admitted: at the bench shape "
              "(each output sums a row of an 8192 x 8192 GEMM) float32 PyTorch eager left 20 of "
              "1024 elements outside 1e-4 of the float64 oracle and torch.compile one outside "
              "1e-3 (relative L2 errors 2.5e-6 to 3.2e-6; H200, 2026-11-27), so the judge dropped "
              "both baselines and would fail an honest float32 kernel"),
}
# Input regimes a GPU catalog run refused at the bench shape though the CPU's small test shapes
# admitted them (an honest example solution failed there: H200, 2026-11-28, session 13). "large"
# multiplies every input by 100, so the products of a matmul or a convolution grow 10^4-fold while
# atol stays put, and at the bench shape's long reductions a few outputs near zero land outside it
# (level2/63, 31, 40, 54 and level1/58, 62, 65 each had 2 to 2,904 such elements, relative L2
# errors 4e-7 to 1.6e-6): "large" is refused for every module that does one (GEMM_OR_CONV). The
# table holds the other refusals the GPU showed. (problem -> {regime: why}); the why goes into
# the notes.
GEMM_OR_CONV = re.compile(r"nn\.(Linear|Bilinear|Conv\w*)\b|torch\.(matmul|bmm|mm|addmm|baddbmm|einsum)\b"
                          r"|F\.(linear|conv\w*)\b|\w\s*@\s*\w|scaled_dot_product_attention")
BENCH_REGIME_REFUSALS = {
    "level2/73_Conv2d_BatchNorm_Scaling": {
        "offset": "refused at the bench shape: under 'offset' the example solution left 4 elements "
                  "outside the tolerance (relative L2 5.3e-6; H200, 2026-11-28)"},
}
# Test-shape batch sizes for a problem whose statistics need more values than BATCH_VALUES give
# (training-mode BatchNorm after a global 1 x 1 pool normalises over the batch alone), one per
# test shape. (problem, batch sizes, why) -- the why goes into the notes.
TEST_BATCHES = {
    "level3/24_EfficientNetB2": (
        [8, 10, 12], "test shapes at batch 8, 10 and 12, not 1-3: its BatchNorms after a "
                     "global pool normalise over the batch alone (batch 1 does not run in "
                     "training mode; at 3 float32 PyTorch misses float64 by 5-8 x the "
                     "tolerance, at 4 by up to 1.5 x); from 8 on its worst element is within "
                     "0.13-0.22 x (three draws each, a CPU, 2026-11-27)"),
}
# fit_flops gives up after this many products of sizes (then: the bench count as a constant).
FIT_FLOPS_TRIES = 1_000_000
# Level 3's f32 errors can be heavy-tailed across draws (level3/48 Mamba2: exp of cumulative
# sums; it passed at one seed with the 2x margin and missed at the checker's): the tolerance
# must also hold on these draws (not timed: the CPU budget is the first draw's).
EXTRA_SEEDS = {3: [5678, 9012]}
# Problems whose exp/normalisation makes a large-magnitude stress shape meaningful.
STRESS = re.compile(r"(softmax|logsumexp|log_softmax|_norm|norm\(|Norm\d?d?\(|cross_entropy|"
                    r"kl_div|mse|hinge|exp\(|smooth_l1|triplet|cosine)", re.IGNORECASE)

EINOPS_SHIM = '''
# kjudge importer: einops is not a dependency; this rearrange covers exactly the patterns
# this file uses (added by deploy/kernelbench/import_kernelbench.py, see the README).
def rearrange(x, pattern, **axes):
    if pattern == "b (c l) ... -> b c l ...":
        l = axes["l"]
        return x.reshape(x.shape[0], x.shape[1] // l, l, *x.shape[2:])
    if pattern == "b c l h -> b h c l":
        return x.permute(0, 3, 1, 2)
    if pattern == "b c l h p -> b (c l) h p":
        return x.reshape(x.shape[0], x.shape[1] * x.shape[2], *x.shape[3:])
    raise NotImplementedError("kjudge rearrange shim: pattern " + repr(pattern))
'''


def fix_source(source: str, key: str = "") -> Tuple[str, List[str]]:
    """The minimal changes that let a file run and be judged here: the hand patches of `key`
    ("level<L>/<stem>", hand_patches.py), then the einops shim; returns (source, notes)."""
    source, notes = apply_hand_patches(key, source)
    if re.search(r"^from einops import rearrange\s*$", source, re.M):
        source = re.sub(r"^from einops import rearrange\s*$", EINOPS_SHIM.strip("\n"), source,
                        count=1, flags=re.M)
        notes.append("`from einops import rearrange` replaced by a small rearrange written for "
                     "kjudge covering this file's three patterns (einops is not installed)")
    return source, notes


# ----------------------------------------------------------------------------- FLOP counting

class FlopCounter(TorchDispatchMode):
    """Counts FLOPs and the largest per-op live footprint of a forward pass."""

    MATMUL = {"mm", "addmm", "bmm", "baddbmm"}
    FREE = {"view", "_unsafe_view", "reshape", "permute", "expand", "t", "transpose", "detach",
            "alias", "as_strided", "slice", "select", "squeeze", "unsqueeze", "unbind", "split",
            "split_with_sizes", "chunk", "narrow", "clone", "copy_", "_to_copy", "empty",
            "empty_like", "zeros", "zeros_like", "ones", "ones_like", "full", "full_like",
            "new_empty", "new_zeros", "new_ones", "new_full", "empty_strided", "contiguous",
            "lift_fresh", "_reshape_alias", "unfold", "fill_", "zero_", "arange", "lift",
            "expand_as", "view_as", "flatten", "index", "cat", "stack", "rand", "randn",
            "rand_like", "randn_like", "bernoulli_", "uniform_", "normal_", "diagonal",
            "set_", "resize_", "_local_scalar_dense", "item", "constant_pad_nd", "repeat",
            "tril", "triu", "masked_fill", "where", "gather", "index_select", "scatter",
            "_index_put_impl_", "index_put_", "roll", "flip", "pad"}

    def __init__(self):
        super().__init__()
        self.flops = 0
        self.peak_elems = 0
        self.ops = 0
        self.gemm = GemmBound()  # the GEMM flops [cost] min_flops may count (gemm_bound.py)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        name = func.overloadpacket.__name__
        tensors_in = [a for a in _flat(args) + _flat(list(kwargs.values()))
                      if isinstance(a, torch.Tensor)]
        tensors_out = [t for t in _flat([out]) if isinstance(t, torch.Tensor)]
        live = sum(t.numel() for t in tensors_in) + sum(t.numel() for t in tensors_out)
        self.peak_elems = max(self.peak_elems, live)
        self.ops += 1
        flops = self._count(name, args, tensors_out)
        self.flops += flops
        self.gemm.observe(name, tensors_in, tensors_out, flops)
        return out

    def _count(self, name: str, args, outs) -> int:
        if name in self.MATMUL:
            a, b = (args[1], args[2]) if name in ("addmm", "baddbmm") else (args[0], args[1])
            k = a.shape[-1]
            return 2 * k * outs[0].numel() if outs else 0
        if name in ("convolution", "_convolution", "convolution_overrideable",
                    "mkldnn_convolution", "cudnn_convolution"):
            x, w = args[0], args[1]
            transposed = bool(args[6]) if len(args) > 6 else False
            groups = int(args[8]) if len(args) > 8 else 1
            ksize = math.prod(w.shape[2:])
            if transposed:  # weight [Cin, Cout/g, k...]: every input element feeds Cout/g * k
                return 2 * x.numel() * w.shape[1] * ksize
            return 2 * outs[0].numel() * (w.shape[1]) * ksize if outs else 0
        if name.rstrip("_") in self.FREE or name in self.FREE:
            return 0
        return max((t.numel() for t in outs), default=0)


def _flat(items) -> List[Any]:
    flat: List[Any] = []
    for item in items:
        if isinstance(item, (list, tuple)):
            flat.extend(_flat(item))
        else:
            flat.append(item)
    return flat


# ----------------------------------------------------------------------------- input tracing

class RandomTracer:
    """Patches torch's random factories while get_inputs() runs: records what made each tensor,
    and (meta=True) makes them on the meta device so bench shapes cost no memory."""

    NAMES = ("rand", "randn", "randint", "rand_like", "randn_like", "randint_like")

    def __init__(self, meta: bool):
        self.meta = meta
        self.made: Dict[int, Tuple[str, Tuple[Any, ...]]] = {}
        self._saved: Dict[str, Any] = {}
        self._keep: List[Any] = []

    def __enter__(self):
        for name in self.NAMES:
            original = getattr(torch, name)
            self._saved[name] = original
            setattr(torch, name, self._wrap(name, original))
        return self

    def __exit__(self, *exc):
        for name, original in self._saved.items():
            setattr(torch, name, original)

    def _wrap(self, name, original):
        def traced(*args, **kwargs):
            if self.meta and not name.endswith("_like"):
                kwargs["device"] = "meta"
            result = original(*args, **kwargs)
            ints = tuple(a for a in args if isinstance(a, int))
            self.made[id(result)] = (name, ints)
            self._keep.append(result)  # keeps ids unique while tracing
            return result
        return traced


@dataclass
class TensorInfo:
    name: str
    dtype: str
    dims: List[int]
    role: str
    init: Optional[Dict[str, Any]] = None
    note: str = ""
    key: str = ""  # state_dict key (parameters and buffers)


def infer_input_init(t: Any, made: Optional[Tuple[str, Tuple[Any, ...]]]) -> Tuple[str, Dict[str, Any], str]:
    """(spec dtype, init, note) of one get_inputs() tensor, from how it was made / its values."""
    if t.dtype == torch.bool:
        return "u8", {"dist": "uniform", "low": -0.49, "high": 1.49, "scalable": False}, \
            "a boolean mask in KernelBench; here u8 (0 or 1, each with probability 1/2)"
    if not t.is_floating_point():
        dtype = DTYPES[t.dtype]
        if made and made[0].startswith("randint"):
            ints = made[1]
            low, high = (0, ints[0]) if len(ints) == 1 else (ints[0], ints[1])
        else:
            low, high = int(t.min()), int(t.max()) + 1
        return dtype, {"dist": "uniform", "low": low - 0.49, "high": high - 0.51,
                       "scalable": False}, f"integers in [{low}, {high})"
    dtype = DTYPES[t.dtype]
    if made and made[0] in ("rand", "rand_like"):
        return dtype, {"dist": "uniform", "low": 0.0, "high": 1.0}, "torch.rand: uniform [0, 1)"
    if made and made[0] in ("randn", "randn_like"):
        return dtype, {"dist": "normal", "mean": 0.0, "std": 1.0}, "torch.randn: normal(0, 1)"
    values = t.detach().double().flatten()
    lo, hi = float(values.min()), float(values.max())
    distinct = torch.unique(values)
    if hi - lo < 1e-12:  # one value in every draw: the spec needs low < high
        w = max(0.1 * abs(lo), 0.1)
        return dtype, {"dist": "uniform", "low": lo - w, "high": lo + w}, \
            f"KernelBench passes the constant {lo:g}; here uniform within 10% of it"
    if distinct.numel() <= 2:
        return dtype, {"dist": "uniform", "low": lo, "high": hi}, \
            (f"KernelBench draws only the values {sorted(float(v) for v in distinct)}; here "
             f"uniform [{lo:g}, {hi:g}) (no two-point distribution in the spec)")
    if lo >= 0.0 and hi <= 1.0:
        return dtype, {"dist": "uniform", "low": 0.0, "high": 1.0}, "values in [0, 1): uniform"
    mean, std = float(values.mean()), float(values.std()) if values.numel() > 1 else 1.0
    return dtype, {"dist": "normal", "mean": round(mean, 3), "std": round(max(std, 1e-3), 3)}, \
        "derived values: normal with their mean and std"


def detect_transform(draws: Sequence[Any]) -> Optional[str]:
    """The spec init transform that get_inputs() applied to its random values, read from what
    it returned (several draws, so a coincidence cannot decide): "softmax" (positive rows
    summing to 1 along the last dim), "tril" / "triu" (zeros above / below the diagonal of the
    last two dims, something nonzero on the other side), "symmetric" (square, equal to its
    transpose, not constant), "sign" (only -1 and +1, both present: level1/100's targets);
    None for anything else."""
    t = draws[0]
    if not t.is_floating_point():
        return None
    values = [d.detach().double() for d in draws]

    def every(test) -> bool:
        return all(bool(test(v)) for v in values)

    signs = torch.cat([v.flatten() for v in values])
    if ((signs == 1) | (signs == -1)).all() and (signs == 1).any() and (signs == -1).any():
        return "sign"
    if t.dim() < 1 or t.shape[-1] < 2:
        return None

    if every(lambda v: (v > 0).all() and ((v.sum(-1) - 1).abs() < 1e-4).all()):
        return "softmax"
    if t.dim() < 2 or t.shape[-2] < 2:
        return None
    if every(lambda v: (v.triu(1) == 0).all() and (v.tril(-1) != 0).any()):
        return "tril"
    if every(lambda v: (v.tril(-1) == 0).all() and (v.triu(1) != 0).any()):
        return "triu"
    if t.shape[-1] == t.shape[-2] and \
            every(lambda v: torch.equal(v, v.transpose(-1, -2)) and v.min() < v.max()):
        return "symmetric"
    return None


def transformed_init(draws: Sequence[Any], transform: str) -> Tuple[str, Dict[str, Any], str]:
    """(spec dtype, init, note) of an input get_inputs() made with `transform` (detected): the
    distribution of the values before it, then the transform. softmax: the values before it are
    lost up to a per-row shift; KernelBench's are torch.rand (times a scale in [0, 1) in
    level1/98), whose centred logits span less than 1, read as uniform [0, 1). A softmax'd input
    is never scaled by a stress shape (scalable = false): scaled logits underflow probabilities
    to exact zeros, a different problem (log(0) = -inf), not a larger-magnitude one."""
    if transform == "softmax":
        logits = [d.detach().double().log() for d in draws]
        centred = torch.cat([(z - z.mean(-1, keepdim=True)).flatten() for z in logits])
        span = max(float((z.max(-1).values - z.min(-1).values).max()) for z in logits)
        if span <= 1.0 + 1e-6:
            base = {"dist": "uniform", "low": 0.0, "high": 1.0}
            what = "values in [0, 1) (torch.rand)"
        else:
            base = {"dist": "normal", "mean": 0.0, "std": round(float(centred.std()), 1) or 0.1}
            what = "normal logits"
        init = dict(base, scalable=False, transform="softmax")
        return DTYPES[draws[0].dtype], init, \
            f"softmax (last dim) of {what}; never scaled (probabilities stay > 0)"
    if transform == "sign":
        init = {"dist": "uniform", "low": -1.0, "high": 1.0, "scalable": False,
                "transform": "sign"}
        return DTYPES[draws[0].dtype], init, "-1 or +1, each with probability 1/2"
    kept = []
    for d in draws:
        v = d.detach()
        if transform == "tril":
            v = v[torch.ones_like(v, dtype=torch.bool).tril().expand_as(v)]
        elif transform == "triu":
            v = v[torch.ones_like(v, dtype=torch.bool).triu().expand_as(v)]
        kept.append(v.flatten())
    dtype, init, note = infer_input_init(torch.cat(kept), None)
    init = dict(init, transform=transform)
    what = {"tril": "lower triangular (torch.tril)", "triu": "upper triangular (torch.triu)",
            "symmetric": "symmetric ((A + A^T) / 2)"}[transform]
    return dtype, init, f"{what} matrices; before that, {note}"


def infer_state_init(key: str, t: Any) -> Tuple[str, Dict[str, Any]]:
    """A parameter's or buffer's init: its own construction scale (never scaled by stress)."""
    if not t.is_floating_point():
        v = int(t.flatten()[0]) if t.numel() else 0
        return DTYPES[t.dtype], {"dist": "uniform", "low": v - 0.49, "high": v + 0.49,
                                 "scalable": False}
    values = t.detach().double().flatten()
    lo, hi = float(values.min()), float(values.max())
    if hi - lo < 1e-12:  # constant (BatchNorm weight 1 / bias 0, running stats)
        c = lo
        width = max(0.1 * abs(c), 0.1)
        low = c - width
        if "running_var" in key or c > 0:
            low = max(low, 0.5 * c) if c > 0 else low
        return DTYPES[t.dtype], {"dist": "uniform", "low": round(low, 6),
                                 "high": round(c + width, 6), "scalable": False}
    if lo < 0.0 < hi:
        b = max(-lo, hi)
        if abs(float(values.mean())) < 0.25 * b and _looks_normal(values, b):
            return DTYPES[t.dtype], {"dist": "normal", "mean": 0.0,
                                     "std": float(f"{float(values.std()):.4g}"),
                                     "scalable": False}
        return DTYPES[t.dtype], {"dist": "uniform", "low": -float(f"{b:.4g}"),
                                 "high": float(f"{b:.4g}"), "scalable": False}
    return DTYPES[t.dtype], {"dist": "uniform", "low": float(f"{lo:.4g}"),
                             "high": float(f"{hi:.4g}"), "scalable": False}


def _looks_normal(values, bound: float) -> bool:
    """randn-made parameters have |max| of several std; uniform ones about sqrt(3) std."""
    if values.numel() < 16:
        return False
    return bound / float(values.std()) > 2.6


# ----------------------------------------------------------------------------- one shape

@dataclass
class ShapeRun:
    overrides: Dict[str, int]
    inputs: List[TensorInfo]
    state: List[TensorInfo]
    outputs: List[TensorInfo]
    forward_names: List[str]
    flops: int
    peak_elems: int
    seconds: float = 0.0
    scale: float = 1.0
    ops: int = 0  # ATen ops dispatched by the meta forward (cpu_seconds_estimate)
    gemm_flops: Optional[int] = None  # GEMM flops no correct algorithm avoids (gemm_bound.py)
    state_inits: Dict[str, Any] = field(default_factory=dict)
    random_modules: List[str] = field(default_factory=list)  # bench run only
    structural: List[str] = field(default_factory=list)  # buffers kept by the module


class SkipProblem(Exception):
    """The problem cannot be imported; the message says why."""


def as_tensor_input(item: Any) -> Any:
    """get_inputs() items: tensors as they are; a Python float or int becomes a 0-d tensor (the
    spec passes tensors only; `A * s` computes the same with a 0-d tensor s)."""
    if isinstance(item, torch.Tensor):
        return item
    if isinstance(item, bool) or not isinstance(item, (int, float)):
        raise SkipProblem(f"get_inputs() returns a {type(item).__name__}, not a tensor or number")
    return torch.tensor(item, dtype=torch.float32 if isinstance(item, float) else torch.int64)


def forward_arg_names(model: Any, count: int) -> List[str]:
    import inspect
    params = [p for p in inspect.signature(model.forward).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    names = [p.name for p in params][:count]
    if len(names) < count:
        raise SkipProblem(f"forward takes {len(names)} named arguments but get_inputs returns "
                          f"{count} (varargs forward)")
    return names


def analyse_shape(source: str, filename: str, overrides: Dict[str, int],
                  want_state_init: bool = False) -> ShapeRun:
    """Builds the module at `overrides`, runs it on the meta device, returns shapes and FLOPs."""
    try:
        mp = ModuleProblem(source, filename, overrides)
    except ModuleProblemError as exc:
        raise SkipProblem(str(exc)) from exc
    random_modules = random_module_names(mp.model) if want_state_init else []
    with RandomTracer(meta=True) as tracer:
        try:
            sample = mp.sample_inputs()
        except Exception as exc:
            raise SkipProblem(f"get_inputs() failed: {type(exc).__name__}: {exc}") from exc
    sample = [as_tensor_input(item) for item in sample]
    names = forward_arg_names(mp.model, len(sample))
    inputs = []
    for name, t in zip(names, sample):
        if t.dtype not in DTYPES and t.dtype != torch.bool:
            raise SkipProblem(f"input {name} has dtype {t.dtype}, which the spec has no name for")
        dtype = "u8" if t.dtype == torch.bool else DTYPES[t.dtype]
        inputs.append(TensorInfo(name, dtype, list(t.shape), "in"))
    state = []
    structural = structural_buffers(source, filename, overrides, mp)
    for key, t in mp.model.state_dict().items():
        if key in structural:  # the module's own constant: not an input (see the function)
            continue
        if t.dtype not in DTYPES:
            raise SkipProblem(f"state {key} has dtype {t.dtype}")
        state.append(TensorInfo(key.replace(".", "_"), DTYPES[t.dtype], list(t.shape), "in",
                                key=key))
    state_inits = {}
    if want_state_init:  # before the move to meta: the module's own construction values
        for key, t in mp.model.state_dict().items():
            if key not in structural:
                state_inits[key.replace(".", "_")] = infer_state_init(key, t.flatten()[:1 << 20])
    meta_model = mp.model.to("meta")
    args = [t if t.device.type == "meta" else t.to("meta") for t in sample]
    counter = FlopCounter()
    counter.gemm.mark_inputs(args + list(meta_model.parameters()) + list(meta_model.buffers()))
    try:
        with torch.no_grad(), counter:
            result = meta_model(*args)
    except Exception as exc:
        raise SkipProblem(f"forward on the meta device failed: {type(exc).__name__}: "
                          f"{str(exc)[:200]}") from exc
    outs = result if isinstance(result, (tuple, list)) else [result]
    if not all(isinstance(o, torch.Tensor) for o in outs):
        raise SkipProblem("forward returns something other than a tensor or tuple of tensors")
    onames = ["out"] if len(outs) == 1 else [f"out{i}" for i in range(len(outs))]
    outputs = []
    for name, o in zip(onames, outs):
        if o.dtype not in DTYPES:
            raise SkipProblem(f"output {name} has dtype {o.dtype}")
        outputs.append(TensorInfo(name, DTYPES[o.dtype], list(o.shape), "out"))
    run = ShapeRun(dict(overrides), inputs, state, outputs, names, counter.flops,
                   counter.peak_elems)
    run.ops = counter.ops
    run.gemm_flops = counter.gemm.bound(outs)
    run.state_inits = state_inits
    run.random_modules = random_modules
    run.structural = sorted(structural)
    return run


def structural_buffers(source: str, filename: str, overrides: Dict[str, int],
                       mp: Any) -> set:
    """state_dict keys of buffers the problem's own module code registered (register_buffer in
    a class of reference.py, not a torch.nn module's running statistics) whose values do not
    depend on the construction seed: constants such as a causal mask torch.tril(torch.ones(T,
    T)). They stay the module's own (not inputs, not in [module].parameters): a random draw
    would change what the problem computes, and a candidate kernel computes them itself."""
    state = mp.model.state_dict()
    candidates = []
    for module_name, sub in mp.model.named_modules():
        if type(sub).__module__.startswith("torch."):
            continue
        for name, _ in sub.named_buffers(recurse=False):
            key = f"{module_name}.{name}" if module_name else name
            if key in state:
                candidates.append(key)
    if not candidates:
        return set()
    other = ModuleProblem(source, filename, overrides, construct_seed=1).model.state_dict()
    return {k for k in candidates if torch.equal(state[k], other[k])}


def random_module_names(model: Any) -> List[str]:
    """Submodules that draw random numbers in training mode (KernelBench's mode): nn.Dropout
    with p > 0, RNN dropout between layers; as "name (Type, p = P)"."""
    found = []
    for name, sub in model.named_modules():
        p = getattr(sub, "p", None) if isinstance(sub, torch.nn.modules.dropout._DropoutNd) \
            else getattr(sub, "dropout", None) if isinstance(sub, torch.nn.RNNBase) else None
        if isinstance(p, (int, float)) and p > 0 and sub.training:
            found.append(f"{name or 'the model'} ({type(sub).__name__}, p = {p:g})")
    return found


def check_deterministic(source: str, filename: str, run: "ShapeRun",
                        infos: Dict[str, TensorInfo], random_modules: List[str]) -> None:
    """Skips a module with random submodules whose output depends on the random stream (two
    seeds, same inputs, different outputs): the oracle repeats itself (it seeds before every
    forward) but a CUDA kernel cannot reproduce PyTorch's random mask, so no submission could
    match it, and evaluating in eval mode would change the problem. level2/83 keeps its
    Dropout(0.2) harmlessly: it drops elements of a tensor that is all zeros."""
    gen = torch.Generator().manual_seed(99)
    mp = ModuleProblem(source, filename, run.overrides)
    inputs = [draw(infos[t.name], t.dims, 1.0, gen) for t in run.inputs]
    state = {s.key: draw(infos[s.name], s.dims, 1.0, gen) for s in run.state}
    outs = []
    for seed in (0, 1):
        torch.manual_seed(seed)
        outs.append(mp.run(inputs, state, torch.float64))
    if any(not torch.equal(a, b) for a, b in zip(*outs)):
        raise SkipProblem(
            f"{', '.join(random_modules)} drops a random subset in training mode (KernelBench's "
            "mode) and the output depends on it: a CUDA kernel cannot reproduce PyTorch's "
            "random mask, so no submission could match the expected output")

def draw(info: TensorInfo, shape: Sequence[int], scale: float, gen: Any) -> Any:
    """A tensor drawn as the judge would draw it from `info.init` (spec_tools.draw)."""
    return spec_tools.draw(info.dtype, info.init or {}, shape, scale, gen)


def check_numerics(source: str, filename: str, run: ShapeRun, names: Dict[str, TensorInfo],
                   tol: float, scale: float, seed: int = 1234) -> Tuple[bool, float, str]:
    """Runs the module at `run` in f64 and f32 on spec-drawn inputs; (ok, worst, error)."""
    gen = torch.Generator().manual_seed(seed)
    mp = ModuleProblem(source, filename, run.overrides)
    inputs = [draw(names[t.name], t.dims, scale, gen) for t in run.inputs]
    state = {s.key: draw(names[s.name], s.dims, scale, gen) for s in run.state}
    try:
        ref = mp.run(inputs, state, torch.float64)
        got = mp.run(inputs, state, torch.float32)
    except ModuleProblemError as exc:
        return False, math.inf, str(exc)
    worst = 0.0
    for o, r, info in zip(got, ref, run.outputs):
        if list(r.shape) != info.dims:
            return False, math.inf, f"{info.name}: shape {list(r.shape)} != meta {info.dims}"
        _, w = spec_tools.compare(o, r, tol, tol, tol)  # atol = rtol = rel_l2 = tol
        worst = max(worst, w)
    return worst * 2 <= 1.0, worst, ""  # a factor 2 of margin


# ----------------------------------------------------------------------------- one problem

@dataclass
class Imported:
    name: str
    level: int
    status: str  # "imported" or "skipped"
    reason: str = ""
    seconds: float = 0.0
    test_shapes: int = 0
    notes: List[str] = field(default_factory=list)
    example: bool = False  # solution.cu copied from our examples folder
    gpu_only: bool = False  # test shapes unchecked on the CPU (mark_gpu_only)
    regimes: List[str] = field(default_factory=list)  # input regimes admitted (with_regimes)


def module_int_globals(source: str, namespace: Dict[str, Any]) -> Tuple[List[str], set]:
    """Int globals in source order, and those other module-level assignments read (fixed:
    the oracle sets globals after the file ran, so a global computed from them would not follow)."""
    tree = ast.parse(source)
    order: List[str] = []
    read: set = set()
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for n in ast.walk(target):
                    if isinstance(n, ast.Name) and n.id not in order:
                        order.append(n.id)
            if node.value is not None:
                read |= {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
    ints = [n for n in order if type(namespace.get(n)) is int]  # noqa: E721 - bool excluded
    return ints, read


def candidate_shapes(ints: List[str], values: Dict[str, int], varied: List[str],
                     batches: List[int] = BATCH_VALUES) -> List[List[Dict[str, int]]]:
    """For each of three test shapes, a ladder of override sets to try in order; `batches`: the
    batch size of each (BATCH_VALUES unless TEST_BATCHES names the problem)."""
    ladders = []
    for s in range(3):
        base: Dict[str, int] = {}
        pos = 0
        for g in varied:
            if BATCH_NAME.match(g):
                base[g] = min(batches[s], values[g])
            else:
                base[g] = min(SHAPE_VALUES[s][pos % len(SHAPE_VALUES[s])], values[g])
                pos += 1
        ladder = [base]
        for m in (4, 8, 16):  # channel counts that must divide by groups / heads
            ladder.append({g: v if BATCH_NAME.match(g) else min(values[g], -(-v // m) * m)
                           for g, v in base.items()})
        for floor in (32, 64, 128, 256):  # models that need a minimum spatial size
            ladder.append({g: v if BATCH_NAME.match(g) else min(values[g], max(v, floor + v))
                           for g, v in base.items()})
        ladder.append({g: (v if BATCH_NAME.match(g) else values[g]) for g, v in base.items()})
        ladders.append(ladder)
    return ladders


def import_problem(path: Path, level: int, out_root: Path,
                   examples: Optional[Path] = None) -> Imported:
    """Imports one file into out_root/level<L>/<stem>/; with `examples`, our own example solution
    examples/level<L>/<stem>.cu (when it exists) becomes the problem's solution.cu."""
    stem = path.stem
    name = f"kernelbench/level{level}/{stem}"
    started = time.time()
    result = Imported(name, level, "skipped")
    try:
        raw = path.read_text()
        source, notes = fix_source(raw, f"level{level}/{stem}")
        result.notes = notes
        filename = f"{name}/reference.py"
        spec = build_spec(source, filename, level, stem, result)
        example = examples / f"level{level}" / f"{stem}.cu" if examples else None
        example_text = example.read_text() if example and example.is_file() else None
        toml = spec["toml"]
        if example_text is not None:  # a top-level key: before the first [table]
            toml = toml.replace("\n[[tensor]]", f"\n{EXAMPLE_LINE}\n\n[[tensor]]", 1)
        toml = with_admitted_regimes(toml, source, filename, result)
        directory = out_root / f"level{level}" / stem
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "reference.py").write_text(source)
        (directory / "problem.toml").write_text(toml)
        (directory / "starter.cu").write_text(spec["starter"])
        solution = directory / "solution.cu"
        if example_text is not None:
            solution.write_text(example_text)
            result.example = True
        elif solution.exists():  # an example removed since the last import
            solution.unlink()
        result.status = "imported"
    except (SkipProblem, HandPatchError) as exc:
        result.reason = str(exc)
    except ModuleProblemError as exc:
        result.reason = str(exc)
    except Exception as exc:  # an importer bug must not stop the other problems
        result.reason = f"importer error: {type(exc).__name__}: {exc}"
    result.seconds = time.time() - started
    return result


def with_admitted_regimes(toml: str, source: str, filename: str, result: Imported) -> str:
    """The spec with its `regimes` line: the input regimes worker/oracle/check_problems.py's
    admission rule (admit_regimes, problems/README.md "Input regimes") admits on this CPU. A
    GPU-only problem gets none here (its test shapes do not run on the CPU; check_problems.py
    --write-regimes on a GPU host decides them)."""
    import check_problems  # noqa: PLC0415 - worker/oracle is on sys.path (top of this file)
    if result.gpu_only:
        result.notes.append("input regimes not decided on the CPU (GPU-only check): none "
                            "listed; run check_problems.py --write-regimes on a GPU host")
        return toml
    import tomllib  # noqa: PLC0415
    verdicts = check_problems.admit_regimes(tomllib.loads(toml), source, filename)
    result.regimes = check_problems.admitted_list(verdicts)
    refused = [f"{r}: {v['reason']}" for r, v in verdicts.items() if not v["admitted"]]
    if refused:
        result.notes.append("input regimes refused by the float64 oracle: " + "; ".join(refused))
    gpu_refused = dict(BENCH_REGIME_REFUSALS.get(f"level{result.level}/{result.name.rsplit('/', 1)[-1]}", {}))
    if GEMM_OR_CONV.search(source):
        gpu_refused.setdefault("large", "refused for a matmul or convolution: its products grow "
                                        "10^4-fold under 'large' while atol stays put "
                                        "(BENCH_REGIME_REFUSALS' comment)")
    for regime, why in gpu_refused.items():
        if regime in result.regimes:
            result.regimes.remove(regime)
            result.notes.append(f"input regime '{regime}' {why}")
    return check_problems.with_regimes(toml, result.regimes)


def build_spec(source: str, filename: str, level: int, stem: str, result: Imported) -> Dict[str, str]:
    namespace = load_namespace(source, filename, {})
    ints, read = module_int_globals(source, namespace)
    values = {g: namespace[g] for g in ints}
    bench = analyse_shape(source, filename, {}, want_state_init=True)
    fixed = [g for g in ints if g in read or FIXED_NAME.search(g) or values[g] <= 4]
    varied = [g for g in ints if g not in fixed]

    # Inits: from a real (small) run of get_inputs and the bench-shape module's values.
    infos: Dict[str, TensorInfo] = {}
    for t in bench.state:  # sampled from the bench-shape module (first 2^20 values)
        dtype, init = bench.state_inits[t.name]
        infos[t.name] = TensorInfo(t.name, dtype, t.dims, "in", init)

    batches, why = TEST_BATCHES.get(f"level{level}/{stem}", (BATCH_VALUES, ""))
    ladders = candidate_shapes(ints, values, varied, batches)
    if why:
        result.notes.append(why)
    tests: List[ShapeRun] = []
    state = {"tol": TOL_LADDER[0] if level < 3 else TOL_LADDER[1], "input_inits": None,
             "reasons": []}
    too_big = False  # every later rung and ladder only has larger sizes
    for ladder in ladders:
        if too_big:
            break
        for rung, overrides in enumerate(ladder):
            if any(overrides == t.overrides for t in tests):
                break
            # A rung where float32 itself misses float64 (training-mode BatchNorm
            # over a few values per channel once a deep model has pooled a small image down to
            # 1 x 1: level3/10) is passed over for the next, larger one.
            run = try_test_shape(source, filename, level, bench, overrides, infos, state)
            if run is not None:
                tests.append(run)
                break
            if state["reasons"][-1].endswith("too slow for the CPU"):  # FLOPs/elements
                too_big = rung == 0
                break
    if not tests and any("too slow for the CPU" not in r and "CPU s (budget" not in r
                         for r in state["reasons"]):  # holding sizes only makes runs bigger
        tests = held_test_shapes(source, filename, level, bench, ladders, varied, values, infos,
                                 state)
    reasons: List[str] = state["reasons"]
    input_inits = state["input_inits"]
    tol = state["tol"]
    gpu_only = False
    if not tests:
        tests = gpu_only_test_shapes(source, filename, bench, ladders, state)
        gpu_only = bool(tests)
        input_inits = state["input_inits"]
    if not tests:
        other = [r for r in reasons if "too slow" not in r and "CPU s (budget" not in r]
        numeric = [r for r in other if "float32 disagrees with float64" in r]
        if numeric and len(numeric) == len(other):
            raise SkipProblem("float32 PyTorch itself disagrees with float64 beyond "
                              f"{TOL_LADDER[-1]:g} at every candidate test shape, so no honest "
                              "float32 kernel could pass (ill-conditioned): " + numeric[-1])
        raise SkipProblem("no test shape builds and runs on the CPU: " + "; ".join(reasons[-3:]))
    for t, (dtype, init, note) in zip(bench.inputs, input_inits or []):
        infos[t.name] = TensorInfo(t.name, dtype, t.dims, "in", init, note)

    # A stress shape for exp/normalisation problems: the first test shape, inputs x30.
    stress: Optional[ShapeRun] = None
    forward_src = _forward_source(source)
    if not gpu_only and STRESS.search(forward_src) and any(  # stress needs a CPU run
            i.init and i.init.get("scalable", True) and i.dtype.startswith("f")
            for i in (infos[t.name] for t in bench.inputs)):
        candidate = tests[-1] if len(tests) > 1 else tests[0]
        for scale in (30.0, 10.0):
            ok, _, error = check_numerics(source, filename, candidate, infos, tol, scale)
            if ok and not error:
                stress = ShapeRun(candidate.overrides, candidate.inputs, candidate.state,
                                  candidate.outputs, candidate.forward_names, candidate.flops,
                                  candidate.peak_elems, candidate.seconds, scale)
                break
        if stress is None:
            result.notes.append("no stress shape: float32 PyTorch itself leaves the tolerance "
                                "at inputs x10")
    probes = naming_probes(source, filename, level, ints, values, read, bench, tests, infos,
                           state)
    tol = state["tol"]
    raised = BENCH_TOLERANCE.get(f"level{level}/{stem}")
    if raised is not None and raised[0] > tol:
        tol = raised[0]
        result.notes.append(raised[1])
    result.test_shapes = len(tests) + (1 if stress else 0)
    rendered = render(source, level, stem, ints, values, bench, tests, stress, infos, tol, result,
                      probes)
    if gpu_only:
        mark_gpu_only(rendered, reasons, result)
    return rendered


def try_test_shape(source: str, filename: str, level: int, bench: ShapeRun,
                   overrides: Dict[str, int], infos: Dict[str, TensorInfo],
                   state: Dict[str, Any]) -> Optional[ShapeRun]:
    """The run at `overrides` when it qualifies as a test shape (same tensors as the bench shape,
    no empty dimension, cheap enough for the CPU, float32 within tolerance of float64), else
    None with the reason in state["reasons"]. state["tol"] is loosened along TOL_LADDER where
    float32 needs it; a shape that no tolerance admits is only passed over (a larger one may be
    better conditioned); the problem is skipped when no candidate qualifies."""
    reasons = state["reasons"]
    try:
        run = analyse_shape(source, filename, overrides)
    except SkipProblem as exc:
        reasons.append(f"{overrides}: {exc}")
        return None
    if not _same_structure(run, bench):
        reasons.append(f"{overrides}: tensors differ in rank/dtype from the bench shape")
        return None
    if any(d < 1 for t in run.inputs + run.state + run.outputs for d in t.dims):
        reasons.append(f"{overrides}: a dimension is 0")
        return None
    if run.flops > CPU_FLOPS[level] or run.peak_elems > CPU_ELEMS:
        reasons.append(f"{overrides}: {run.flops:.3g} FLOPs, {run.peak_elems:.3g} elements: "
                       "too slow for the CPU")
        return None
    inits = real_input_inits(source, filename, overrides)
    if state["input_inits"] is None:
        state["input_inits"] = inits
    elif [i[:2] for i in inits] != [i[:2] for i in state["input_inits"]]:
        reasons.append(f"{overrides}: get_inputs draws differently than at the first "
                       "test shape (e.g. an integer range that follows a size)")
        return None
    for t, (dtype, init, note) in zip(run.inputs, state["input_inits"]):
        infos[t.name] = TensorInfo(t.name, dtype, t.dims, "in", init, note)
    if bench.random_modules and not state.get("deterministic"):
        check_deterministic(source, filename, run, infos, bench.random_modules)
        state["deterministic"] = True
    run.seconds = cpu_seconds_estimate(run)
    if run.seconds > CPU_SECONDS[level]:  # before running it: the estimate needs no run
        reasons.append(f"{overrides}: {run.seconds:.2f} CPU s (budget "
                       f"{CPU_SECONDS[level]} CPU s; estimated from {run.flops:.3g} FLOPs and "
                       f"{run.ops} ops, not measured)")
        return None
    tol = state["tol"]
    ok, worst, error = _numerics_with_ladder(source, filename, run, infos, tol)
    if error:
        reasons.append(f"{overrides}: {error}")
        return None
    for seed in [1234] + EXTRA_SEEDS.get(level, []):
        if seed != 1234 and ok:
            ok, worst, error = _numerics_with_ladder(source, filename, run, infos, tol, seed)
        while not ok and not error and _loosen(tol) is not None:
            tol = _loosen(tol)
            ok, worst, error = _numerics_with_ladder(source, filename, run, infos, tol, seed)
    if error:
        reasons.append(f"{overrides}: {error}")
        return None
    if not ok:
        reasons.append(f"{overrides}: float32 disagrees with float64 beyond "
                       f"{TOL_LADDER[-1]:g} (worst {worst:.3g} x tolerance)")
        return None
    state["tol"] = tol
    return run


def cpu_seconds_estimate(run: ShapeRun) -> float:
    """CPU seconds a test shape is budgeted at: from its meta run's FLOPs and dispatched ops only
    (deterministic: the same on any machine under any load; see CPU_SECONDS)."""
    return run.flops / CPU_FLOPS_PER_SECOND + run.ops * CPU_SECONDS_PER_OP


def gpu_only_test_shapes(source: str, filename: str, bench: ShapeRun,
                         ladders: List[List[Dict[str, int]]],
                         state: Dict[str, Any]) -> List[ShapeRun]:
    """Fallback when no candidate qualified and some were only too big or too slow for the CPU
    (level3/1_MLP: 16384 x 16384 weights no global shrinks; VGG16 at batch 1; Swin at its only
    image size): per ladder, the first rung that failed for size alone (a ladder never tried,
    because an earlier one was already too big: its first rung), analysed on the meta device
    only, when its tensors keep the bench shape's structure. The float64-vs-float32 check these
    shapes did not get here is worker/oracle/check_problems.py's on a GPU host (mark_gpu_only
    says so in problem.toml). Returns [] when no candidate failed for size."""
    reasons = state["reasons"]
    size_failed = [r for r in reasons if SIZE_REASON.search(r)]
    if not size_failed:
        return []
    runs: List[ShapeRun] = []
    for ladder in ladders:
        tried = [o for o in ladder if any(r.startswith(f"{o}: ") for r in reasons)]
        pick = next((o for o in ladder if any(r.startswith(f"{o}: ") for r in size_failed)),
                    None if tried else ladder[0])
        if pick is None or any(pick == r.overrides for r in runs):
            continue
        try:
            run = analyse_shape(source, filename, pick)
        except SkipProblem:
            continue
        if _same_structure(run, bench) and all(
                d >= 1 for t in run.inputs + run.state + run.outputs for d in t.dims):
            runs.append(run)
    if runs and state["input_inits"] is None:
        state["input_inits"] = real_input_inits(source, filename, runs[0].overrides)
    return runs


SIZE_REASON = re.compile(r"(too slow for the CPU|CPU s \(budget)")
GPU_ONLY_MARK = "# gpu-only-check:"  # read by worker/oracle/check_problems.py


def mark_gpu_only(rendered: Dict[str, str], reasons: List[str], result: "Imported") -> None:
    """Flags a problem whose test shapes were never run on the CPU (gpu_only_test_shapes): a
    comment line after the header (the spec parser ignores it; check_problems.py reads it) and a
    note in the import report."""
    why = reasons[0] if reasons else "too big for the CPU"
    line = (f"{GPU_ONLY_MARK} no test shape runs on a 2-core CPU in float64 ({why}); the "
            "importer checked these test shapes on the meta device only (tensors, sizes): the "
            "tolerance below is the level's default, not yet checked against float32 PyTorch. "
            "Run worker/oracle/check_problems.py on a GPU host: it checks them there.")
    header, rest = rendered["toml"].split("\n", 1)
    rendered["toml"] = f"{header}\n{line}\n{rest}"
    result.gpu_only = True
    result.notes.append("GPU-only check: test shapes too big for the CPU; check_problems.py "
                        "compares float32 with float64 on a GPU host")


def held_test_shapes(source: str, filename: str, level: int, bench: ShapeRun,
                     ladders: List[List[Dict[str, int]]], varied: List[str],
                     values: Dict[str, int], infos: Dict[str, TensorInfo],
                     state: Dict[str, Any]) -> List[ShapeRun]:
    """Fallback when no ladder rung qualifies: sizes tied to another one through the module
    (level2/34: LayerNorm(out_channels) over the last axis, whose length is 2 * W) only build
    at their bench values, and every rung that keeps them there is too big for the CPU. Holds
    one, then two of the varied globals at their bench values on the small rung of each test
    shape, first combination (source order) that qualifies wins."""
    import itertools
    for k in (1, 2):
        for held in itertools.combinations(varied, k):
            tests: List[ShapeRun] = []
            for ladder in ladders:
                overrides = {**ladder[0], **{g: values[g] for g in held}}
                if any(overrides == t.overrides for t in tests):
                    continue
                run = try_test_shape(source, filename, level, bench, overrides, infos, state)
                if run is not None:
                    tests.append(run)
            if tests:
                return tests
    return []


def _values_at(run: ShapeRun, ints: List[str], values: Dict[str, int]) -> Dict[str, int]:
    return {g: run.overrides.get(g, values[g]) for g in ints}


def collision_groups(ints: List[str], values: Dict[str, int],
                     runs: List[ShapeRun]) -> List[List[str]]:
    """Int globals (source order) that have the same value at every run: a tensor dimension of
    that value could be named after the wrong one (level1/54: kernel_size = in_channels = 3)."""
    groups: Dict[Tuple[int, ...], List[str]] = {}
    for g in ints:
        groups.setdefault(tuple(_values_at(r, ints, values)[g] for r in runs), []).append(g)
    return [members for members in groups.values() if len(members) > 1]


def naming_probes(source: str, filename: str, level: int, ints: List[str],
                  values: Dict[str, int], read: set, bench: ShapeRun, tests: List[ShapeRun],
                  infos: Dict[str, TensorInfo], state: Dict[str, Any]) -> List[ShapeRun]:
    """Separates globals that are equal at every shape where a tensor dimension has that value
    too, so the dimension is named after the global it follows. In each such group all but one
    member (sizes before structural names; never a global other globals are computed from) get
    another value on top of the first test shape, one at a time, kept when the tensors keep
    their structure (a meta run). The kept size changes together become an extra test shape
    when they pass as one (appended to `tests`); structural globals (kernel sizes, strides:
    constants an example may hard-code) are never varied in a test shape. Returns the kept
    variants not in a test shape: meta-only probes, used for naming only."""
    runs = [bench] + tests
    dim_values = {tuple(getattr(r, kind)[k].dims[i] for r in runs)
                  for kind in ("inputs", "state", "outputs")
                  for k, t in enumerate(getattr(bench, kind)) for i in range(len(t.dims))}
    base = dict(tests[0].overrides)
    taken = set(_values_at(tests[0], ints, values).values())
    size_probes: Dict[str, Tuple[int, ShapeRun]] = {}
    probes: List[ShapeRun] = []
    for group in collision_groups(ints, values, runs):
        together = tuple(_values_at(r, ints, values)[group[0]] for r in runs)
        # Extent 1 at every shape is a constant (a depthwise weight's channel axis), not a
        # global; its frozen name stays the first global of value 1.
        if together not in dim_values or set(together) == {1}:
            continue
        order = sorted((g for g in group if g not in read),
                       key=lambda g: (bool(FIXED_NAME.search(g)), group.index(g)))
        for g in order[:len(group) - 1]:
            probe = _probe(source, filename, bench, base, g,
                           _values_at(tests[0], ints, values)[g], taken)
            if probe is None:
                continue
            taken.add(probe.overrides[g])
            if FIXED_NAME.search(g):
                probes.append(probe)
            else:
                size_probes[g] = (probe.overrides[g], probe)
    if size_probes:
        changes = {g: v for g, (v, _) in size_probes.items()}
        extra = try_test_shape(source, filename, level, bench, {**base, **changes}, infos,
                               state)
        if extra is not None:
            tests.append(extra)
        else:
            probes += [p for _, p in size_probes.values()]
    return probes


def _probe(source: str, filename: str, bench: ShapeRun, base: Dict[str, int], g: str, v: int,
           taken: set) -> Optional[ShapeRun]:
    """A meta run at `base` with global g at a new value near v, when its tensors keep the bench
    shape's structure and no dimension is 0; else None."""
    for candidate in (v + 1, v + 2, v - 1, 2 * v):
        if candidate < 1 or candidate in taken:
            continue
        try:
            probe = analyse_shape(source, filename, {**base, g: candidate})
        except SkipProblem:
            continue
        if _same_structure(probe, bench) and all(
                d >= 1 for t in probe.inputs + probe.state + probe.outputs for d in t.dims):
            return probe
    return None

def _numerics_with_ladder(source, filename, run, infos, tol, seed=1234):
    return check_numerics(source, filename, run, infos, tol, 1.0, seed)


def _loosen(tol: float) -> Optional[float]:
    i = TOL_LADDER.index(tol)
    return TOL_LADDER[i + 1] if i + 1 < len(TOL_LADDER) else None


def _same_structure(a: ShapeRun, b: ShapeRun) -> bool:
    sig = lambda r: [(t.name, t.dtype, len(t.dims)) for t in r.inputs + r.state + r.outputs]
    return sig(a) == sig(b)


def real_input_inits(source: str, filename: str, overrides: Dict[str, int]):
    namespace = load_namespace(source, filename, overrides)
    torch.manual_seed(0)
    with RandomTracer(meta=False) as tracer:
        sample = list(namespace["get_inputs"]())
        made = dict(tracer.made)
    # Values-derived inits read a few more draws: at a small test shape (batch_size 1) one
    # draw of level1/100's targets (+-1) may hold a single value.
    extra = []
    for seed in range(1, 8):
        torch.manual_seed(seed)
        extra.append(list(namespace["get_inputs"]()))
    inits = []
    for i, item in enumerate(sample):
        if isinstance(item, torch.Tensor):
            how = made.get(id(item))
            draws = [item] + [e[i] for e in extra]
            transform = detect_transform(draws) if how is None else None
            if transform is not None:
                inits.append(transformed_init(draws, transform))
                continue
            if how is None:
                item = torch.cat([d.flatten() for d in draws])
            inits.append(infer_input_init(item, how))
        else:  # a Python number: a 0-d tensor near its value (see as_tensor_input)
            v = float(item)
            w = max(0.1 * abs(v), 0.1)
            dtype = "f32" if isinstance(item, float) else "i64"
            init = ({"dist": "uniform", "low": v - w, "high": v + w, "scalable": False}
                    if dtype == "f32" else
                    {"dist": "uniform", "low": v - 0.49, "high": v + 0.49, "scalable": False})
            inits.append((dtype, init, f"KernelBench passes the Python number {item!r}; here a "
                                       "0-d tensor near it"))
    return inits


def _forward_source(source: str) -> str:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "Model":
            return ast.get_source_segment(source, node) or source
    return source


# ----------------------------------------------------------------------------- rendering

def name_dims(ints: List[str], runs: List[ShapeRun], kind: str,
              probes: Sequence[ShapeRun] = ()) -> Dict[str, List[str]]:
    """Per tensor, the size name of every dimension (frozen rule: first int global, in source
    order, equal at every shape; else <tensor>_d<i>). Where several globals qualify, the
    meta-only `probes` (naming_probes) narrow them to those the dimension still equals there;
    they never rename a dimension only one global qualifies for."""
    names: Dict[str, List[str]] = {}
    first = runs[0]
    for idx, t in enumerate(getattr(first, kind)):
        dims = []
        for i in range(len(t.dims)):
            follows = [g for g in ints
                       if all(getattr(r, kind)[idx].dims[i] == _global_value(r, g) for r in runs)]
            narrowed = [g for g in follows
                        if all(getattr(p, kind)[idx].dims[i] == _global_value(p, g)
                               for p in probes)]
            chosen = (narrowed or follows or [f"{t.name}_d{i}"])[0]
            dims.append(chosen)
        names[t.name] = dims
    return names

def _global_value(run: ShapeRun, g: str) -> int:
    return run.overrides.get(g, GLOBAL_DEFAULTS[g])


GLOBAL_DEFAULTS: Dict[str, int] = {}


def render(source, level, stem, ints, values, bench, tests, stress, infos, tol, result,
           probes=()):
    GLOBAL_DEFAULTS.clear()
    GLOBAL_DEFAULTS.update(values)
    runs = [bench] + tests
    dim_names: Dict[str, List[str]] = {}
    for kind in ("inputs", "state", "outputs"):  # probes: naming only (naming_probes)
        dim_names.update(name_dims(ints, runs, kind, probes))
    tensors = bench.inputs + bench.state + bench.outputs
    varied = [g for g in ints if any(g in t.overrides for t in tests)]
    used = {d for dims in dim_names.values() for d in dims}
    globals_ = [g for g in ints if g in used or g in varied]
    derived = [d for t in tensors for d in dim_names[t.name] if d not in ints]
    sizes = globals_ + [d for i, d in enumerate(derived) if d not in derived[:i]]

    def shape_values(run: ShapeRun) -> Dict[str, int]:
        vals = {g: _global_value(run, g) for g in globals_}
        for kind in ("inputs", "state", "outputs"):
            for t in getattr(run, kind):
                for d, v in zip(dim_names[t.name], t.dims):
                    if d not in ints:
                        vals[d] = v
        return vals

    def shape_line(run: ShapeRun, scale: float = 1.0) -> str:
        vals = shape_values(run)
        parts = [f"{k} = {vals[k]}" for k in sizes]
        if scale != 1.0:
            parts.append(f"input_scale = {scale:.1f}")
        return "  { " + ", ".join(parts) + " },"

    bench_vals = shape_values(bench)
    title = re.sub(r"^\d+_", "", stem).replace("_", " ").strip()
    numbers = [stem.split("_")[0]]
    in_tensors = bench.inputs + bench.state
    bytes_terms = []
    for t in tensors:
        dims = dim_names[t.name]
        bytes_terms.append(" * ".join([str(ESIZE[infos[t.name].dtype if t.role == "in" else t.dtype])] + dims))
    bytes_expr = " + ".join(bytes_terms)
    flops_expr, flops_note = fit_flops(runs, shape_values, sizes)
    f64_bytes = _f64_estimate(bench, infos)
    bench_precision = f64_bytes > F64_BENCH_LIMIT

    lines: List[str] = []
    w = lines.append
    w(f"# Generated by deploy/kernelbench/import_kernelbench.py from KernelBench level {level}, "
      f"{stem}.py (git-ignored; regenerate, do not edit).")
    w(f'name = "kernelbench/level{level}/{stem}"')
    w(f"level = {level}")
    w(f"title = {_toml_str(title)}")
    w("description = " + _toml_multiline(describe(source, level, stem, bench, dim_names, infos,
                                                   sizes, bench_vals, tests, result)))
    w("sizes = [" + ", ".join(f'"{s}"' for s in sizes) + "]")
    w("test_shapes = [")
    for run in tests:
        w(shape_line(run))
    if stress is not None:
        w(shape_line(stress, stress.scale) + "  # stress: large-magnitude inputs (exp / norms)")
    w("]")
    w("bench_shapes = [")
    w(shape_line(bench))
    w("]")
    for t in tensors:
        info = infos.get(t.name)
        w("")
        w("[[tensor]]")
        w(f'name = "{t.name}"')
        w(f'dtype = "{info.dtype if t.role == "in" else t.dtype}"')
        w("shape = [" + ", ".join(f'"{d}"' for d in dim_names[t.name]) + "]")
        w(f'role = "{t.role}"')
        if t.role == "in":
            w("init = " + _init_str(info.init) + (f"  # {info.note}" if info.note else ""))
    w("")
    w("[reference]")
    w('module = "reference.py"')
    w("")
    w("[module]")
    w("globals = [" + ", ".join(f'"{g}"' for g in globals_) + "]")
    w("forward = [" + ", ".join(f'"{t.name}"' for t in bench.inputs) + "]")
    w("outputs = [" + ", ".join(f'"{t.name}"' for t in bench.outputs) + "]")
    w('precision = "f64"')
    if bench_precision:
        w(f'bench_precision = "f32"  # f64 at the bench shape needs ~{f64_bytes / 1e9:.0f} GB '
          "(inputs, parameters, outputs, largest op): over the 40 GB budget")
    w("[module.parameters]")
    for key, t in zip(_state_keys(bench), bench.state):
        w(f'"{key}" = "{t.name}"')
    w("")
    w(f"# float32 PyTorch agrees with the float64 oracle within half of this bound at every test "
      f"shape (checked at import). Level {level} starts at "
      f"{TOL_LADDER[0] if level < 3 else TOL_LADDER[1]:g} (KernelBench-like for level 1; deep "
      "level-3 models accumulate more f32 rounding) and is loosened only where f32 itself "
      "needs it.")
    w("[tolerance]")
    w(f"atol = {tol:g}\nrtol = {tol:g}\nrel_l2 = {tol:g}")
    w("")
    w(f"# flops: {flops_note}. bytes: every input (parameters included) and output once.")
    w("[cost]")
    w(f'flops = "{flops_expr}"')
    w(f'bytes = "{bytes_expr}"')
    w("flops_lower_bound = false")
    lines.extend(min_flops_lines(runs, shape_values, sizes, infos))
    toml = "\n".join(lines) + "\n"
    return {"toml": toml, "starter": starter(level, stem, bench, dim_names, infos)}


def min_flops_lines(runs: List[ShapeRun], shape_values, sizes: List[str],
                    infos: Dict[str, "TensorInfo"]) -> List[str]:
    """`min_flops` (and its comment) for a GEMM-like problem: 7/8 of the GEMM flops gemm_bound.py
    recognised at every shape, fitted exactly over the sizes; [] when any shape has no bound or
    no exact fit, or an input is structured (init transform tril / triu: half the products are
    of zeros; sign: +-1 operands need additions only) (problems/README.md "[cost]";
    convolutions never get one)."""
    if not runs or any(r.gemm_flops is None for r in runs):
        return []
    if any((i.init or {}).get("transform") in gemm_bound.STRUCTURED_TRANSFORMS
           for i in infos.values()):
        return []
    expr = fit_monomial([r.gemm_flops for r in runs], [shape_values(r) for r in runs], sizes)
    if expr is None:
        return []
    return [f'min_flops = "{min_flops_expr(expr)}"  # 7/8 of its GEMMs\' {expr} (one level of '
            "Strassen's savings; deploy/kernelbench/gemm_bound.py, problems/README.md)"]


def _state_keys(run: ShapeRun) -> List[str]:
    return [t.key for t in run.state]


def _f64_estimate(bench: ShapeRun, infos) -> float:
    judge = sum(math.prod(t.dims) * ESIZE[infos[t.name].dtype] for t in bench.inputs + bench.state)
    judge += 2 * sum(math.prod(t.dims) * ESIZE[t.dtype] for t in bench.outputs)
    oracle = 8 * sum(math.prod(t.dims) for t in bench.inputs + bench.state)
    return judge + oracle + 8 * bench.peak_elems


def fit_flops(runs: List[ShapeRun], shape_values, sizes: List[str]) -> Tuple[str, str]:
    """The counted FLOPs as an expression over sizes: c * (a product of sizes) when one fits
    every shape exactly, else the bench count as a constant."""
    counts = [r.flops for r in runs]
    vals = [shape_values(r) for r in runs]
    if counts[0] == 0:
        return "1", "no computing op counted (a pure data-movement module); 1 as a placeholder"
    import itertools
    varying = [s for s in sizes if len({v[s] for v in vals}) > 1]
    # A bounded search: a deep model names hundreds of derived sizes (level3/45's UNet), and
    # C(n, 6) products of them ran for hours; every fit found so far takes a few thousand tries.
    tries = FIT_FLOPS_TRIES
    for k in range(0, min(len(varying), 6) + 1):
        for combo in itertools.combinations(varying, k):
            tries -= 1
            if tries < 0:
                return str(counts[0]), (
                    "counted at the bench shape by a TorchDispatchMode counter (2 x MACs of "
                    "matmuls and convolutions, 1 per output element of other ops); no product "
                    f"of sizes fits every shape within {FIT_FLOPS_TRIES} tries, so this is the "
                    "bench count (test shapes are not timed)")
            prods = [math.prod(v[s] for s in combo) for v in vals]
            c, d = counts[0] // prods[0], 0
            if not all(c * p == n for p, n in zip(prods, counts)):
                # c * product + d (e.g. BatchNorm's one num_batches_tracked increment)
                distinct = [(p, n) for p, n in zip(prods, counts) if p != prods[0]]
                if not distinct or (counts[0] - distinct[0][1]) % (prods[0] - distinct[0][0]):
                    continue
                c = (counts[0] - distinct[0][1]) // (prods[0] - distinct[0][0])
                d = counts[0] - c * prods[0]
                if c <= 0 or not all(c * p + d == n for p, n in zip(prods, counts)):
                    continue
            if True:
                expr = " * ".join([str(c)] + list(combo)) if c != 1 or not combo else \
                    " * ".join(combo)
                expr += f" + {d}" if d > 0 else (f" - {-d}" if d < 0 else "")
                return expr, ("counted by a TorchDispatchMode counter (2 x MACs of matmuls and "
                              "convolutions, 1 per output element of other ops) and fitted "
                              "exactly at every shape")
    return str(counts[0]), ("counted at the bench shape by a TorchDispatchMode counter (2 x MACs "
                            "of matmuls and convolutions, 1 per output element of other ops); "
                            "no product of sizes fits every shape, so this is the bench count "
                            "(test shapes are not timed)")


def _init_str(init: Dict[str, Any]) -> str:
    parts = []
    for k, v in init.items():
        if isinstance(v, bool):
            parts.append(f"{k} = {'true' if v else 'false'}")
        elif isinstance(v, str):
            parts.append(f'{k} = "{v}"')
        else:
            parts.append(f"{k} = {float(v)!r}")
    return "{ " + ", ".join(parts) + " }"


def _toml_str(s: str) -> str:
    return json.dumps(s)


def _toml_multiline(s: str) -> str:
    if "'''" not in s:
        return "'''\n" + s + "\n'''"
    return '"""\n' + s.replace("\\", "\\\\").replace('"""', '\\"\\"\\"') + '\n"""'


TRANSFORM_WORDS = {"softmax": "each row along the last dim a probability distribution "
                               "(softmax of random values: all > 0, summing to 1)",
                   "tril": "lower triangular in its last two dims (zeros above the diagonal)",
                   "triu": "upper triangular in its last two dims (zeros below the diagonal)",
                   "symmetric": "symmetric in its last two dims",
                   "sign": "every value -1 or +1"}


def describe(source, level, stem, bench, dim_names, infos, sizes, bench_vals, tests, result):
    """The prompt: KernelBench's whole reference file (as KernelBench's own prompt carries it),
    then every value it uses spelled out (the constructor's arguments, the other module-level
    values, each tensor's init range) and the submission format. Deterministic: only the
    source and the meta/CPU analysis feed it."""
    tensors = bench.inputs + bench.state + bench.outputs
    lines = [
        f"Write CUDA kernels that compute the forward pass of the PyTorch module below "
        f"(KernelBench level {level}, {stem}).",
        "",
        "The reference, reference.py (KernelBench's file; the judge builds "
        "`Model(*get_init_inputs())` once and times `forward(*get_inputs())`, which is what you "
        "implement). Its parameters and buffers are given to you as input tensors, initialised "
        "by the judge as listed below, so do not assume their constructor values; every other "
        "value the module uses is as written here:",
        "",
    ]
    lines += ["    " + line if line else "" for line in source.splitlines()]
    lines.append("")
    lines += prompt_values(source, f"kernelbench/level{level}/{stem}/reference.py", sizes)
    lines += ["", "Tensors (row-major, contiguous):"]
    for t in tensors:
        dtype = infos[t.name].dtype if t.role == "in" else t.dtype
        role = "input" if t in bench.inputs else ("parameter/buffer" if t in bench.state
                                                  else "output")
        transform = (infos[t.name].init or {}).get("transform") if t.role == "in" else None
        drawn = _init_words(infos[t.name]) if t.role == "in" else ""
        lines.append(f"  {t.name} : {role}, {dtype} ({CTYPES.get(dtype, dtype)}), shape "
                     f"[{', '.join(dim_names[t.name]) or 'scalar'}]" +
                     (f", {TRANSFORM_WORDS[transform]}" if transform else "") +
                     (f", drawn {drawn}" if drawn else ""))
    if bench.structural:
        lines.append("  Not given (constants the constructor builds, e.g. a causal mask; compute "
                     "them in your kernel): " + ", ".join(bench.structural))
    lines.append("")
    lines.append("Sizes at the benchmark shape: " +
                 ", ".join(f"{s} = {bench_vals[s]}" for s in sizes) + ".")
    lines.append("Tests use small awkward shapes too (sizes not multiples of 32, some 1), so "
                 "handle every size >= 1; index with 64-bit integers where products of sizes "
                 "may exceed 2^31 - 1.")
    if result.notes:
        lines.append("Import notes: " + "; ".join(result.notes) + ".")
    plan_names = ", ".join([t.name for t in tensors] + sizes)
    lines += [
        "",
        "Submit CUDA C++ device code only (compiled with NVRTC for the judging GPU, e.g. sm_90a; "
        "no host code runs) with a launch plan in a block comment starting with `kjudge-plan`, "
        "e.g.",
        "",
        "  /* kjudge-plan",
        "  " + _plan_line(bench, dim_names),
        "  */",
        "",
        f"The plan lists kernel launches over the names {plan_names}: grid and block sizes are "
        "integer expressions (+ - * / %, cdiv, min, max) or dim3(...); an optional third launch "
        "parameter gives dynamic shared memory in bytes. Scratch buffers may be declared, e.g. "
        "`scratch tmp : f32[64];`. A bare tensor name passes its device pointer; any other "
        "argument is a scalar written with the size of the kernel parameter (`long long` for "
        "values that may exceed 2^31 - 1, `int` otherwise). Do not write to input tensors.",
    ]
    return "\n".join(lines)


PROMPT_VALUE_CAP = 200  # characters of one value's text in the prompt (a tensor or long list)


def prompt_value_text(value: Any) -> str:
    """How the prompt writes a value the module uses (tests/importer/prompt_test.py writes it the
    same way): Python's repr for numbers, bools, strings, None and their tuples/lists; a tensor
    by dtype and shape; capped at PROMPT_VALUE_CAP characters."""
    if torch is not None and isinstance(value, torch.Tensor):
        text = f"tensor({str(value.dtype).replace('torch.', '')}, shape {list(value.shape)})"
    else:
        text = repr(value)
    return text if len(text) <= PROMPT_VALUE_CAP else text[:PROMPT_VALUE_CAP - 3] + "..."


def _plain_value(value: Any) -> bool:
    if isinstance(value, (bool, int, float, str, type(None))):
        return True
    if isinstance(value, (tuple, list)):
        return len(value) <= 64 and all(_plain_value(v) for v in value)
    return False


def _init_input_labels(source: str, count: int) -> List[str]:
    """get_init_inputs()'s return list as written (`[input_size, 2 * hidden]` -> the two
    expressions), else `arg0`, `arg1`, ..."""
    labels = [f"arg{i}" for i in range(count)]
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return labels
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "get_init_inputs":
            for ret in ast.walk(node):
                if isinstance(ret, ast.Return) and isinstance(ret.value, (ast.List, ast.Tuple)) \
                        and len(ret.value.elts) == count:
                    return [ast.unparse(e) for e in ret.value.elts]
    return labels


def module_value_globals(source: str, namespace: Dict[str, Any]) -> List[str]:
    """Module-level names assigned in the source (source order) whose value is a plain value
    (number, bool, string, None, short tuple/list of those): the globals a prompt must state."""
    names: List[str] = []
    for node in ast.parse(source).body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for n in ast.walk(target):
                    if isinstance(n, ast.Name) and n.id not in names and \
                            n.id in namespace and _plain_value(namespace[n.id]):
                        names.append(n.id)
    return names


def prompt_values(source: str, filename: str, sizes: Sequence[str]) -> List[str]:
    """Prompt lines that spell out every value the reference uses at the bench shape: the
    constructor call with each argument's value (from get_init_inputs(), named by Model's
    parameters) and every other module-level value that is not a size listed below."""
    namespace = load_namespace(source, filename, {})
    import inspect
    init_args = list(namespace["get_init_inputs"]())
    labels = _init_input_labels(source, len(init_args))
    try:
        params = [p.name for p in inspect.signature(namespace["Model"].__init__).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)][1:]
    except (TypeError, ValueError):
        params = []
    parts = []
    for i, (label, value) in enumerate(zip(labels, init_args)):
        name = params[i] if i < len(params) else f"arg{i}"
        written = "" if label == name else f" ({label})"
        parts.append(f"{name}={prompt_value_text(value)}{written}")
    lines = ["Constructor call at the bench shape (get_init_inputs()): Model(" +
             ", ".join(parts) + ")." if parts else
             "Constructor call: Model() (get_init_inputs() returns no arguments)."]
    others = [g for g in module_value_globals(source, namespace) if g not in sizes]
    if others:
        lines.append("Module-level values (besides the sizes below): " + ", ".join(
            f"{g} = {prompt_value_text(namespace[g])}" for g in others) + ".")
    return lines


def _init_words(info: "TensorInfo") -> str:
    """A tensor's init as words for the prompt: the importer's note where it wrote one (torch.rand:
    uniform [0, 1), integers in [0, 10)), else the spec's distribution and range."""
    init = info.init or {}
    if info.note:
        return info.note
    if init.get("dist") == "uniform":
        if info.dtype[0] in "iu":
            return (f"integers in [{math.ceil(init['low'])}, {math.floor(init['high'])}]")
        return f"uniform in [{init['low']:g}, {init['high']:g}]"
    if init.get("dist") == "normal":
        return f"normal(mean {init.get('mean', 0.0):g}, std {init.get('std', 1.0):g})"
    return _init_str(init) if init else ""


def _numel_expr(dims: List[str]) -> str:
    return " * ".join(dims) if dims else "1"


def _plan_line(bench: ShapeRun, dim_names) -> str:
    first = bench.outputs[0]
    n = _numel_expr(dim_names[first.name])
    args = [t.name for t in bench.inputs + bench.state + bench.outputs]
    args += [f"{_numel_expr(dim_names[o.name])}" for o in bench.outputs]
    return f"forward_kernel<<<min(cdiv({n}, 256), 65536), 256>>>({', '.join(args)});"


def starter(level, stem, bench, dim_names, infos) -> str:
    ins = bench.inputs + bench.state
    params = []
    for t in ins:
        params.append(f"const {CTYPES[infos[t.name].dtype]}* __restrict__ {t.name}")
    for t in bench.outputs:
        params.append(f"{CTYPES[t.dtype]}* __restrict__ {t.name}")
    for t in bench.outputs:
        params.append(f"long long n_{t.name}")
    includes = []
    dtypes = {infos[t.name].dtype for t in ins} | {t.dtype for t in bench.outputs}
    if "f16" in dtypes:
        includes.append("#include <cuda_fp16.h>")
    if "bf16" in dtypes:
        includes.append("#include <cuda_bf16.h>")
    unused = "\n".join(f"  (void){t.name};" for t in ins + bench.outputs)
    out0 = bench.outputs[0].name
    return "\n".join([
        f"// kernelbench/level{level}/{stem} starter (generated): one grid-stride kernel over "
        f"the elements of {out0}.",
        "// Replace the TODO with the module's forward; adjust the launch plan to your kernels.",
        "/* kjudge-plan",
        _plan_line(bench, dim_names),
        "*/",
        *includes,
        "",
        "extern \"C\" __global__ void forward_kernel(" + ",\n    ".join(params) + ") {",
        f"  const long long stride = (long long)gridDim.x * blockDim.x;",
        f"  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n_{out0}; "
        "i += stride) {",
        f"    // TODO: compute {out0}[i] (and the other outputs) from the inputs.",
        "  }",
        unused,
        "}",
        "",
    ])


# ----------------------------------------------------------------------------- main

def _init_dtypes() -> None:
    DTYPES.update(spec_tools.SPEC_DTYPES)  # the judge's dtype names (common/dtype.h)


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="import_kernelbench.py",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__.split("\n\n", 1)[1],
        epilog="examples:\n"
               "  /usr/bin/python3 deploy/kernelbench/import_kernelbench.py ~/KernelBench/KernelBench\n"
               "  ... import_kernelbench.py KB --levels 1 --only 19_ReLU --json > report.json\n"
               "KERNELBENCH_DIR is the folder that holds level1/ level2/ level3/ (in a KernelBench\n"
               "checkout: KernelBench/KernelBench). Needs /usr/bin/python3 with torch.")
    parser.add_argument("kernelbench_dir", metavar="KERNELBENCH_DIR", type=Path)
    parser.add_argument("out", metavar="OUT", type=Path, nargs="?",
                        default=REPO / "problems" / "kernelbench",
                        help="output root (default: problems/kernelbench of this repository)")
    parser.add_argument("--levels", default="1,2,3",
                        help="comma-separated levels to import (default 1,2,3)")
    parser.add_argument("--only", action="append", default=[],
                        help="import only files with this stem (repeatable), e.g. 19_ReLU")
    parser.add_argument("--examples", type=Path, default=REPO / "problems" / "kernelbench" /
                        "examples",
                        help="our example solutions, EXAMPLES/level<L>/<name>.cu, copied into "
                             "the problem as solution.cu with example = \"solution.cu\" "
                             "(default: problems/kernelbench/examples of this repository)")
    parser.add_argument("-j", "--jobs", type=int, default=max(1, (os.cpu_count() or 1) // 2),
                        help="problems imported at once, each in its own process with torch on 2 "
                             "threads (default: half the CPU cores, here %(default)s); the files "
                             "written are the same for every -j")
    parser.add_argument("--json", action="store_true",
                        help="print the report as JSON on stdout (progress goes to stderr)")
    return parser.parse_args(argv)


def main(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    if torch is None:
        print("import_kernelbench.py: torch is not importable by this interpreter; run it with "
              "/usr/bin/python3 (Debian's python3-torch)", file=sys.stderr)
        return 2
    _init_worker()
    try:
        levels = [int(x) for x in args.levels.split(",") if x]
    except ValueError:
        print(f"--levels: expected comma-separated integers, got {args.levels!r}", file=sys.stderr)
        return 2
    if args.jobs < 1:
        print(f"-j/--jobs: expected at least 1, got {args.jobs}", file=sys.stderr)
        return 2
    started = time.time()
    unreadable: List[str] = []
    work: List[Tuple[Path, int]] = []
    for level in levels:
        folder = args.kernelbench_dir / f"level{level}"
        try:
            files = sorted(folder.glob("*.py"), key=lambda p: (_num(p.stem), p.stem))
        except OSError as exc:
            files = []
            unreadable.append(f"{folder}: {exc}")
        if not folder.is_dir() or not files:
            unreadable.append(f"{folder}: no such folder or no *.py files in it (KERNELBENCH_DIR "
                              "must hold level1/ level2/ level3/)")
            continue
        work += [(path, level) for path in files if not args.only or path.stem in args.only]
    results: List[Imported] = []
    for r in _import_all(work, args):
        results.append(r)
        line = f"[{r.status:8}] {r.name} ({r.seconds:.1f} s)"
        if r.reason:
            line += f": {r.reason}"
        if r.gpu_only:
            line += ": GPU-only check (test shapes too big for the CPU)"
        print(line, file=sys.stderr if args.json else sys.stdout, flush=True)
    elapsed = time.time() - started
    summary = {
        "imported": sum(r.status == "imported" for r in results),
        "skipped": sum(r.status == "skipped" for r in results),
        "with_example": sum(r.example for r in results),
        "gpu_only": sum(r.gpu_only for r in results),
        "by_level": {str(level): {
            "imported": sum(r.status == "imported" for r in results if r.level == level),
            "skipped": sum(r.status == "skipped" for r in results if r.level == level)}
            for level in levels},
        "seconds": round(elapsed, 1),
        "unreadable": unreadable,
        "out": str(args.out),
    }
    if args.json:
        print(json.dumps({"summary": summary, "problems": [r.__dict__ for r in results]},
                         indent=1))
    else:
        print(f"\n{summary['imported']} imported, {summary['skipped']} skipped in "
              f"{elapsed:.0f} s into {args.out}")
        for r in results:
            if r.status == "skipped":
                print(f"  skipped {r.name}: {r.reason}")
        for u in unreadable:
            print(f"  could not read {u}")
    return 1 if unreadable else 0


def _init_worker() -> None:
    """Per-process set-up, the same in the main process and in every -j worker."""
    _init_dtypes()
    torch_compat.install()
    torch.set_num_threads(2)  # fixed: float32 reductions split the same way on every machine


def _import_one(item: Tuple[Path, int, Path, Optional[Path]]) -> Imported:
    path, level, out, examples = item
    return import_problem(path, level, out, examples)


def _import_all(work: List[Tuple[Path, int]], args: argparse.Namespace) -> Iterator[Imported]:
    """Imports each (file, level) and yields the results in `work`'s order, whatever order the
    processes finish in. Every problem is imported by one process from its file alone (fixed
    seeds, fixed thread count, CPU budgets on estimates, never on measured time), so -j N writes
    the same files as -j 1: only the report's timings differ."""
    items = [(path, level, args.out, args.examples) for path, level in work]
    if args.jobs == 1 or len(items) <= 1:
        yield from map(_import_one, items)
        return
    import multiprocessing
    # spawn, not fork: a forked child would inherit torch's thread pools mid-state.
    context = multiprocessing.get_context("spawn")
    with context.Pool(min(args.jobs, len(items)), initializer=_init_worker) as pool:
        yield from pool.imap(_import_one, items, chunksize=1)


def _num(stem: str) -> int:
    m = re.match(r"\d+", stem)
    return int(m.group()) if m else 1 << 30


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
