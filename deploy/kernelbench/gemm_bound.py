"""Which imported problems are GEMM-like, and the flops no correct algorithm can avoid (issue 26.3).

Used by import_kernelbench.py's FlopCounter during the meta-device forward: GemmBound sees every
dispatched ATen op (observe), the graph inputs (mark_inputs: forward arguments and the module's
state) and the outputs (bound), and answers the GEMM flops a `[cost] min_flops` may count, or None.

Contract (problems/README.md "[cost]" is the rule; this is the conservative recogniser):
  * bound(outputs) returns the 2 x MACs of the matmuls (mm, addmm, bmm, baddbmm: what Linear,
    matmul, einsum and bmm dispatch to) that every correct algorithm must compute in full, in
    exactly two patterns, else None:
      1. one matmul whose operands come from no other matmul and whose whole result reaches the
         outputs (GEMM, batched GEMM, GEMV, Linear, followed by elementwise epilogues, norms
         over its result, softmax...);
      2. attention: two matmuls, the second consuming a softmax of the first's whole result and
         an operand that comes from no matmul (softmax(Q K^T * s) V).
  * None (no declaration) whenever a rewrite could do less work: a reduction (sum, mean, max,
    var, norm, argmax, ...) of a matmul's result (level2/14: the sum of a GEMM is a GEMV of
    column sums), a slice of it smaller than the result, a chain of matmuls without a softmax
    between (reassociation: x W1 W2 = x (W1 W2)), structure ops anywhere (tril, triu, diag,
    masked_fill, where, gather, comparisons, ...: triangular or diagonal operands, causal or
    dropout masks, which skip whole blocks or elements), broadcast-expanded operands (repeated rows or batches), convolutions
    (Winograd and FFT do several times fewer multiplications: no bound is claimed), more than
    two matmuls; and (the caller's part) inputs whose init transform is in
    STRUCTURED_TRANSFORMS.
  * The caller declares min_flops = 7/8 of the bound (one level of Strassen's savings).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, FrozenSet, List, Optional, Sequence

MATMUL = {"mm", "addmm", "bmm", "baddbmm"}
SOFTMAX = {"_softmax", "softmax"}
# Ops whose result is smaller than their input along a reduced dimension, or selects part of it.
REDUCTION = {"sum", "mean", "amax", "amin", "max", "min", "var", "std", "var_mean", "std_mean",
             "logsumexp", "norm", "linalg_vector_norm", "argmax", "argmin", "prod", "median",
             "nanmedian", "mode", "kthvalue", "topk", "sort", "cumsum", "cumprod", "cummax",
             "cummin", "any", "all", "count_nonzero", "nansum", "aminmax", "max_pool2d",
             "avg_pool2d", "adaptive_avg_pool2d", "max_pool1d", "avg_pool1d",
             "adaptive_avg_pool1d", "max_pool3d", "avg_pool3d", "adaptive_avg_pool3d",
             "max_pool2d_with_indices", "max_pool3d_with_indices", "adaptive_max_pool2d",
             "adaptive_max_pool1d", "adaptive_max_pool3d"}
# Ops that give an operand structure an algorithm could exploit (zeros, copies, masks).
STRUCTURE = {"tril", "triu", "diag", "diag_embed", "diagonal", "masked_fill", "where", "eye",
             "gather", "scatter", "scatter_add", "index", "index_select", "index_put",
             "_index_put_impl", "roll", "flip", "repeat", "repeat_interleave", "tile", "zeros",
             "zeros_like", "ones", "ones_like", "full", "full_like", "fill", "zero",
             "convolution", "_convolution", "convolution_overrideable", "mkldnn_convolution",
             "cudnn_convolution", "embedding", "one_hot", "sparse_coo_tensor", "to_sparse",
             # data-dependent masks (level2/66's dropout as an input: GEMM * (u >= p) zeroes a
             # fifth of the result, which a kernel need not compute)
             "ge", "gt", "le", "lt", "eq", "ne", "logical_and", "logical_or", "logical_not",
             "logical_xor", "bitwise_and", "bitwise_or", "bitwise_not", "bitwise_xor",
             "bernoulli", "dropout", "native_dropout", "isnan", "isinf", "isfinite"}
# Input init transforms (problems/README.md) that make a GEMM cheaper than 2MNK: triangular
# operands (half the products are of zeros), +-1 operands (additions only). The importer
# declares no min_flops for a problem with such an input ("symmetric" stays dense).
STRUCTURED_TRANSFORMS = ("tril", "triu", "sign")
# Ops that only re-index (their result may be smaller than their input: a slice).
SLICING = {"slice", "select", "narrow", "split", "split_with_sizes", "chunk", "unbind",
           "as_strided", "unfold"}


@dataclass
class _Origin:
    matmuls: FrozenSet[int] = frozenset()        # matmuls this tensor depends on
    softmaxed: FrozenSet[int] = frozenset()      # of those, the ones it sees through a softmax
    expanded: bool = False                       # a broadcast copy somewhere upstream
    numel: int = 0


@dataclass
class _Matmul:
    flops: int
    out_numel: int
    operands: List[_Origin]


@dataclass
class GemmBound:
    origins: Dict[int, _Origin] = field(default_factory=dict)
    matmuls: List[_Matmul] = field(default_factory=list)
    refused: str = ""  # why no bound (the first reason seen), "" while none
    keep: List[Any] = field(default_factory=list)  # keeps tensor ids unique during the trace

    def mark_inputs(self, tensors: Sequence[Any]) -> None:
        """The graph's inputs: forward arguments and the module's state (no matmul upstream)."""
        for t in tensors:
            self.origins[id(t)] = _Origin(numel=t.numel())
            self.keep.append(t)

    def _origin(self, t: Any) -> _Origin:
        return self.origins.get(id(t), _Origin(numel=t.numel()))

    def observe(self, name: str, tensors_in: Sequence[Any], tensors_out: Sequence[Any],
                flops: int) -> None:
        """One dispatched op: its inputs and outputs (tensors only) and its counted flops."""
        base = name.rstrip("_")
        ins = [self._origin(t) for t in tensors_in]
        matmuls = frozenset().union(*[o.matmuls for o in ins]) if ins else frozenset()
        softmaxed = frozenset().union(*[o.softmaxed for o in ins]) if ins else frozenset()
        expanded = any(o.expanded for o in ins)
        out_numel = max((t.numel() for t in tensors_out), default=0)
        in_numel = max((o.numel for o in ins), default=0)
        if base in STRUCTURE and not self.refused:
            self.refused = f"structure op {name}"
        if base in ("expand", "broadcast_to") and out_numel > in_numel:
            expanded = True
        if matmuls and (base in REDUCTION or (base in SLICING and out_numel < in_numel)):
            if not self.refused:
                self.refused = f"{name} of a matmul's result"
        if base in MATMUL:
            if any(o.expanded for o in ins) and not self.refused:
                self.refused = "a broadcast-expanded matmul operand"
            operands = ins[1:3] if base in ("addmm", "baddbmm") else ins[:2]
            self.matmuls.append(_Matmul(flops, out_numel, operands))
            matmuls = matmuls | {len(self.matmuls) - 1}
        if base in SOFTMAX:
            softmaxed = softmaxed | matmuls
        for t in tensors_out:
            self.origins[id(t)] = _Origin(matmuls, softmaxed, expanded, t.numel())
            self.keep.append(t)

    def bound(self, outputs: Sequence[Any]) -> Optional[int]:
        """The GEMM flops every correct algorithm computes (see the module contract), or None."""
        if self.refused or not self.matmuls or len(self.matmuls) > 2:
            return None
        last = len(self.matmuls) - 1
        reaching = sum(t.numel() for t in outputs if last in self._origin(t).matmuls)
        if reaching < self.matmuls[last].out_numel:
            return None  # part of the last matmul's result never reaches an output
        first = self.matmuls[0]
        if any(o.matmuls for o in first.operands):
            return None
        if len(self.matmuls) == 1:
            return first.flops
        second = self.matmuls[1]
        via = [o for o in second.operands if o.matmuls]
        plain = [o for o in second.operands if not o.matmuls]
        if len(via) != 1 or len(plain) != 1 or via[0].matmuls != frozenset({0}) or \
                0 not in via[0].softmaxed or via[0].numel < first.out_numel:
            return None  # not softmax(A B) C over the whole first result
        return first.flops + second.flops


def fit_monomial(counts: Sequence[int], values: Sequence[Dict[str, int]],
                 sizes: Sequence[str], max_power: int = 3, tries: int = 200_000) -> Optional[str]:
    """c * (a product of sizes, each to a power <= max_power) equal to counts[i] at values[i]
    for every shape, as a spec expression (N * N * N for N^3), or None. GEMM flops are such a
    monomial (2 * M * N * K, 4 * B * H * S * S * D); the fewest factors win."""
    varying = [s for s in sizes if len({v[s] for v in values}) > 1]
    combos: List[Dict[str, int]] = [{}]
    for s in varying:  # every power assignment, in order of total degree below
        combos = [dict(c, **{s: e}) for c in combos for e in range(max_power + 1)]
        if len(combos) > tries:
            return None
    for combo in sorted(combos, key=lambda c: sum(c.values())):
        prods = [1] * len(values)
        for i, v in enumerate(values):
            for s, e in combo.items():
                prods[i] *= v[s] ** e
        if prods[0] == 0 or counts[0] % prods[0]:
            continue
        c = counts[0] // prods[0]
        if c > 0 and all(c * p == n for p, n in zip(prods, counts)):
            factors = [s for s in varying for _ in range(combo.get(s, 0))]
            return " * ".join([str(c)] + factors) if c != 1 or not factors else \
                " * ".join(factors)
    return None


def min_flops_expr(bound_expr: str) -> str:
    """min_flops for a fitted bound expression: 7/8 of it (one level of Strassen's savings)."""
    simple = all(part.strip().isidentifier() or part.strip().isdigit()
                 for part in bound_expr.split("*"))
    inner = bound_expr if simple else f"({bound_expr})"
    return f"7 * {inner} / 8"
