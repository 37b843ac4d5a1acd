"""Running a loaded module on mapped tensors and writing its outputs into the judge's buffers.

Contract:
  * device_for(memory, where) is the torch device a request's tensors live on ("cuda": torch's
    current CUDA device, an OracleError when this torch has no CUDA; "host": the CPU).
  * with_mapping(specs, fds, memory, where, body) maps the tensors, calls body(by_name), and
    always unmaps before it returns or raises (an error inside body is re-raised only after the
    mapping is gone, so no traceback keeps a view of the judge's memory alive).
  * write_outputs(entry, results, by_name, where) checks every result against its spec tensor
    (count, shape, float vs integer) and copies it in with copy_ (casting to the spec dtype).
  * run_reference(entry, by_name, dtype) is the `run` op's computation: the module in `dtype`
    (torch.float64 or float32) on the judge's inputs and parameters; outputs written; device
    synchronized.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Sequence, TypeVar

import torch

from .dtypes import is_float
from .errors import OracleError, shape_str
from .memory import Mapping, TensorSpec
from .module_problem import ModuleProblemError
from .problems import Entry

T = TypeVar("T")
PRECISIONS = {"f64": torch.float64, "f32": torch.float32}
MEMORIES = ("cuda", "host")


def check_memory(memory: object, where: str) -> str:
    """`memory` as a request gives it, checked (and its device usable)."""
    device_for(memory, where)
    return str(memory)


def device_for(memory: object, where: str) -> torch.device:
    if memory == "host":
        return torch.device("cpu")
    if memory == "cuda":
        if not torch.cuda.is_available():
            raise OracleError(f"{where}: memory 'cuda' but this oracle has no CUDA device (torch "
                              f"{torch.__version__}); use memory 'host'")
        return torch.device("cuda", torch.cuda.current_device())
    raise OracleError(f"{where}: 'memory' must be one of {list(MEMORIES)}, got {memory!r}")


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def with_mapping(specs: Sequence[TensorSpec], fds: Sequence[int], memory: str, where: str,
                 body: Callable[[Mapping], T]) -> T:
    device = device_for(memory, where)
    mapping = Mapping.open(specs, fds, memory, device, where)
    error = None
    try:
        result = body(mapping)
    except OracleError as exc:
        error = str(exc)
    except Exception as exc:  # pylint: disable=broad-except  (a module may raise anything)
        error = f"{where}: {type(exc).__name__}: {exc}"
    # Outside the except blocks: the traceback (and the tensors its frames hold) is gone.
    mapping.close()
    if error is not None:
        raise OracleError(error)
    return result


def by_name(specs: Sequence[TensorSpec], mapping: Mapping) -> Dict[str, torch.Tensor]:
    return {spec.name: t for spec, t in zip(specs, mapping.tensors)}


def write_outputs(entry: Entry, results: List[torch.Tensor], tensors: Dict[str, torch.Tensor],
                  where: str) -> None:
    if len(results) != len(entry.outputs):
        raise OracleError(f"{where}: forward returned {len(results)} tensor(s) but the spec binds "
                          f"{len(entry.outputs)} output(s) {entry.outputs}")
    for name, result in zip(entry.outputs, results):
        out = tensors[name]
        if tuple(result.shape) != tuple(out.shape):
            raise OracleError(f"{where}, output {name}: the module returned shape "
                              f"{shape_str(result.shape)} but the spec's shape is "
                              f"{shape_str(out.shape)}")
        if is_float(result.dtype) != is_float(out.dtype):
            raise OracleError(f"{where}, output {name} {shape_str(out.shape)}: dtype mismatch: the "
                              f"module returned {result.dtype}, the spec's tensor is {out.dtype} "
                              "(float and integer values do not convert)")
        out.copy_(result)


def run_reference(entry: Entry, tensors: Dict[str, torch.Tensor], dtype: torch.dtype,
                  device: torch.device, where: str) -> None:
    entry.problem.place(device)
    inputs = [tensors[n] for n in entry.forward]
    state = {key: tensors[spec] for key, spec in entry.parameters}
    torch.manual_seed(0)  # modules that draw random numbers in forward (dropout) repeat themselves
    try:
        results = entry.problem.run(inputs, state, dtype)
    except ModuleProblemError as exc:
        raise OracleError(f"{where}: {exc}") from exc
    with torch.no_grad():
        write_outputs(entry, results, tensors, where)
    synchronize(device)
