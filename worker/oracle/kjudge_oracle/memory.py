"""The judge's tensors, handed over as file descriptors, as torch tensors (zero-copy).

Contract:
  * parse_tensors(raw, nfds, where) validates a request's tensor list (T objects of
    docs/pytorch-problems.md §3: name, dtype, shape, fd, bytes, offset) and raises OracleError
    naming the tensor for any bad field: unknown dtype, negative size, an fd index that the
    packet did not carry, a tensor that does not fit in its allocation or is misaligned.
  * Mapping.open(specs, fds, memory) maps each descriptor once ("host": memfd, mmap'ed shared
    read-write; "cuda": a CUDA VMM allocation mapped into torch's primary context) and exposes
    `tensors` (name -> tensor of the spec's dtype and shape, writing into it writes the judge's
    memory). The caller closes the fds (the mapping does not need them once open returns).
  * Mapping.close() synchronizes the device, drops every tensor and unmaps. It never raises;
    a host mapping still referenced somewhere is left to the garbage collector (logged).
"""
from __future__ import annotations

import gc
import math
import mmap
import os
import sys
from dataclasses import dataclass
from typing import Any, Dict, List, Sequence, Tuple

import torch

from . import cuda_driver
from .dtypes import DType, lookup
from .errors import OracleError, shape_str


@dataclass(frozen=True)
class TensorSpec:
    name: str
    dtype: DType
    shape: Tuple[int, ...]
    fd: int      # index into the packet's descriptors
    bytes: int   # the whole allocation behind fd
    offset: int  # of the first element inside it

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    def describe(self) -> str:
        return f"tensor {self.name} ({self.dtype.name} {shape_str(self.shape)})"


def _int_field(t: Dict[str, Any], field: str, where: str) -> int:
    value = t.get(field)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise OracleError(f"{where}: field '{field}' must be a non-negative integer, got {value!r}")
    return value


def parse_tensors(raw: Any, nfds: int, where: str) -> List[TensorSpec]:
    """The request's tensor list, validated against the packet's `nfds` descriptors."""
    if not isinstance(raw, list):
        raise OracleError(f"{where}: 'tensors' must be a list of tensor objects")
    specs: List[TensorSpec] = []
    seen = set()
    for i, t in enumerate(raw):
        if not isinstance(t, dict) or not isinstance(t.get("name"), str):
            raise OracleError(f"{where}: tensor #{i} is not an object with a string 'name'")
        name = t["name"]
        at = f"{where}, tensor {name}"
        if name in seen:
            raise OracleError(f"{at}: given twice")
        seen.add(name)
        dtype = lookup(t.get("dtype"), at)
        shape = t.get("shape")
        if not isinstance(shape, list) or not all(
                isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape):
            raise OracleError(f"{at}: 'shape' must be a list of non-negative integers, got {shape!r}")
        fd = _int_field(t, "fd", at)
        if fd >= nfds:
            raise OracleError(f"{at}: fd index {fd} but the packet carried {nfds} descriptor(s)")
        spec = TensorSpec(name, dtype, tuple(shape), fd, _int_field(t, "bytes", at),
                          _int_field(t, "offset", at))
        end = spec.offset + spec.numel * dtype.size
        if end > spec.bytes:
            raise OracleError(f"{at} {shape_str(spec.shape)}: needs bytes [{spec.offset}, {end}) "
                              f"but its allocation is {spec.bytes} bytes")
        if spec.offset % dtype.size:
            raise OracleError(f"{at}: offset {spec.offset} is not a multiple of the element size "
                              f"{dtype.size}")
        specs.append(spec)
    return specs


class _CudaArray:
    """Just enough of an object for torch.as_tensor to wrap device memory without a copy."""

    def __init__(self, ptr: int, shape: Tuple[int, ...], typestr: str) -> None:
        self.__cuda_array_interface__ = {"version": 3, "shape": shape, "typestr": typestr,
                                         "data": (ptr, False), "strides": None}


class Mapping:
    """Descriptors mapped for one request (or one bench session)."""

    def __init__(self, memory: str, device: torch.device) -> None:
        self.memory = memory
        self.device = device
        self.tensors: List[torch.Tensor] = []
        self._host: List[mmap.mmap] = []
        self._cuda: List[Tuple[int, int]] = []  # (ptr, size)

    @staticmethod
    def open(specs: Sequence[TensorSpec], fds: Sequence[int], memory: str,
             device: torch.device, where: str) -> "Mapping":
        m = Mapping(memory, device)
        try:
            bases: Dict[int, Any] = {}
            for spec in specs:
                if spec.fd not in bases:
                    bases[spec.fd] = m._map_fd(fds[spec.fd], spec, where)
                m.tensors.append(m._wrap(bases[spec.fd], spec))
        except Exception:
            bases = {}
            m.close()
            raise
        return m

    def _map_fd(self, fd: int, spec: TensorSpec, where: str) -> Any:
        at = f"{where}, {spec.describe()}"
        if self.memory == "host":
            try:
                size = os.fstat(fd).st_size
            except OSError as exc:
                raise OracleError(f"{at}: descriptor {spec.fd} is unusable: {exc}") from exc
            if size < spec.bytes:  # touching past the end of a memfd would be SIGBUS
                raise OracleError(f"{at}: descriptor {spec.fd} holds {size} bytes, fewer than the "
                                  f"{spec.bytes} the request says")
            try:
                mm = mmap.mmap(fd, spec.bytes, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
            except (OSError, ValueError) as exc:
                raise OracleError(f"{at}: mmap of descriptor {spec.fd} failed: {exc}") from exc
            self._host.append(mm)
            return mm
        try:
            ptr = cuda_driver.driver().import_map(fd, spec.bytes, self.device.index or 0)
        except OracleError as exc:
            raise OracleError(f"{at}: mapping descriptor {spec.fd}: {exc}") from exc
        self._cuda.append((ptr, spec.bytes))
        return ptr

    def _wrap(self, base: Any, spec: TensorSpec) -> torch.Tensor:
        dt = spec.dtype
        if spec.numel == 0:
            return torch.empty(spec.shape, dtype=dt.torch_dtype, device=self.device)
        if self.memory == "host":
            flat = torch.frombuffer(base, dtype=dt.torch_dtype, count=spec.numel, offset=spec.offset)
            return flat.view(spec.shape)
        t = torch.as_tensor(_CudaArray(base + spec.offset, spec.shape, dt.typestr), device=self.device)
        return t.view(dt.torch_dtype) if dt.needs_view else t

    def close(self) -> None:
        if self._cuda:
            try:
                torch.cuda.synchronize(self.device)
            except Exception as exc:  # pylint: disable=broad-except
                print(f"kjudge_oracle: synchronize before unmap failed: {exc}", file=sys.stderr)
        self.tensors.clear()
        for ptr, size in self._cuda:
            try:
                cuda_driver.driver().unmap(ptr, size)
            except OracleError as exc:
                print(f"kjudge_oracle: {exc}", file=sys.stderr)
        self._cuda.clear()
        for mm in self._host:
            try:
                mm.close()
            except BufferError:
                gc.collect()  # a reference cycle may still hold a view of it
                try:
                    mm.close()
                except BufferError:
                    print("kjudge_oracle: a host mapping is still referenced; the garbage "
                          "collector will unmap it", file=sys.stderr)
        self._host.clear()
