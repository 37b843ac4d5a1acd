"""The judge's dtype names (common/dtype.h) as torch dtypes and __cuda_array_interface__ types.

Contract: lookup(name) returns a DType for every name dtype.h accepts that this torch can hold
("fp8_*" need torch's float8 types, torch >= 2.1), and raises OracleError naming the accepted set
otherwise. bf16 and fp8 have no array-interface type string: they are mapped as a same-sized
integer type (`typestr`) and reinterpreted with Tensor.view(torch_dtype).
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator, Optional

import torch

from .errors import OracleError


@dataclass(frozen=True)
class DType:
    name: str           # the judge's name ("f32")
    torch_dtype: torch.dtype
    typestr: str        # what __cuda_array_interface__ is given
    size: int           # bytes per element

    @property
    def needs_view(self) -> bool:
        """True when the array-interface type differs from torch_dtype (bf16, fp8)."""
        return self.typestr in ("<i2", "|u1") and self.torch_dtype not in (torch.int16, torch.uint8)


def _table():
    table = {
        "f32": DType("f32", torch.float32, "<f4", 4),
        "f64": DType("f64", torch.float64, "<f8", 8),
        "f16": DType("f16", torch.float16, "<f2", 2),
        "bf16": DType("bf16", torch.bfloat16, "<i2", 2),
        "i32": DType("i32", torch.int32, "<i4", 4),
        "i64": DType("i64", torch.int64, "<i8", 8),
        "u8": DType("u8", torch.uint8, "|u1", 1),
        "i8": DType("i8", torch.int8, "|i1", 1),
    }
    for name, attr in (("fp8_e4m3", "float8_e4m3fn"), ("fp8_e5m2", "float8_e5m2")):
        dt: Optional[torch.dtype] = getattr(torch, attr, None)
        if dt is not None:
            table[name] = DType(name, dt, "|u1", 1)
    return table


_DTYPES = _table()


def lookup(name: object, where: str) -> DType:
    """The DType called `name`; `where` (e.g. "problem p, tensor x") prefixes the error."""
    if isinstance(name, str) and name in _DTYPES:
        return _DTYPES[name]
    if name in ("fp8_e4m3", "fp8_e5m2"):
        raise OracleError(f"{where}: dtype {name} needs torch's float8 types (torch >= 2.1); this "
                          f"is torch {torch.__version__}")
    raise OracleError(f"{where}: unknown dtype {name!r}; expected one of {', '.join(_DTYPES)}")


def is_float(dtype: torch.dtype) -> bool:
    """Floating point (or complex): values a float output may be cast from and to."""
    return dtype.is_floating_point or dtype.is_complex


@dataclass(frozen=True)
class BackendFlags:
    """PyTorch's global precision switches for float32 work (what TF32 may touch)."""
    cudnn_tf32: bool        # torch.backends.cudnn.allow_tf32
    matmul_tf32: bool       # torch.backends.cuda.matmul.allow_tf32
    matmul_precision: str   # torch.get_float32_matmul_precision() ("highest" on old torch)


# No TF32 anywhere: the oracle's own runs, torch_compile and the torch_eager_fp32 baseline.
STRICT_FP32 = BackendFlags(cudnn_tf32=False, matmul_tf32=False, matmul_precision="highest")
_pytorch_defaults: Optional[BackendFlags] = None


def current_flags() -> BackendFlags:
    precision = torch.get_float32_matmul_precision() if hasattr(torch, "get_float32_matmul_precision") \
        else "highest"
    return BackendFlags(bool(torch.backends.cudnn.allow_tf32), bool(torch.backends.cuda.matmul.allow_tf32),
                        precision)


def apply_flags(flags: BackendFlags) -> None:
    torch.backends.cudnn.allow_tf32 = flags.cudnn_tf32
    torch.backends.cuda.matmul.allow_tf32 = flags.matmul_tf32
    if hasattr(torch, "set_float32_matmul_precision"):
        torch.set_float32_matmul_precision(flags.matmul_precision)


def pytorch_defaults() -> BackendFlags:
    """The switches as this PyTorch ships them (read before full_fp32 changed them): what
    KernelBench's evaluator and its baseline JSONs run under, so the torch_eager baseline's
    (issue 28). With PyTorch 1.12 to 2.x: cuDNN may use TF32 (convolutions), matmul may not."""
    return _pytorch_defaults if _pytorch_defaults is not None else current_flags()


@contextmanager
def backend_flags(flags: Optional[BackendFlags]) -> Iterator[None]:
    """Runs the block under `flags` (None: as they are) and restores the previous ones."""
    if flags is None:
        yield
        return
    previous = current_flags()
    apply_flags(flags)
    try:
        yield
    finally:
        apply_flags(previous)


def full_fp32() -> None:
    """No TF32 anywhere: PyTorch lets cuDNN convolutions use TF32 by default, which rounds inputs
    to 10 mantissa bits. An f32 oracle run (bench_precision = "f32") then missed a correct fp32
    convolution by 1e-3 (level1/76 and 87 on an H100). The process's defaults are remembered
    first: the torch_eager baseline runs under them (pytorch_defaults)."""
    global _pytorch_defaults  # pylint: disable=global-statement
    if _pytorch_defaults is None:
        _pytorch_defaults = current_flags()
    apply_flags(STRICT_FP32)
