#!/usr/bin/python3
"""Checks every problem defined by a PyTorch module under DIR (docs/pytorch-problems.md §5).

Usage: /usr/bin/python3 worker/oracle/check_problems.py DIR [--json FILE] [--only NAME]...
       /usr/bin/python3 worker/oracle/check_problems.py DIR --regimes | --write-regimes [...]

A module problem is a folder whose problem.toml has [reference] module = "...". For each:
  1. at every test shape: the module builds with the shape's [module].globals, the float64 oracle
     result (ModuleProblem.run in the spec's precision) has the spec's output shapes, and float32
     PyTorch agrees with it within the spec's [tolerance] on random inputs drawn per the spec's
     `init` (input_scale applied), i.e. the tolerance admits an honest float32 kernel;
  2. on a GPU (when torch.cuda.is_available(), unless --no-gpu): the bench shape runs once in
     float32 and once in the declared bench precision (bench_precision, else precision) without
     running out of memory (peak memory reported), and where the two differ, float32 PyTorch
     agrees with the declared precision within the spec's tolerance there too (`compare`).
A problem flagged `# gpu-only-check:` by the importer (its test shapes are too big for a CPU in
float64, e.g. level3/1_MLP's 16384 x 16384 weights) gets check 1 on the GPU instead (TF32 off,
so float32 means float32); without a GPU it is reported as "skip", not as passed.
Prints one line per problem and a summary; --json FILE writes every result, rewritten after each
problem ("complete": false until the last one), so a run cut short keeps what it checked. Exit status: 0 when
every problem passed, 1 when any failed, 2 on bad usage or no module problem under DIR.
It never needs a GPU (GPU-only problems are then "skip"); on a GPU host run it after the
importer to check all 250. Exit status 1 needs a failure: a skip is not one.

--regimes (instead of checks 1 and 2): which input regimes each problem admits, by the rule of
problems/README.md "Input regimes" (admit_regimes: at every test shape the oracle finite and
float32 PyTorch within tolerance on inputs drawn in the regime; float32 finite at the bench
shape where that fits a CPU), one line per regime with the worst distance in tolerance units or
why it was refused. --write-regimes also writes the admitted list into each problem.toml
(with_regimes: the top-level `regimes = [...]` line and its comment, nothing else). The
KernelBench importer calls admit_regimes for every problem it imports.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import time
import tomllib
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))

import torch  # noqa: E402

from kjudge_oracle import torch_compat  # noqa: E402
from kjudge_oracle.module_problem import ModuleProblem, ModuleProblemError  # noqa: E402
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402

from kjudge_oracle.spec_tools import (FLOAT_DTYPES, REGIMES, TORCH_DTYPES, compare,  # noqa: E402
                                      draw, eval_size_expr, shape_of, sizes_of)


class CheckFailed(Exception):
    """One check of one problem failed; the message names the shape and tensor."""


def load(problem_dir: Path) -> Dict[str, Any]:
    with open(problem_dir / "problem.toml", "rb") as f:
        return tomllib.load(f)


def _label(shape: Dict[str, Any]) -> str:
    label = ",".join(f"{k}={v}" for k, v in shape.items() if k != "input_scale")
    return label + (f",scale={shape['input_scale']:g}" if shape.get("input_scale", 1) != 1 else "")


def _inputs(spec: Dict[str, Any], sizes: Dict[str, int], scale: float, device: Any, seed: int,
            regime: str = "declared"):
    """(forward args, state dict) drawn per the spec at `sizes`, in input regime `regime`."""
    gen = torch.Generator(device=device).manual_seed(seed)
    module = spec["module"]
    by_name = {t["name"]: t for t in spec["tensor"]}
    drawn = {}
    for t in spec["tensor"]:
        if t["role"] == "in":
            drawn[t["name"]] = draw(t["dtype"], t["init"], shape_of(t["shape"], sizes), scale,
                                    gen, device, regime)
    forward = [drawn[n] for n in module["forward"]]
    state = {key: drawn[n] for key, n in module.get("parameters", {}).items()}
    missing = set(drawn) - set(module["forward"]) - set(module.get("parameters", {}).values())
    if missing or any(n not in by_name for n in module["outputs"]):
        raise CheckFailed(f"[module] does not bind every tensor exactly once (unbound: "
                          f"{sorted(missing)})")
    return forward, state


GPU_ONLY_MARK = "# gpu-only-check:"  # written by deploy/kernelbench/import_kernelbench.py


def is_gpu_only(problem_dir: Path) -> bool:
    """True when the importer could not run the test shapes on the CPU (mark_gpu_only)."""
    text = (problem_dir / "problem.toml").read_text()
    return any(line.startswith(GPU_ONLY_MARK) for line in text.splitlines())


def check_test_shape(spec, source, filename, shape, device: str = "cpu") -> float:
    sizes = sizes_of(shape)
    scale = float(shape.get("input_scale", 1.0))
    module = spec["module"]
    overrides = {g: sizes[g] for g in module.get("globals", [])}
    mp = ModuleProblem(source, filename, overrides, device=torch.device(device))
    forward, state = _inputs(spec, sizes, scale, device, seed=7)
    precision = TORCH_DTYPES[module.get("precision", "f64")]
    ref = mp.run(forward, state, precision)
    got = mp.run(forward, state, torch.float32)
    outs = {t["name"]: t for t in spec["tensor"] if t["role"] == "out"}
    if len(ref) != len(module["outputs"]):
        raise CheckFailed(f"{_label(shape)}: forward returned {len(ref)} outputs, the spec "
                          f"binds {len(module['outputs'])}")
    for name, r in zip(module["outputs"], ref):
        want = shape_of(outs[name]["shape"], sizes)
        if tuple(r.shape) != want:
            raise CheckFailed(f"{_label(shape)}: output {name} has shape {tuple(r.shape)}, the "
                              f"spec says {want}")
    worst, failed = compare_outputs(spec, got, ref)
    if failed:
        raise CheckFailed(f"{_label(shape)}: {failed}")
    return worst


def compare_outputs(spec, got: List[torch.Tensor], ref: List[torch.Tensor]) -> Tuple[float, str]:
    """float32 PyTorch's outputs against the oracle's, with the spec's tolerance: the largest
    distance in units of the tolerance (<= 1 passes), and "" or what failed."""
    tol = spec["tolerance"]
    outs = {t["name"]: t for t in spec["tensor"] if t["role"] == "out"}
    worst = 0.0
    for name, g, r in zip(spec["module"]["outputs"], got, ref):
        ok, w = compare(g, r.to(TORCH_DTYPES[outs[name]["dtype"]]), tol["atol"], tol["rtol"],
                        tol["rel_l2"])
        worst = max(worst, w)
        if not ok:
            return worst, (f"float32 PyTorch's {name} is {w:.3g} x the tolerance away from the "
                           "oracle")
    return worst, ""


# The bench-shape float32 finiteness check of the regimes runs only where it is cheap on a CPU.
BENCH_MAX_ELEMENTS = 1 << 26   # input elements (parameters included) at the bench shape
BENCH_MAX_FLOPS = 4e9          # the spec's [cost] flops and the forward's matmul/conv flops
                               # (~0.5 CPU s a run: 6 regimes x the importer's 250 problems)


def _problem_at(spec, source, filename, shape, device: str) -> ModuleProblem:
    """reference.py built at `shape` (its [module].globals) on `device`."""
    sizes = sizes_of(shape)
    overrides = {g: sizes[g] for g in spec["module"].get("globals", [])}
    return ModuleProblem(source, filename, overrides, device=torch.device(device))


def regimes_at_shape(spec, source, filename, shape, device: str,
                     verdicts: Dict[str, Dict[str, Any]]) -> None:
    """One test shape of the admission rule (problems/README.md "Input regimes") for every regime
    in `verdicts` not yet refused: raises its "worst" (distance of float32 PyTorch from the oracle
    in units of the tolerance; inf: not finite) and sets "reason" where it is refused here. The
    module is built once and cast once (float64 runs of every regime first, then float32), so
    constants it keeps never pass through float32 before an oracle run."""
    live = [r for r, v in verdicts.items() if not v["reason"]]
    if not live:
        return
    mp = _problem_at(spec, source, filename, shape, device)
    sizes, scale = sizes_of(shape), float(shape.get("input_scale", 1.0))
    precision = TORCH_DTYPES[spec["module"].get("precision", "f64")]
    runs = {}
    for regime in live:
        try:
            forward, state = _inputs(spec, sizes, scale, device, 7, regime)
            runs[regime] = (forward, state, mp.run(forward, state, precision))
        except (ModuleProblemError, RuntimeError, ValueError) as exc:
            verdicts[regime]["reason"] = f"{_label(shape)}: {type(exc).__name__}: {str(exc)[:200]}"
    for regime, (forward, state, ref) in runs.items():
        verdict = verdicts[regime]
        bad = [n for n, r in zip(spec["module"]["outputs"], ref)
               if r.is_floating_point() and not bool(torch.isfinite(r).all())]
        if bad:
            verdict["worst"] = math.inf
            verdict["reason"] = f"the float64 reference's {bad[0]} is not finite at {_label(shape)}"
            continue
        try:
            worst, failed = compare_outputs(spec, mp.run(forward, state, torch.float32), ref)
        except (ModuleProblemError, RuntimeError, ValueError) as exc:
            worst, failed = math.inf, f"float32 run failed: {type(exc).__name__}: {str(exc)[:200]}"
        verdict["worst"] = max(verdict["worst"], worst)
        if failed:
            verdict["reason"] = f"{_label(shape)}: {failed}"


def bench_fits_cpu(spec, source: str, filename: str) -> Tuple[bool, str]:
    """Whether the bench-shape finiteness check is cheap enough for a CPU, and if not why: the
    inputs fit BENCH_MAX_ELEMENTS, and both the spec's [cost] flops and the float32 forward's
    own (counted on the meta device: level1/12's diag(A) @ B does N^2 M, its spec says N M)
    fit BENCH_MAX_FLOPS."""
    sizes = sizes_of(spec["bench_shapes"][0])
    elements = sum(math.prod(shape_of(t["shape"], sizes)) for t in spec["tensor"]
                   if t["role"] == "in")
    if elements > BENCH_MAX_ELEMENTS:
        return False, f"bench inputs have {elements:,} elements (> 2^26)"
    flops_expr = spec.get("cost", {}).get("flops")
    flops = float(eval_size_expr(flops_expr, sizes)) if flops_expr else 0.0
    if flops <= BENCH_MAX_FLOPS:
        flops = max(flops, meta_flops(spec, source, filename, sizes))
    if flops > BENCH_MAX_FLOPS:
        return False, f"bench shape costs {flops:.3g} flops (> {BENCH_MAX_FLOPS:.0e})"
    return True, ""


class _MatmulFlops(TorchDispatchMode):
    """2 x MACs of the matmuls and convolutions a forward dispatches (the rest is cheap)."""

    def __init__(self):
        super().__init__()
        self.flops = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        name = func.overloadpacket.__name__
        first = out[0] if isinstance(out, (tuple, list)) else out
        if name in ("mm", "bmm", "addmm", "baddbmm", "mv", "dot"):
            a = args[1] if name in ("addmm", "baddbmm") else args[0]
            self.flops += 2 * a.shape[-1] * max(first.numel(), 1)
        elif "convolution" in name and isinstance(first, torch.Tensor):
            w = args[1]
            self.flops += 2 * max(first.numel(), args[0].numel()) * math.prod(w.shape[1:])
        return out


def meta_flops(spec, source: str, filename: str, sizes: Dict[str, int]) -> float:
    """The matmul / convolution flops of the module's forward at `sizes`, counted on the meta
    device (no memory, no arithmetic); inf when the module cannot run there."""
    module = spec["module"]
    try:
        mp = ModuleProblem(source, filename, {g: sizes[g] for g in module.get("globals", [])},
                           device=torch.device("meta"))
        by_name = {t["name"]: t for t in spec["tensor"]}
        args = [torch.empty(shape_of(by_name[n]["shape"], sizes), device="meta",
                            dtype=torch.float32 if by_name[n]["dtype"] in FLOAT_DTYPES else
                            TORCH_DTYPES[by_name[n]["dtype"]]) for n in module["forward"]]
        counter = _MatmulFlops()
        with torch.no_grad(), counter:
            mp.model.float()(*args)
        return float(counter.flops)
    except Exception:  # noqa: BLE001 - any failure: too unknown to run on a CPU
        return math.inf


def regimes_at_bench(spec, source, filename, verdicts: Dict[str, Dict[str, Any]]) -> None:
    """The bench-shape part of the rule for every regime in `verdicts` not yet refused: float32
    PyTorch's outputs must be finite there (CPU; the module is built once)."""
    live = [r for r, v in verdicts.items() if not v["reason"]]
    if not live:
        return
    shape = spec["bench_shapes"][0]
    mp = _problem_at(spec, source, filename, shape, "cpu")
    for regime in live:
        try:
            forward, state = _inputs(spec, sizes_of(shape), 1.0, "cpu", 7, regime)
            outs = mp.run(forward, state, torch.float32)
        except (ModuleProblemError, RuntimeError, ValueError) as exc:
            verdicts[regime]["reason"] = (f"at the bench shape: {type(exc).__name__}: "
                                          f"{str(exc)[:200]}")
            continue
        for name, out in zip(spec["module"]["outputs"], outs):
            if out.is_floating_point() and not bool(torch.isfinite(out).all()):
                verdicts[regime]["reason"] = (f"float32 PyTorch's {name} is not finite at the "
                                              f"bench shape {_label(shape)}")
                break


def admit_regimes(spec, source, filename, device: str = "cpu",
                  bench: bool = True) -> Dict[str, Dict[str, Any]]:
    """The admission rule of problems/README.md "Input regimes", for each of REGIMES:
    {"admitted": bool, "worst": largest distance in tolerance units over the test shapes
    (inf: not finite), "reason": why not, or a note}. A regime is admitted when at every test
    shape the oracle's outputs are finite and float32 PyTorch is within the tolerance of them on
    inputs drawn in that regime, and (bench=True, where bench_fits_cpu) float32 PyTorch stays
    finite at the bench shape. A problem without a float input its regimes change admits none."""
    if not any(t["role"] == "in" and t["dtype"] in ("f32", "f64", "f16", "bf16") and
               t["init"].get("scalable", True) for t in spec["tensor"]):
        return {r: {"admitted": False, "worst": 0.0,
                    "reason": "no float input with a scalable init: the regime changes nothing"}
                for r in REGIMES}
    fits, why_not = (bench_fits_cpu(spec, source, filename) if bench else
                     (False, "bench check not asked for"))
    verdicts: Dict[str, Dict[str, Any]] = {r: {"admitted": False, "worst": 0.0, "reason": ""}
                                           for r in REGIMES}
    try:
        for shape in spec["test_shapes"]:
            regimes_at_shape(spec, source, filename, shape, device, verdicts)
        if fits:
            regimes_at_bench(spec, source, filename, verdicts)
    except ModuleProblemError as exc:  # the module does not build: nothing is admitted
        for v in verdicts.values():
            v["reason"] = v["reason"] or str(exc)[:300]
    for v in verdicts.values():
        v["admitted"] = not v["reason"]
        if v["admitted"] and not fits:
            v["reason"] = f"bench-shape finiteness not checked: {why_not}"
    return verdicts


def admitted_list(regimes: Dict[str, Dict[str, Any]]) -> List[str]:
    return [r for r in REGIMES if regimes[r]["admitted"]]


REGIMES_COMMENT = ('# Decided by worker/oracle/check_problems.py --write-regimes '
                   '(problems/README.md "Input regimes").')


# A regime a GPU catalog run refused at the bench shape (an honest example failed there; the CPU
# sees only the small test shapes): a comment line right above `regimes`, kept by with_regimes.
GPU_REFUSAL = re.compile(r"^# Not '([a-z]+)', refused by the GPU")


def with_regimes(text: str, admitted: Sequence[str]) -> str:
    """problem.toml's text with its top-level `regimes = [...]` line (and the comment above it)
    set to `admitted`: replaced where it is, else inserted after `example` or, without one,
    after `bench_shapes`. Every other byte is kept; ValueError when the file has no top-level
    bench_shapes or the result does not parse back to `admitted`."""
    lines = text.splitlines(keepends=True)
    in_string, depth, after_bench, after_example, old = False, 0, None, None, None
    for i, line in enumerate(lines):
        starts_in_string = in_string
        if line.count('"""') % 2:
            in_string = not in_string
        if starts_in_string:
            continue
        if line.startswith("["):  # the first table: the top level ends
            break
        code = line.split("#", 1)[0]
        if line.startswith("bench_shapes"):
            depth = 0
            after_bench = i
        if after_bench is not None and depth > 0:
            after_bench = i
        if line.startswith("bench_shapes") or depth > 0:
            depth += code.count("[") - code.count("]")
        if line.startswith("example ") or line.startswith("example="):
            after_example = i
        if line.startswith("regimes ") or line.startswith("regimes="):
            old = i
    # A GPU run's refusals (GPU_REFUSAL: "# Not 'large', refused by the GPU ...") sit right above
    # the line; they are kept, and their regimes stay out whatever the CPU admits.
    start, notes = old, []
    while start is not None and start > 0 and GPU_REFUSAL.match(lines[start - 1]):
        start -= 1
        notes.insert(0, lines[start])
    refused = {GPU_REFUSAL.match(n).group(1) for n in notes}
    admitted = [r for r in admitted if r not in refused]
    new = [REGIMES_COMMENT + "\n", *notes, f"regimes = {json.dumps(list(admitted))}\n"]
    if old is not None:
        if start > 0 and lines[start - 1].rstrip("\n") == REGIMES_COMMENT:
            start -= 1
        lines[start:old + 1] = new
    elif after_bench is None:
        raise ValueError("no top-level bench_shapes to put regimes after")
    else:
        at = (after_example if after_example is not None else after_bench) + 1
        lines[at:at] = new
    result = "".join(lines)
    if tomllib.loads(result).get("regimes") != list(admitted):
        raise ValueError("the regimes line did not parse back")
    return result


def check_regimes(problem_dir: Path, root: Path, use_gpu: bool, write: bool) -> Dict[str, Any]:
    """--regimes / --write-regimes for one problem: admit_regimes' verdicts (and the file
    rewritten when `write`)."""
    started = time.time()
    entry: Dict[str, Any] = {"problem": str(problem_dir.relative_to(root)), "ok": False}
    try:
        spec = load(problem_dir)
        entry["problem"] = spec.get("name", entry["problem"])
        source = (problem_dir / spec["reference"]["module"]).read_text()
        filename = f"{entry['problem']}/{spec['reference']['module']}"
        gpu_only = is_gpu_only(problem_dir)
        if gpu_only and not use_gpu:
            entry["skip"] = "GPU-only check: test shapes too big for the CPU; run on a GPU host"
        else:
            entry["regimes"] = admit_regimes(spec, source, filename,
                                             "cuda" if gpu_only else "cpu", bench=not gpu_only)
            entry["admitted"] = admitted_list(entry["regimes"])
            entry["ok"] = True
            if write:
                path = problem_dir / "problem.toml"
                text = path.read_text()
                updated = with_regimes(text, entry["admitted"])
                if updated != text:
                    path.write_text(updated)
                    entry["written"] = True
    except (CheckFailed, ModuleProblemError, KeyError, ValueError, OSError,
            tomllib.TOMLDecodeError) as exc:
        entry["error"] = f"{type(exc).__name__}: {exc}"
    entry["seconds"] = round(time.time() - started, 2)
    return entry


def print_regimes(r: Dict[str, Any]) -> None:
    """One line per problem (the admitted list), then one per regime with its reason."""
    verdict = "skip" if "skip" in r else "ok" if r["ok"] else "FAIL"
    admitted = json.dumps(r.get("admitted")) if r["ok"] else r.get("error", r.get("skip", ""))
    print(f"{r['problem']:60} {verdict:5} {r['seconds']:6.1f}s  regimes = {admitted}"
          f"{'  (written)' if r.get('written') else ''}", flush=True)
    for name, v in r.get("regimes", {}).items():
        worst = "inf" if math.isinf(v["worst"]) else f"{v['worst']:.3f}"
        print(f"    {name:9} {'admitted' if v['admitted'] else 'refused':8} worst {worst:>7}  "
              f"{v['reason']}", flush=True)


def check_bench_gpu(spec, source, filename) -> Dict[str, Any]:
    module = spec["module"]
    shape = spec["bench_shapes"][0]
    sizes = sizes_of(shape)
    overrides = {g: sizes[g] for g in module.get("globals", [])}
    declared = module.get("bench_precision", module.get("precision", "f64"))
    result: Dict[str, Any] = {}
    f32_outputs: List[torch.Tensor] = []  # kept on the GPU for the comparison below
    for label, dtype in (("f32", torch.float32), (declared, TORCH_DTYPES[declared])):
        if label in result:
            continue
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
        try:
            mp = ModuleProblem(source, filename, overrides, device=torch.device("cuda"))
            forward, state = _inputs(spec, sizes, 1.0, "cuda", seed=7)
            t0 = time.time()
            outputs = mp.run(forward, state, dtype)
            torch.cuda.synchronize()
            result[label] = {"ok": True, "seconds": round(time.time() - t0, 3),
                             "peak_gb": round(torch.cuda.max_memory_allocated() / 1e9, 2)}
            if label == "f32":
                f32_outputs = outputs
            elif result.get("f32", {}).get("ok"):  # nothing to compare when float32 failed
                result["compare"] = compare_bench(spec, f32_outputs, outputs)
        except (RuntimeError, ModuleProblemError) as exc:  # OOM is a RuntimeError in 1.13
            result[label] = {"ok": False, "error": str(exc)[:300]}
        finally:
            mp = forward = state = outputs = None  # noqa: F841 - free before the next precision
            torch.cuda.empty_cache()
    return result


def compare_bench(spec, got: List[torch.Tensor], ref: List[torch.Tensor]) -> Dict[str, Any]:
    """compare_outputs at the bench shape: the judge checks every timed sample there, so a
    tolerance that float32 PyTorch itself misses at the bench shape (longer reductions than any
    test shape) would fail an honest float32 kernel (and the judge drops such a torch_eager
    baseline)."""
    worst, failed = compare_outputs(spec, got, ref)
    if failed:
        return {"ok": False, "worst": round(worst, 3), "error": f"{failed} at the bench shape"}
    return {"ok": True, "worst": round(worst, 3)}


def check_problem(problem_dir: Path, root: Path, use_gpu: bool) -> Dict[str, Any]:
    name = str(problem_dir.relative_to(root))
    started = time.time()
    entry: Dict[str, Any] = {"problem": name, "ok": False, "shapes": 0, "worst": 0.0}
    try:
        spec = load(problem_dir)
        entry["problem"] = spec.get("name", name)
        source = (problem_dir / spec["reference"]["module"]).read_text()
        filename = f"{spec.get('name', name)}/{spec['reference']['module']}"
        entry["gpu_only"] = is_gpu_only(problem_dir)
        if entry["gpu_only"] and not use_gpu:
            entry["skip"] = "GPU-only check: test shapes too big for the CPU; run on a GPU host"
            entry["seconds"] = round(time.time() - started, 2)
            return entry
        device = "cuda" if entry["gpu_only"] else "cpu"
        for shape in spec["test_shapes"]:
            entry["worst"] = max(entry["worst"],
                                 check_test_shape(spec, source, filename, shape, device))
            entry["shapes"] += 1
            if device == "cuda":
                torch.cuda.empty_cache()
        if use_gpu:
            entry["gpu"] = check_bench_gpu(spec, source, filename)
            bad = [k for k, v in entry["gpu"].items() if not v["ok"]]
            if bad:
                raise CheckFailed(f"bench shape on the GPU failed in {', '.join(bad)}: "
                                  f"{entry['gpu'][bad[0]]['error']}")
        entry["ok"] = True
    except (CheckFailed, ModuleProblemError, KeyError, ValueError, OSError,
            tomllib.TOMLDecodeError) as exc:
        entry["error"] = f"{type(exc).__name__}: {exc}" if not isinstance(
            exc, (CheckFailed, ModuleProblemError)) else str(exc)
    entry["seconds"] = round(time.time() - started, 2)
    return entry


def module_problems(root: Path) -> List[Path]:
    found = []
    for toml_path in sorted(root.rglob("problem.toml")):
        try:
            with open(toml_path, "rb") as f:
                spec = tomllib.load(f)
        except (OSError, tomllib.TOMLDecodeError):
            found.append(toml_path.parent)  # reported as a failure by check_problem
            continue
        if "module" in spec.get("reference", {}):
            found.append(toml_path.parent)
    return found


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="check_problems.py", description=__doc__.split(
        "\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example: /usr/bin/python3 worker/oracle/check_problems.py problems/kernelbench "
               "--json /tmp/check.json")
    parser.add_argument("dir", metavar="DIR", type=Path, help="a folder of problem folders")
    parser.add_argument("--json", metavar="FILE", type=Path, help="write every result here")
    parser.add_argument("--only", action="append", default=[],
                        help="check only problems whose name contains this (repeatable)")
    parser.add_argument("--no-gpu", action="store_true", help="skip the bench-shape GPU run")
    parser.add_argument("--regimes", action="store_true",
                        help="instead of the checks above: which input regimes each problem "
                             "admits (problems/README.md), with the reason for each")
    parser.add_argument("--write-regimes", action="store_true",
                        help="--regimes, and write the admitted list into each problem.toml")
    args = parser.parse_args(argv)
    if not args.dir.is_dir():
        print(f"check_problems.py: {args.dir} is not a folder", file=sys.stderr)
        return 2
    torch_compat.install()
    problems = [p for p in module_problems(args.dir)
                if not args.only or any(o in str(p) for o in args.only)]
    if not problems:
        print(f"check_problems.py: no problem with [reference] module under {args.dir}",
              file=sys.stderr)
        return 2
    use_gpu = torch.cuda.is_available() and not args.no_gpu
    if use_gpu:  # float32 means float32: TF32 would fail honest tolerances (GPU-only checks)
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    if args.regimes or args.write_regimes:
        return run_regimes(problems, args, use_gpu)
    print(f"{'problem':70} {'result':6} {'shapes':>6} {'worst':>7} {'s':>6}  gpu/error")
    results = []
    for p in problems:
        r = check_problem(p, args.dir, use_gpu)
        results.append(r)
        if args.json:
            write_json(args.json, results, use_gpu, complete=len(results) == len(problems))
        gpu = " ".join(f"{k}:{'ok' if v['ok'] else 'FAIL'}" +
                       (f"({v['peak_gb']} GB)" if "peak_gb" in v else f"({v.get('worst', '-')})")
                       for k, v in r.get("gpu", {}).items())
        verdict = "skip" if "skip" in r else "ok" if r["ok"] else "FAIL"
        print(f"{r['problem']:70} {verdict:6} {r['shapes']:6d} "  # whole name: grep-able
              f"{r['worst']:7.3f} {r['seconds']:6.1f}  {r.get('error', r.get('skip', gpu))}",
              flush=True)
    counts = tally(results)
    print(f"\n{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped "
          f"(GPU-only checks, no GPU) of {len(results)} module problems "
          f"({'with' if use_gpu else 'without'} the GPU bench check)")
    return 1 if counts["failed"] else 0


def run_regimes(problems: List[Path], args: argparse.Namespace, use_gpu: bool) -> int:
    """--regimes / --write-regimes over `problems`; exit status as main's."""
    results = []
    for p in problems:
        r = check_regimes(p, args.dir, use_gpu, args.write_regimes)
        results.append(r)
        if args.json:
            write_json(args.json, results, use_gpu, complete=len(results) == len(problems))
        print_regimes(r)
    counts = tally(results)
    print(f"\n{counts['passed']} decided, {counts['failed']} failed, {counts['skipped']} skipped "
          f"(GPU-only, no GPU) of {len(results)} module problems")
    return 1 if counts["failed"] else 0


def tally(results: List[dict]) -> Dict[str, int]:
    """passed / failed / skipped (a skip is not a failure) of `results`."""
    skipped = sum(1 for r in results if "skip" in r)
    failed = sum(1 for r in results if not r["ok"] and "skip" not in r)
    return {"passed": len(results) - failed - skipped, "failed": failed, "skipped": skipped}


def write_json(path: Path, results: List[dict], use_gpu: bool, complete: bool) -> None:
    """The results so far, replacing `path` atomically (a reader never sees half a file)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"complete": complete, **tally(results), "gpu": use_gpu,
                               "problems": results}, indent=1))
    os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
