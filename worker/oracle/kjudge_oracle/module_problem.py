"""One problem's PyTorch module, bound to the names of its spec (the one place that knows how).

A problem defined by a PyTorch module (KernelBench's form: `Model`, `get_inputs`,
`get_init_inputs`, module-level size globals such as `batch_size = 16`) maps onto a kjudge spec
like this (problem.toml's [module] section, docs/pytorch-problems.md):

  globals    sizes of the spec that are also int globals of reference.py. At a shape, each is
             set to the shape's value before get_init_inputs() / get_inputs() run, so the module
             is built at that shape (KernelBench's functions read their globals when called).
  forward    spec tensors passed to Model.forward, in order (get_inputs() order).
  parameters state_dict key -> spec tensor: every parameter of the module is an input of the
             spec, so a kernel receives the weights; the oracle loads the judge's values. A
             buffer is bound too, or left out: then it keeps the value the module's constructor
             gave it (a structural constant such as a causal mask, which a candidate computes
             itself; docs/pytorch-problems.md).
  outputs    spec "out" tensors, in the order forward returns them (a tensor or a tuple).

Contract:
  * load_namespace() executes the source in a fresh namespace (no file is imported by name) and
    applies the overrides; an override of a name that is not an int global is an error, so a
    typo cannot silently leave the bench size in place.
  * ModuleProblem builds Model(*get_init_inputs()) under torch.manual_seed(construct_seed), on
    the CPU, in the module's default mode (training, as KernelBench runs it).
  * place(device) moves the model to `device` (the oracle runs it where the judge's tensors are).
  * clone_model() builds a second, independent instance (same globals and seed, same device and
    dtype): never a deep copy, whose closures would still reach the first instance.
  * run() loads `state` into the model (every parameter must be given, buffers may be left
    out and keep their constructed values, no unknown key), casts the
    model and the float inputs to `dtype`, runs forward under no_grad, and returns the outputs as
    a list. It never changes the caller's tensors.
Errors are ModuleProblemError with a message that names the problem file and what was wrong.
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence

import torch


class ModuleProblemError(Exception):
    """A reference.py that cannot be loaded, built or run as its spec says."""


def load_namespace(source: str, filename: str, overrides: Mapping[str, int]) -> Dict[str, Any]:
    """Executes reference.py's source and sets its int globals named in `overrides`."""
    namespace: Dict[str, Any] = {"__name__": "kjudge_reference", "__file__": filename}
    try:
        exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - trusted problem code
    except Exception as exc:  # a broken problem file: say which and why
        raise ModuleProblemError(f"{filename}: executing the module failed: "
                                 f"{type(exc).__name__}: {exc}") from exc
    for name in ("Model", "get_inputs", "get_init_inputs"):
        if name not in namespace:
            raise ModuleProblemError(f"{filename}: defines no `{name}` (KernelBench's form needs "
                                     "Model, get_inputs and get_init_inputs)")
    for name, value in overrides.items():
        current = namespace.get(name)
        if not isinstance(current, int) or isinstance(current, bool):
            raise ModuleProblemError(f"{filename}: size '{name}' is not an int global of the "
                                     f"module (found {type(current).__name__}); [module].globals "
                                     "may name only int globals")
        namespace[name] = int(value)
    return namespace


def _as_list(result: Any, filename: str) -> List[torch.Tensor]:
    if isinstance(result, torch.Tensor):
        return [result]
    if isinstance(result, (tuple, list)) and all(isinstance(t, torch.Tensor) for t in result):
        return list(result)
    raise ModuleProblemError(f"{filename}: forward returned {type(result).__name__}; expected a "
                             "tensor or a tuple of tensors")


class ModuleProblem:
    """reference.py built at one shape."""

    def __init__(self, source: str, filename: str, overrides: Mapping[str, int],
                 construct_seed: int = 0, device: Optional[torch.device] = None):
        self.filename = filename
        self.namespace = load_namespace(source, filename, overrides)
        self._construct_seed = construct_seed
        torch.manual_seed(construct_seed)
        try:
            self.init_inputs = list(self.namespace["get_init_inputs"]())
            self.model = self.namespace["Model"](*self.init_inputs)
        except Exception as exc:
            raise ModuleProblemError(f"{filename}: building Model(*get_init_inputs()) failed: "
                                     f"{type(exc).__name__}: {exc}") from exc
        self._device = torch.device("cpu")
        if device is not None:
            self.place(device)
        self._dtype: Optional[torch.dtype] = None

    def place(self, device: torch.device) -> None:
        """Moves the model to `device` (a no-op when it is there already)."""
        if self._device != device:
            self.model = self.model.to(device)
            self._device = device

    def state_names(self) -> List[str]:
        """Every parameter and buffer of the module (state_dict keys, in state_dict order)."""
        return list(self.model.state_dict().keys())

    def required_state_names(self) -> List[str]:
        """The state_dict keys a binding must give: every key but the buffers'."""
        buffers = {name for name, _ in self.model.named_buffers()}
        return [k for k in self.state_names() if k not in buffers]

    def sample_inputs(self) -> List[Any]:
        """get_inputs() at this shape (the importer reads shapes and dtypes from it)."""
        return list(self.namespace["get_inputs"]())

    def cast(self, dtype: torch.dtype) -> None:
        """Casts the model's floating-point parameters and buffers to `dtype` (once)."""
        if self._dtype != dtype:
            self.model = self.model.to(dtype)
            self._dtype = dtype

    def run(self, inputs: Sequence[torch.Tensor], state: Mapping[str, torch.Tensor],
            dtype: Optional[torch.dtype] = None) -> List[torch.Tensor]:
        """forward(*inputs) with the module's state taken from `state`, computed in `dtype`
        (float inputs and the model cast to it; None: as given)."""
        known = set(self.state_names())
        given = set(state.keys())
        missing = set(self.required_state_names()) - given
        if missing or not given <= known:
            raise ModuleProblemError(
                f"{self.filename}: state does not match the module: missing parameters "
                f"{sorted(missing)}, unknown {sorted(given - known)}")
        if dtype is not None:
            self.cast(dtype)
        with torch.no_grad():
            own = self.model.state_dict()
            for key, value in state.items():
                own[key].copy_(value)  # copy_ casts to the model's dtype and device
            args = [t.to(dtype) if dtype is not None and t.is_floating_point() else t
                    for t in inputs]
            try:
                result = self.model(*args)
            except Exception as exc:
                raise ModuleProblemError(f"{self.filename}: forward failed: "
                                         f"{type(exc).__name__}: {exc}") from exc
        return _as_list(result, self.filename)

    def clone_model(self) -> torch.nn.Module:
        """A second instance of the model sharing nothing with this one (for the eager bench and
        torch.compile, which must not touch the model that computes expected outputs): built as
        this one was (the same globals and construction seed, on the CPU), then placed on this
        one's device and in its dtype. Not copy.deepcopy: a lambda made in __init__ over a
        submodule (level3/44's `self.mlpf = lambda x: m.c_proj(m.act(m.c_fc(x)))`) still calls
        the original's submodules in a deep copy, so casting or loading the copy missed them
        (seen on the GPU: "mat1 and mat2 must have the same dtype" in the float32 eager bench)."""
        torch.manual_seed(self._construct_seed)
        try:
            model = self.namespace["Model"](*self.init_inputs)
        except Exception as exc:
            raise ModuleProblemError(f"{self.filename}: building a second Model(*get_init_inputs())"
                                     f" failed: {type(exc).__name__}: {exc}") from exc
        model = model.to(self._device)
        return model.to(self._dtype) if self._dtype is not None else model
