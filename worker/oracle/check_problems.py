#!/usr/bin/python3
"""Checks every problem defined by a PyTorch module under DIR (docs/pytorch-problems.md §5).

Usage: /usr/bin/python3 worker/oracle/check_problems.py DIR [--json FILE] [--only NAME]...

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
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import tomllib
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))

import torch  # noqa: E402

from kjudge_oracle import torch_compat  # noqa: E402
from kjudge_oracle.module_problem import ModuleProblem, ModuleProblemError  # noqa: E402
from kjudge_oracle.spec_tools import (TORCH_DTYPES, compare, draw, shape_of,  # noqa: E402
                                      sizes_of)


class CheckFailed(Exception):
    """One check of one problem failed; the message names the shape and tensor."""


def load(problem_dir: Path) -> Dict[str, Any]:
    with open(problem_dir / "problem.toml", "rb") as f:
        return tomllib.load(f)


def _label(shape: Dict[str, Any]) -> str:
    label = ",".join(f"{k}={v}" for k, v in shape.items() if k != "input_scale")
    return label + (f",scale={shape['input_scale']:g}" if shape.get("input_scale", 1) != 1 else "")


def _inputs(spec: Dict[str, Any], sizes: Dict[str, int], scale: float, device: Any, seed: int):
    """(forward args, state dict) drawn per the spec at `sizes`."""
    gen = torch.Generator(device=device).manual_seed(seed)
    module = spec["module"]
    by_name = {t["name"]: t for t in spec["tensor"]}
    drawn = {}
    for t in spec["tensor"]:
        if t["role"] == "in":
            drawn[t["name"]] = draw(t["dtype"], t["init"], shape_of(t["shape"], sizes), scale,
                                    gen, device)
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
