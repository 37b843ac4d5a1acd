#!/usr/bin/env python3
"""Checks the PyTorch module (reference.py) of every catalog problem that has one, on the CPU.

For every problems/<level>/<name>/problem.toml with a [module] section (docs/pytorch-problems.md
section 1) this script checks, without a GPU:
  * the binding: [reference].module names an existing file; [module].globals are sizes of the
    spec and int globals of reference.py whose values are the first bench shape's; every "in"
    tensor is in `forward` or a value of [module.parameters] exactly once, every "out" tensor
    is in `outputs` exactly once;
  * at every TEST shape: get_inputs() returns tensors of the spec's shapes; the module, built and
    run through worker/oracle/kjudge_oracle/module_problem.py (the oracle's own binding code) at
    precision "f64" on inputs drawn from the spec's init by kjudge_oracle/spec_tools.py (the
    judge's distribution, input_scale and transform applied), returns one
    tensor per output with the spec's shape and kind (integer or float);
  * the f64 result agrees with a float32 run of the same module within the spec's tolerance:
    spec_tools.compare, the judge's rule (common/output_comparison.h).
A test shape whose [cost] flops exceed --max-flops (an estimate of > 2 s on a CPU) is skipped
with a printed SKIP line; a shape that nevertheless runs longer than --max-shape-seconds is
reported. Exit status: 0 all passed, 1 a check failed, 77 torch is not importable (CTest's
skip code).

Usage: /usr/bin/python3 tests/catalog/check_module_refs.py [--problems DIR] [--only SUBSTRING]
"""
from __future__ import annotations

import argparse
import pathlib
import sys
import time
from typing import Any, Dict, Mapping, Sequence

try:
    import tomllib
except ImportError:  # Python < 3.11
    print("SKIP: tomllib needs Python 3.11 or later; run with /usr/bin/python3 on Debian 12")
    sys.exit(77)

REPO = pathlib.Path(__file__).resolve().parents[2]
SKIP_CODE = 77
spec_tools: Any = None  # kjudge_oracle.spec_tools, imported by main() once torch is known


class CheckError(Exception):
    """One failed check of one problem (the message says what, where and what was expected)."""


def evaluate(text: Any, bindings: Mapping[str, Any]) -> Any:
    """A spec expression (kjudge_oracle.spec_tools.eval_size_expr), errors as CheckError."""
    try:
        return spec_tools.eval_size_expr(text, bindings)
    except ValueError as exc:
        raise CheckError(str(exc)) from exc


# --- the checks -----------------------------------------------------------------------------
def check_binding(spec: Dict[str, Any], module: Dict[str, Any], namespace: Dict[str, Any]) -> None:
    """The [module] section against the spec's tensors and sizes and reference.py's globals."""
    ins = [t["name"] for t in spec["tensor"] if t["role"] == "in"]
    outs = [t["name"] for t in spec["tensor"] if t["role"] == "out"]
    params = dict(module.get("parameters", {}))
    bound = list(module.get("forward", [])) + list(params.values())
    if sorted(bound) != sorted(ins):
        raise CheckError(f"[module] forward + parameters {bound} must name every \"in\" tensor "
                         f"{ins} exactly once")
    if sorted(module.get("outputs", [])) != sorted(outs):
        raise CheckError(f"[module] outputs {module.get('outputs')} must name every \"out\" "
                         f"tensor {outs} exactly once")
    bench = spec["bench_shapes"][0]
    for size in module.get("globals", []):
        if size not in spec["sizes"]:
            raise CheckError(f"[module] globals names '{size}', which is not a size of the spec")
        value = namespace.get(size)
        if value != bench[size]:
            raise CheckError(f"reference.py's global {size} = {value!r}, expected the first bench "
                             f"shape's value {bench[size]}")
    for key in ("precision", "bench_precision"):
        if module.get(key, "f64") not in ("f64", "f32"):
            raise CheckError(f"[module] {key} must be \"f64\" or \"f32\", got {module[key]!r}")


def compare(name: str, ref: Any, act: Any, tol: Mapping[str, float]) -> str:
    """The judge's rule (kjudge_oracle.spec_tools.compare), f32 run (act) against the f64 run
    (ref); returns a summary, raises CheckError beyond the tolerance."""
    ok, worst = spec_tools.compare(act, ref, tol["atol"], tol["rtol"], tol["rel_l2"])
    if not ok:
        raise CheckError(f"{name}: the f32 run differs from the f64 run by {worst:.3g} x the "
                         f"spec's tolerance (atol + rtol*|ref| elementwise, rel_l2 overall; "
                         "non-finite values fail)")
    diff = (act.double() - ref.double()).abs()
    return f"{name} max|d| {float(diff.max()) if diff.numel() else 0.0:.2g} worst {worst:.2g}"


def check_shape(torch: Any, mp_mod: Any, spec: Dict[str, Any], source: str, filename: str,
                shape: Dict[str, Any], seed: int) -> str:
    module = spec["module"]
    sizes = {k: v for k, v in shape.items() if k != "input_scale"}
    bindings = dict(sizes)
    bindings.update({s["name"]: s["value"] for s in spec.get("scalar", [])})
    shapes = {t["name"]: [int(evaluate(e, bindings)) for e in t["shape"]] for t in spec["tensor"]}
    overrides = {g: sizes[g] for g in module.get("globals", [])}
    tensors = {t["name"]: t for t in spec["tensor"]}
    problem64 = mp_mod.ModuleProblem(source, filename, overrides)
    problem32 = mp_mod.ModuleProblem(source, filename, overrides)
    sample = problem64.sample_inputs()
    forward = list(module.get("forward", []))
    if [list(t.shape) for t in sample] != [shapes[n] for n in forward]:
        raise CheckError(f"get_inputs() returns shapes {[list(t.shape) for t in sample]}, the spec's "
                         f"{forward} are {[shapes[n] for n in forward]}")
    gen = torch.Generator().manual_seed(seed)
    scale = float(shape.get("input_scale", 1.0))
    values = {n: spec_tools.draw(tensors[n]["dtype"], tensors[n]["init"], shapes[n], scale, gen)
              for n in forward + list(module.get("parameters", {}).values())}
    inputs = [values[n] for n in forward]
    state = {key: values[n] for key, n in module.get("parameters", {}).items()}
    out64 = problem64.run(inputs, state, torch.float64)
    out32 = problem32.run(inputs, state, torch.float32)
    names = list(module["outputs"])
    if len(out64) != len(names):
        raise CheckError(f"forward returned {len(out64)} tensors, [module] outputs names {names}")
    notes = []
    for name, r64, r32 in zip(names, out64, out32):
        if list(r64.shape) != shapes[name]:
            raise CheckError(f"output {name}: shape {list(r64.shape)}, the spec's is {shapes[name]}")
        want_float = tensors[name]["dtype"] in ("f32", "f64", "f16", "bf16")
        if r64.is_floating_point() != want_float:
            raise CheckError(f"output {name}: dtype {r64.dtype}, the spec's is {tensors[name]['dtype']}")
        notes.append(compare(name, r64, r32, spec["tolerance"]))
    return "; ".join(notes)


def check_problem(torch: Any, mp_mod: Any, toml_path: pathlib.Path, args: argparse.Namespace) -> bool:
    rel = toml_path.parent.relative_to(args.problems)
    spec = tomllib.loads(toml_path.read_text())
    module_file = spec.get("reference", {}).get("module")
    if not module_file:
        print(f"FAIL {rel}: [module] present but [reference].module is not set")
        return False
    path = toml_path.parent / module_file
    if not path.is_file():
        print(f"FAIL {rel}: [reference].module names {module_file}, which does not exist")
        return False
    source = path.read_text()
    try:  # the binding, against reference.py's globals as written (the bench shape)
        check_binding(spec, spec["module"], mp_mod.load_namespace(source, str(path), {}))
    except (CheckError, mp_mod.ModuleProblemError) as exc:
        print(f"FAIL {rel}: {exc}")
        return False
    ok = True
    started = time.monotonic()
    for index, shape in enumerate(spec["test_shapes"]):
        label = ",".join(f"{k}={v}" for k, v in shape.items())
        flops = spec.get("cost", {}).get("flops")
        if flops is not None:
            bindings = {k: v for k, v in shape.items() if k != "input_scale"}
            bindings.update({s["name"]: s["value"] for s in spec.get("scalar", [])})
            estimate = float(evaluate(flops, bindings))
            if estimate > args.max_flops:
                print(f"SKIP {rel} [{label}]: {estimate:.3g} flops would take more than ~2 s on a CPU")
                continue
        t0 = time.monotonic()
        try:
            note = check_shape(torch, mp_mod, spec, source, str(path), shape, seed=index)
        except (CheckError, mp_mod.ModuleProblemError) as exc:
            print(f"FAIL {rel} [{label}]: {exc}")
            ok = False
            continue
        took = time.monotonic() - t0
        if took > args.max_shape_seconds:
            print(f"SLOW {rel} [{label}]: {took:.1f} s (limit {args.max_shape_seconds} s)")
            ok = False
        if args.verbose:
            print(f"  ok {rel} [{label}] {took * 1000:.0f} ms: {note}")
    if ok:
        print(f"ok   {rel} ({len(spec['test_shapes'])} shapes, {time.monotonic() - started:.2f} s)")
    return ok


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--problems", type=pathlib.Path, default=REPO / "problems",
                        help="catalog root (default: the repository's problems/)")
    parser.add_argument("--only", default="", help="check only problems whose path contains this")
    parser.add_argument("--max-flops", type=float, default=2e9,
                        help="skip a test shape whose [cost] flops exceed this (default 2e9)")
    parser.add_argument("--max-shape-seconds", type=float, default=2.0,
                        help="report a shape that takes longer than this (default 2)")
    parser.add_argument("--verbose", action="store_true", help="one line per shape with errors")
    args = parser.parse_args(argv)
    try:
        import torch  # noqa: PLC0415 - optional: CI without python3-torch skips visibly
    except ImportError:
        print(f"SKIP: torch is not importable by {sys.executable}; install python3-torch "
              "(Debian) or run with an interpreter that has it")
        return SKIP_CODE
    sys.path.insert(0, str(REPO / "worker" / "oracle"))
    from kjudge_oracle import module_problem, spec_tools as tools  # noqa: PLC0415 - path above
    global spec_tools  # noqa: PLW0603 - imported here so a missing torch is a visible SKIP
    spec_tools = tools
    torch.set_num_threads(max(1, min(2, torch.get_num_threads())))
    files = sorted(p for p in args.problems.glob("*/*/problem.toml") if args.only in str(p))
    started = time.monotonic()
    checked = failed = 0
    for toml_path in files:
        if "module" not in tomllib.loads(toml_path.read_text()):
            continue
        checked += 1
        if not check_problem(torch, module_problem, toml_path, args):
            failed += 1
    print(f"{checked} problems with a module checked, {failed} failed, "
          f"{time.monotonic() - started:.1f} s (torch {torch.__version__})")
    if checked == 0:
        print(f"FAIL: no problem under {args.problems} has a [module] section")
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
