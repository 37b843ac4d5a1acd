"""What the judge does with a spec's tensors, in PyTorch: draw inputs from `init`, compare outputs.

Shared by deploy/kernelbench/import_kernelbench.py and worker/oracle/check_problems.py, so the
importer's numerical checks and the catalog checker test what the judge will test.

Contract:
  * draw(dtype, init, shape, scale, generator, device) follows worker/judge/device_utilities.h:
    values from `init` (normal: mean, std; uniform: low, high), both multiplied by `scale` for
    float dtypes unless init has scalable = false; integer dtypes round to nearest (ties to
    even) and never scale. init.transform ("softmax" along the last dim; "tril", "triu",
    "symmetric" = (A + A^T) / 2 over the last two dims; "sign" = +1 where >= 0, else -1)
    then applies to the scaled draw, in
    float64 before the cast to `dtype` (the judge: in the dtype, computed in double); its
    output is never rescaled. The random stream differs from the judge's (ChaCha); the
    distribution is the same.
  * draw(..., regime=R) applies an input regime (problems/README.md "Input regimes", the
    judge's worker/judge/device_utilities.h): only to float dtypes whose init is scalable, to
    the scaled draw v and before the transform, with sigma = the scaled std (normal) or
    (high - low) / sqrt(12) (uniform): "declared" v; "offset" v + 32 sigma; "large" 100 v;
    "ties" q * rint(v / q), q = sigma / 2; "zeros" 0 with probability 1/2 (independently per
    element), else v; "positive" |v|; "negative" -|v|. apply_regime(v, regime, sigma) is that
    map alone; REGIMES lists the six a problem.toml may name.
  * compare(out, ref, atol, rtol, rel_l2) is the judge's test: every element
    |out - ref| <= atol + rtol * |ref| (non-finite values fail) and ||out - ref|| / ||ref||
    <= rel_l2, or RMS(out - ref) <= atol when ref is all zero; a bound of 0 admits no error.
    It returns (ok, worst) with worst = the largest ratio of error to its bound. The twin of
    common/output_comparison.h: tests/vectors/tolerance.json pins both.
  * eval_size_expr(text, sizes) evaluates a spec expression (+ - * / % parentheses, cdiv, min,
    max) over a shape's sizes (and scalars, which may be floats): C semantics, as
    common/expression.h: integer / and % truncate toward zero, a float operand makes / a float
    division; % of floats, division by zero and unknown names are ValueError.
"""
from __future__ import annotations

import ast
import math
from typing import Any, Dict, Mapping, Sequence, Tuple

import torch

TORCH_DTYPES = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16,
                "bf16": torch.bfloat16, "i32": torch.int32, "i64": torch.int64,
                "u8": torch.uint8, "i8": torch.int8}
SPEC_DTYPES = {v: k for k, v in TORCH_DTYPES.items()}
FLOAT_DTYPES = ("f32", "f64", "f16", "bf16")
# The input regimes a problem.toml may list (problems/README.md "Input regimes"), in the order
# the judge and check_problems.py write them; "declared" is always implied and never listed.
REGIMES = ("offset", "large", "ties", "zeros", "positive", "negative")


def draw(dtype: str, init: Mapping[str, Any], shape: Sequence[int], scale: float,
         generator: Any, device: Any = "cpu", regime: str = "declared") -> torch.Tensor:
    """A tensor of `dtype` drawn from `init` as the judge draws it, in input regime `regime`
    (see the module contract)."""
    scalable = dtype in FLOAT_DTYPES and init.get("scalable", True)
    s = scale if scalable else 1.0
    base = torch.empty(list(shape), dtype=torch.float64, device=device)
    if init.get("dist") == "normal":
        base.normal_(float(init["mean"]) * s, float(init["std"]) * s, generator=generator)
        sigma = float(init["std"]) * s
    else:
        base.uniform_(float(init["low"]) * s, float(init["high"]) * s, generator=generator)
        sigma = (float(init["high"]) - float(init["low"])) * s / math.sqrt(12.0)
    if scalable:
        base = apply_regime(base, regime, sigma, generator)
    elif regime != "declared" and regime not in REGIMES:
        raise ValueError(f"unknown input regime {regime!r}; expected declared or one of "
                         f"{', '.join(REGIMES)}")
    if dtype in FLOAT_DTYPES:
        return apply_transform(base, init.get("transform")).to(TORCH_DTYPES[dtype])
    if init.get("transform"):
        raise ValueError(f"init transform {init['transform']!r} on a {dtype} tensor: transforms "
                         "are for float dtypes only")
    return torch.round(base).to(TORCH_DTYPES[dtype])


def apply_regime(v: torch.Tensor, regime: str, sigma: float,
                 generator: Any = None) -> torch.Tensor:
    """`v` (a float64 draw, input_scale applied) in input regime `regime`; sigma is the std of
    the init's distribution (see the module contract). "zeros" draws its mask from `generator`."""
    if regime == "declared":
        return v
    if regime == "offset":
        return v + 32.0 * sigma
    if regime == "large":
        return v * 100.0
    if regime == "ties":
        q = sigma / 2.0
        return torch.round(v / q) * q if q > 0 else v  # torch.round: half to even, as rint
    if regime == "zeros":
        zero_bit = torch.randint(0, 2, tuple(v.shape), generator=generator, device=v.device)
        return torch.where(zero_bit == 1, torch.zeros_like(v), v)
    if regime == "positive":
        return v.abs()
    if regime == "negative":
        return -v.abs()
    raise ValueError(f"unknown input regime {regime!r}; expected declared or one of "
                     f"{', '.join(REGIMES)}")


TRANSFORMS = ("softmax", "tril", "triu", "symmetric", "sign")


def apply_transform(x: torch.Tensor, transform: Any) -> torch.Tensor:
    """`x` with an init transform applied (None: unchanged); see the module contract."""
    if transform is None:
        return x
    if transform not in TRANSFORMS:
        raise ValueError(f"unknown init transform {transform!r}; expected one of {TRANSFORMS}")
    if transform == "sign":
        return torch.where(x >= 0, 1.0, -1.0).to(x.dtype)
    need = 1 if transform == "softmax" else 2
    if x.dim() < need:
        raise ValueError(f"init transform {transform!r} needs rank >= {need}, got shape "
                         f"{tuple(x.shape)}")
    if transform == "softmax":
        return torch.softmax(x, dim=-1)
    if transform == "tril":
        return torch.tril(x)
    if transform == "triu":
        return torch.triu(x)
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(f"init transform 'symmetric' needs square matrices, got shape "
                         f"{tuple(x.shape)}")
    return (x + x.transpose(-1, -2)) / 2


def compare(out: torch.Tensor, ref: torch.Tensor, atol: float, rtol: float,
            rel_l2: float) -> Tuple[bool, float]:
    """The judge's comparison; (ok, worst ratio of error to bound)."""
    o, r = out.detach().double().flatten().cpu(), ref.detach().double().flatten().cpu()
    if o.numel() == 0:
        return True, 0.0
    if not (torch.isfinite(r).all() and torch.isfinite(o).all()):
        return False, math.inf
    diff = (o - r).abs()
    bound = atol + rtol * r.abs()
    # 0 <= 0 passes: an exact zero where the bound is 0 (atol = 0, ref = 0) is distance 0, not
    # NaN; any other error over a bound of 0 is infinitely far (a zero tolerance means exact).
    ratio = torch.where(diff == 0, torch.zeros_like(diff), diff / bound)
    elem = float(ratio.max())
    norm = float(torch.linalg.norm(r))
    err = float(torch.linalg.norm(o - r))
    # As common/output_comparison.cc: ||out - ref|| / ||ref|| against rel_l2, or, for an all-zero
    # reference, the RMS error against atol (tests/vectors/tolerance.json pins both twins).
    if norm > 0:
        l2 = _ratio(err / norm, rel_l2)
    else:
        l2 = _ratio(err / math.sqrt(o.numel()), atol)
    worst = max(elem, l2)
    return worst <= 1.0, worst


def _ratio(error: float, bound: float) -> float:
    """error / bound, with 0 / 0 = 0 and x / 0 = inf: a bound of 0 admits only no error."""
    if error == 0:
        return 0.0
    return error / bound if bound > 0 else math.inf


def _c_div(a: Any, b: Any, text: str, mod: bool) -> Any:
    """C's / and % (truncation toward zero); a float operand makes / a float division."""
    if b == 0:
        raise ValueError(f"division by zero in '{text}'")
    if isinstance(a, float) or isinstance(b, float):
        if mod:
            raise ValueError(f"% needs integers in '{text}'")
        return a / b
    q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
    return a - b * q if mod else q


_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
           ast.Mult: lambda a, b: a * b, ast.FloorDiv: lambda a, b: a // b}
_CALLS = {"cdiv": lambda a, b: -(-a // b), "min": min, "max": max}


def eval_size_expr(text: str, sizes: Mapping[str, Any]) -> Any:
    """A spec expression's value at `sizes` (ValueError names the unknown size)."""
    def ev(node: ast.AST) -> Any:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and \
                not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in sizes:
                raise ValueError(f"unknown size '{node.id}' in '{text}'")
            value = sizes[node.id]
            return value if isinstance(value, float) else int(value)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.Mod)):
            return _c_div(ev(node.left), ev(node.right), text, isinstance(node.op, ast.Mod))
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            return _BINOPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in _CALLS:
            return _CALLS[node.func.id](*[ev(a) for a in node.args])
        raise ValueError(f"unsupported expression '{text}'")
    try:
        tree = ast.parse(str(text).strip(), mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"cannot parse expression '{text}': {exc}") from exc
    return ev(tree)


def shape_of(dims: Sequence[str], sizes: Mapping[str, int]) -> Tuple[int, ...]:
    return tuple(eval_size_expr(str(d), sizes) for d in dims)


def sizes_of(shape: Mapping[str, Any]) -> Dict[str, int]:
    """A spec shape's sizes (input_scale removed)."""
    return {k: int(v) for k, v in shape.items() if k != "input_scale"}
