"""Small polyfills so KernelBench modules written for torch 2.x import and run on torch 1.13
(Debian 12's python3-torch, which CI and the importer use).

Contract: install() is idempotent and only ADDS what the running torch lacks; on a torch that
has an API natively, nothing is replaced (the GPU hosts run the real thing). Each polyfill
computes what the torch 2.x documentation defines, in plain tensor ops:
  * torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0.0,
    is_causal=False, scale=None): softmax(q @ k^T * scale + mask) @ v; dropout_p must be 0
    (the judge compares deterministic outputs).
  * meta kernels (shapes only, used by the importer's `meta` runs) for
    max_pool3d_with_indices, which torch 1.13 lacks.
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F

_INSTALLED = False
_LIBS = []  # keeps torch.library registrations alive


def _sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    if dropout_p != 0.0:
        raise NotImplementedError("kjudge's scaled_dot_product_attention polyfill supports "
                                  "dropout_p = 0 only")
    factor = scale if scale is not None else 1.0 / math.sqrt(query.shape[-1])
    scores = torch.matmul(query, key.transpose(-2, -1)) * factor
    if is_causal:
        n, m = scores.shape[-2], scores.shape[-1]
        causal = torch.ones(n, m, dtype=torch.bool, device=scores.device).tril()
        scores = scores.masked_fill(~causal, float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            scores = scores.masked_fill(~attn_mask, float("-inf"))
        else:
            scores = scores + attn_mask
    return torch.matmul(torch.softmax(scores, dim=-1), value)


def _pool_out(size, k, s, p, d, ceil_mode):
    num = size + 2 * p - d * (k - 1) - 1
    out = (-(-num // s) if ceil_mode else num // s) + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _max_pool3d_meta(x, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    def three(v, default):
        v = list(v) if isinstance(v, (list, tuple)) else [v]
        if not v:
            v = list(default)
        return v * 3 if len(v) == 1 else v
    k = three(kernel_size, [1])
    s = three(stride, k)
    p = three(padding, [0])
    d = three(dilation, [1])
    spatial = [_pool_out(x.shape[-3 + i], k[i], s[i], p[i], d[i], ceil_mode) for i in range(3)]
    shape = list(x.shape[:-3]) + spatial
    return x.new_empty(shape), x.new_empty(shape, dtype=torch.int64)


def install() -> None:
    """Adds the polyfills this torch lacks (idempotent)."""
    global _INSTALLED
    if _INSTALLED:
        return
    _INSTALLED = True
    if not hasattr(F, "scaled_dot_product_attention"):
        F.scaled_dot_product_attention = _sdpa
    if torch.__version__.startswith("1."):
        try:
            lib = torch.library.Library("aten", "IMPL", "Meta")
            lib.impl("max_pool3d_with_indices", _max_pool3d_meta)
            _LIBS.append(lib)
        except (RuntimeError, AttributeError):  # already registered, or no torch.library
            pass
