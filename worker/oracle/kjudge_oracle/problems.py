"""The `load` request: a problem's module built at one shape, kept under the judge's key.

Contract:
  * parse_load(request) validates a load request and builds its ModuleProblem (on the CPU; run
    moves it to the tensors' device). parse_load(request, build=False) checks the request's
    fields only and builds nothing (entry.problem is None): the compile oracle, whose compile
    children build the module themselves (compile_pool.py), answers a load in microseconds. It checks that the binding names every state_dict key of
    the module exactly once and that no spec tensor is bound twice; any failure is an OracleError
    naming the problem, its file and what is wrong.
  * load_signature(request) is a load request's content; Problems.touch_identical(request) keeps
    the entry of an identical earlier load (and its compile) without building the module again:
    a judge re-sends a load whose reply came too late for it (the compile oracle's 20 ms
    patience), and building a level-3 model takes far longer than that, so without this the
    load of a large model would never be answered in time.
  * Problems is an LRU of CAPACITY (or $KJUDGE_ORACLE_KEYS) entries keyed by K (the judge uses `problem|shape
    label|digest`); putting a key again replaces its entry (and drops that entry's compile job),
    unless the load request was identical (then the old entry, and its compile, stay).
  * Entry.check_tensors(names, where) says which bound tensors a request lacks or which it has
    that the binding does not know.
"""
from __future__ import annotations

from collections import OrderedDict
import json
import os
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Tuple

from .errors import OracleError
from .module_problem import ModuleProblem, ModuleProblemError

CAPACITY = 8  # unless $KJUDGE_ORACLE_KEYS says otherwise (the judge sets it: OracleOptions::keys)


def capacity_from_env() -> int:
    """$KJUDGE_ORACLE_KEYS when it is a positive integer, else CAPACITY."""
    value = os.environ.get("KJUDGE_ORACLE_KEYS", "")
    return int(value) if value.isdigit() and int(value) > 0 else CAPACITY


@dataclass
class Entry:
    key: str
    problem_name: str
    filename: str
    problem: Optional[ModuleProblem]  # None: not built here (parse_load build=False)
    forward: List[str]
    parameters: List[Tuple[str, str]]   # (state_dict key, spec tensor)
    outputs: List[str]
    compile_job: Optional[Any] = field(default=None)  # compile_job.CompileJob once asked
    signature: str = ""  # the load request's content: an identical load keeps this entry
    source: str = ""  # reference.py's text and the globals it was built with (compile children)
    sizes: Dict[str, int] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return f"problem {self.problem_name} ({self.filename})"

    def bound_names(self) -> List[str]:
        return self.forward + [spec for _, spec in self.parameters] + self.outputs

    def check_tensors(self, names: Iterable[str], where: str) -> None:
        given = list(names)
        bound = self.bound_names()
        missing = [n for n in bound if n not in given]
        unknown = [n for n in given if n not in bound]
        if missing or unknown:
            raise OracleError(f"{where}: the tensors do not match the module's binding: missing "
                              f"{missing}, not bound {unknown} (bound: forward {self.forward}, "
                              f"parameters {[s for _, s in self.parameters]}, outputs {self.outputs})")


def _str(request: Dict[str, Any], field_name: str, where: str) -> str:
    value = request.get(field_name)
    if not isinstance(value, str) or not value:
        raise OracleError(f"{where}: field '{field_name}' must be a non-empty string, got {value!r}")
    return value


def _names(request: Dict[str, Any], field_name: str, where: str) -> List[str]:
    value = request.get(field_name)
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise OracleError(f"{where}: field '{field_name}' must be a list of tensor names, got {value!r}")
    return value


def _pairs(request: Dict[str, Any], where: str) -> List[Tuple[str, str]]:
    value = request.get("parameters", [])
    ok = isinstance(value, list) and all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(s, str) and s for s in p)
        for p in value)
    if not ok:
        raise OracleError(f"{where}: field 'parameters' must be a list of [state_dict key, tensor "
                          f"name] pairs, got {value!r}")
    return [(k, t) for k, t in value]


def _globals(request: Dict[str, Any], where: str) -> Dict[str, int]:
    value = request.get("globals", {})
    if not isinstance(value, dict) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value.values()):
        raise OracleError(f"{where}: field 'globals' must be an object of integer sizes, got {value!r}")
    return value


def parse_load(request: Dict[str, Any], build: bool = True) -> Entry:
    key = _str(request, "key", "load")
    name = _str(request, "problem", f"load {key}")
    filename = _str(request, "filename", f"problem {name}")
    where = f"problem {name} ({filename})"
    source = request.get("source")
    if not isinstance(source, str):
        raise OracleError(f"{where}: field 'source' must be the module's text")
    sizes = _globals(request, where)
    forward = _names(request, "forward", where)
    outputs = _names(request, "outputs", where)
    parameters = _pairs(request, where)
    if not outputs:
        raise OracleError(f"{where}: 'outputs' names no tensor")
    bound = forward + [t for _, t in parameters] + outputs
    twice = sorted({n for n in bound if bound.count(n) > 1})
    if twice:
        raise OracleError(f"{where}: tensors bound more than once: {twice}")
    if not build:
        return Entry(key, name, filename, None, forward, parameters, outputs,
                     signature=load_signature(request), source=source, sizes=dict(sizes))
    try:
        problem = ModuleProblem(source, filename, sizes)
    except ModuleProblemError as exc:
        raise OracleError(f"problem {name}: {exc}") from exc
    state = problem.state_names()
    keys = [k for k, _ in parameters]
    missing = [k for k in problem.required_state_names() if k not in keys]
    unknown = [k for k in keys if k not in state]
    if missing or unknown or len(set(keys)) != len(keys):
        raise OracleError(f"{where}: 'parameters' must bind every parameter of the module once "
                          f"(buffers may be left to the module): missing {missing}, not in the "
                          f"module {unknown} (state_dict keys: {state})")
    return Entry(key, name, filename, problem, forward, parameters, outputs,
                 signature=load_signature(request),
                 source=source, sizes=dict(sizes))


def load_signature(request: Dict[str, Any]) -> str:
    return json.dumps({k: request.get(k) for k in
                       ("problem", "filename", "source", "globals", "forward", "parameters",
                        "outputs")}, sort_keys=True)


class Problems:
    """LRU of loaded problems."""

    def __init__(self, capacity: int = CAPACITY) -> None:
        self.capacity = capacity
        self._entries: "OrderedDict[str, Entry]" = OrderedDict()

    def put(self, entry: Entry) -> None:
        old = self._entries.pop(entry.key, None)
        if old is not None and old.signature == entry.signature:
            # The same module again (a judge whose earlier load went unanswered while a compile
            # held this process re-sends it): keep the entry and its compile, not restart it.
            entry = old
        self._entries[entry.key] = entry
        while len(self._entries) > self.capacity:
            self._entries.popitem(last=False)

    def touch_identical(self, request: Dict[str, Any]) -> bool:
        key = request.get("key")
        entry = self._entries.get(key) if isinstance(key, str) else None
        if entry is None or entry.signature != load_signature(request):
            return False
        self._entries.move_to_end(entry.key)
        return True

    def get(self, request: Dict[str, Any], op: str) -> Entry:
        key = request.get("key")
        entry = self._entries.get(key) if isinstance(key, str) else None
        if entry is None:
            raise OracleError(f"{op}: unknown key {key!r}: load it first (the oracle keeps the "
                              f"{self.capacity} most recently used keys: {list(self._entries)})")
        self._entries.move_to_end(entry.key)
        return entry
