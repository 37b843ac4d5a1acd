"""Baseline timing sessions: the module in its spec dtypes on mapped bench sets.

The judge drives the protocol (warm-up count, stopping rule, event overhead); a session only
runs the module once per request and, for `sample`, times that run the judge's way: flush L2 by
writing 2x L2 bytes of a private buffer, reset persisting L2, record a start event, forward,
record a stop event on torch's current stream, wait for it; then time a device synchronize to
see whether work was still running after the stop event (busy_after_stop).

Contract:
  * BenchSession(entry, mode, model, state_module, mapping, sets, device, flags): `sets` are name ->
    tensor dicts over `mapping`; state_module is the module whose state_dict receives each set's
    parameters (copied in before the timed region, only when the set changes). Every run of the
    model (warm-up, sample, write_outputs) is under `flags` (dtypes.BackendFlags; None: the
    process's), restored after it: "eager" runs PyTorch's defaults, "eager_fp32" no TF32.
  * warmup(i), sample(i) -> (elapsed_us, busy_after_stop), write_outputs(i); close() unmaps.
  * sample needs CUDA (an OracleError says so on the CPU).
"""
from __future__ import annotations

import time
from typing import Dict, List, Optional, Tuple

import torch

from . import cuda_driver
from .dtypes import BackendFlags, backend_flags
from .errors import OracleError
from .execute import synchronize, write_outputs
from .memory import Mapping
from .problems import Entry

FALLBACK_L2_BYTES = 50 << 20   # torch < 2.? has no L2_cache_size: larger than any current L2


class L2Flusher:
    """Evicts the L2 cache by writing a private buffer twice its size."""

    def __init__(self, device: torch.device) -> None:
        props = torch.cuda.get_device_properties(device)
        l2 = int(getattr(props, "L2_cache_size", 0) or FALLBACK_L2_BYTES)
        self.buffer = torch.empty(2 * l2, dtype=torch.uint8, device=device)
        self._value = 0

    def flush(self) -> None:
        self._value = (self._value + 1) % 256
        self.buffer.fill_(self._value)
        cuda_driver.driver().reset_persisting_l2()


class BenchSession:
    def __init__(self, entry: Entry, mode: str, model: torch.nn.Module,
                 state_module: torch.nn.Module, mapping: Mapping,
                 sets: List[Dict[str, torch.Tensor]], device: torch.device,
                 flags: Optional[BackendFlags] = None) -> None:
        self.entry = entry
        self.mode = mode
        self.model = model
        self.state_module = state_module
        self.mapping = mapping
        self.sets = sets
        self.device = device
        self.flags = flags
        self._loaded: Optional[int] = None

    def _set(self, request: dict, op: str) -> Tuple[int, str]:
        i = request.get("set")
        where = f"{self.entry.where}, {op} ({self.mode})"
        if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(self.sets):
            raise OracleError(f"{where}: 'set' must be an index below {len(self.sets)}, got {i!r}")
        return i, f"{where}, set {i}"

    def _forward(self, i: int) -> List[torch.Tensor]:
        tensors = self.sets[i]
        with torch.no_grad(), backend_flags(self.flags):
            if self._loaded != i:
                own = self.state_module.state_dict()
                for key, spec in self.entry.parameters:
                    own[key].copy_(tensors[spec])
                self._loaded = i
            result = self.model(*[tensors[n] for n in self.entry.forward])
        return [result] if isinstance(result, torch.Tensor) else list(result)

    def warmup(self, request: dict) -> None:
        i, _ = self._set(request, "warmup")
        self._forward(i)
        synchronize(self.device)

    def write_outputs(self, request: dict) -> None:
        i, where = self._set(request, "write_outputs")
        results = self._forward(i)
        with torch.no_grad():
            write_outputs(self.entry, results, self.sets[i], where)
        synchronize(self.device)

    def sample(self, request: dict, flusher: Optional[L2Flusher]) -> Tuple[float, bool]:
        i, where = self._set(request, "sample")
        if self.device.type != "cuda" or flusher is None:
            raise OracleError(f"{where}: timing needs CUDA (events, an L2 to flush); this session "
                              "maps host memory")
        with torch.no_grad(), backend_flags(self.flags):
            if self._loaded != i:  # parameter copies stay out of the timed region
                self._forward(i)
            args = [self.sets[i][n] for n in self.entry.forward]
            stream = torch.cuda.current_stream(self.device)
            start = torch.cuda.Event(enable_timing=True)
            stop = torch.cuda.Event(enable_timing=True)
            flusher.flush()
            start.record(stream)
            result = self.model(*args)
            stop.record(stream)
            stop.synchronize()
            elapsed_us = start.elapsed_time(stop) * 1000.0
            del result
        t0 = time.perf_counter()
        torch.cuda.synchronize(self.device)
        busy = time.perf_counter() - t0 > 1e-3
        return elapsed_us, busy

    def close(self) -> None:
        self.sets = []
        self.model = None  # type: ignore[assignment]
        self.state_module = None  # type: ignore[assignment]
        self.mapping.close()
