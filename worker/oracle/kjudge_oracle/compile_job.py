"""torch.compile of one loaded module, in a background thread (no request waits for it).

Contract:
  * CompileJob(entry, device) starts a daemon thread that builds a second instance of the
    module (ModuleProblem.clone_model: from the source's namespace, never reading the eager
    model's state, so no request has to wait for it), moves it to `device`, casts it to the
    float dtype of get_inputs() at the key's shape,
    wraps it in torch.compile, and runs it twice on get_inputs() (private random inputs of the
    bench's shapes) so the first timed run does not compile.
  * It runs in a compile child of the compile oracle (compile_pool.py), never in the process
    that answers the judge: Dynamo and Inductor hold the GIL for seconds at a time.
  * join() waits until the job is no longer compiling.
  * In-process compiles run one at a time, in the order they were asked for (a job waiting its
    turn is "compiling" too).
  * state is "compiling", then "ready" (module: the eager copy whose state the bench loads;
    compiled: what it times) or "failed" (error says why; on torch without torch.compile, that).
  * compiling_now() lists (by `where`) every CompileJob of this process still compiling,
    evicted keys' jobs included (their threads run on): a timed run must not share the process
    with one (server.py, bench_open).
"""
from __future__ import annotations

import threading
from typing import Any, List, Optional, Set, Tuple

import torch

from .dtypes import is_float
from .problems import Entry


def float_dtype(tensors: List[object]) -> Optional[torch.dtype]:
    """The dtype of the first floating tensor (the module's working precision), or None."""
    for t in tensors:
        if isinstance(t, torch.Tensor) and is_float(t.dtype):
            return t.dtype
    return None


_LOCK = threading.Lock()
_COMPILING: Set["CompileJob"] = set()  # every job of this process whose thread still compiles
# One compile at a time per process: Dynamo and Inductor keep process-wide state that is not
# meant for concurrent compiles from several threads, and a queue of compiles then costs one
# core and one warm-up's GPU memory, not one per problem the judge has seen lately.
_ONE_AT_A_TIME = threading.Lock()


def no_compile_reason(where: str) -> Optional[str]:
    """Why this torch cannot compile at all (None when it can)."""
    if hasattr(torch, "compile"):
        return None
    return (f"{where}: torch {torch.__version__} has no torch.compile (it needs torch >= 2.0); "
            "only the eager baseline is available")


def inputs_on(problem: Any, device: torch.device) -> List[object]:
    """get_inputs() drawn on `device` itself where torch can (>= 2.0: a device context), so a
    bench shape's gigabytes are not drawn on the CPU and copied; the same shapes and dtypes, so
    the same compile."""
    if device.type == "cuda" and hasattr(torch.device, "__enter__"):
        with device:
            return problem.sample_inputs()
    return problem.sample_inputs()


def compile_module(model: torch.nn.Module, sample_inputs: List[object],
                   device: torch.device) -> Tuple[torch.nn.Module, torch.nn.Module]:
    """(module, compiled): `model` moved to `device` and cast to the float dtype of
    `sample_inputs`, and its torch.compile, run twice on them so the first timed run does not
    compile. The one way kjudge compiles a module: warm_compile.py fills the Inductor cache
    with it, so a compile oracle started later with the same cache finds every artefact."""
    if device.type == "cuda":
        torch.cuda.set_device(device)
    inputs = [t.to(device) if isinstance(t, torch.Tensor) else t for t in sample_inputs]
    module = model.to(device)
    dtype = float_dtype(inputs)
    if dtype is not None:
        module = module.to(dtype)
    compiled = torch.compile(module)  # type: ignore[attr-defined]
    with torch.no_grad():
        for _ in range(2):
            compiled(*inputs)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return module, compiled


def compiling_now() -> List[str]:
    """`where` of each job of this process still compiling, sorted."""
    with _LOCK:
        return sorted(j.where for j in _COMPILING)


class CompileJob:
    def __init__(self, entry: Entry, device: torch.device) -> None:
        self.where = entry.where
        self.device = device
        self.state = "compiling"
        self.error = ""
        self.module: Optional[torch.nn.Module] = None
        self.compiled: Optional[torch.nn.Module] = None
        reason = no_compile_reason(self.where)
        if reason is not None:
            self.state = "failed"
            self.error = reason
            return
        self._problem = entry.problem
        with _LOCK:
            _COMPILING.add(self)
        self._thread = threading.Thread(target=self._run, name=f"compile {entry.key}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        with _ONE_AT_A_TIME:
            self._compile()

    def join(self) -> None:
        thread = getattr(self, "_thread", None)
        if thread is not None:
            thread.join()

    def _compile(self) -> None:
        try:
            module, compiled = compile_module(self._problem.clone_model(),
                                              inputs_on(self._problem, self.device), self.device)
            self.module, self.compiled = module, compiled
            self.state = "ready"
        except Exception as exc:  # pylint: disable=broad-except  (reported through `compile`)
            self.error = f"{self.where}: torch.compile failed: {type(exc).__name__}: {exc}"
            self.state = "failed"
        finally:
            with _LOCK:
                _COMPILING.discard(self)
