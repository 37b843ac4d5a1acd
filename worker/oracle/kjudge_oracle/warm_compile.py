"""Fills a torch.compile cache for every PyTorch problem under some folders, many at a time.

Contract:
  * `python3 -m kjudge_oracle.warm_compile --cache DIR [--jobs N] PROBLEMS...` finds every
    problem folder under PROBLEMS whose problem.toml names `[reference] module`, and compiles
    its module at each bench shape exactly as the compile oracle does (compile_job.compile_module,
    the same filename, globals, dtype and inputs' shapes), each in its own process, N at a time,
    with TORCHINDUCTOR_CACHE_DIR=DIR and one Inductor compile thread per process.
  * A judge started with `kjudge-runner --torch-compile-cache DIR` (`kjudge-worker
    --torch-compile-cache DIR`) gives its compile oracle the same environment, so its compiles
    find Inductor's and Triton's artefacts there: on a fresh GPU host the torch_compile
    baselines of a whole catalog then arrive in minutes instead of hours of one-core compiles.
  * Nothing here times anything or talks to a judge; a failed compile is reported (the compile
    oracle will report the same failure for the problem) and does not stop the others.
  * Exit status: 0 when every compile succeeded, 1 when any failed or timed out, 2 on bad usage.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

PACKAGE_ROOT = Path(__file__).resolve().parents[1]  # the folder holding kjudge_oracle/


def module_problems(roots: Sequence[Path]) -> List[Path]:
    """Every folder under `roots` whose problem.toml has [reference] module, sorted."""
    found = set()
    for root in roots:
        for toml in sorted(root.rglob("problem.toml")):
            try:
                with open(toml, "rb") as f:
                    spec = tomllib.load(f)
            except (OSError, tomllib.TOMLDecodeError):
                continue  # the judge reports bad specs; nothing to compile here
            if spec.get("reference", {}).get("module"):
                found.add(toml.parent)
    return sorted(found)


def compile_source(source: str, filename: str, overrides: Dict[str, int]) -> float:
    """Compiles reference.py's module built at `overrides` on this process's GPU (else CPU), as
    the compile oracle does; returns the seconds it took. Imports torch only here: Inductor reads
    its environment at import."""
    import torch

    from .compile_job import compile_module, inputs_on
    from .dtypes import full_fp32
    from .module_problem import ModuleProblem

    if not hasattr(torch, "compile"):
        raise RuntimeError(f"torch {torch.__version__} has no torch.compile (it needs torch >= 2)")
    full_fp32()  # as the oracle: the same precision settings, the same cache keys
    # An indexed device, as the oracle's (compile_module sets it current).
    device = (torch.device("cuda", torch.cuda.current_device()) if torch.cuda.is_available()
              else torch.device("cpu"))
    started = time.time()
    problem = ModuleProblem(source, filename, overrides)
    compile_module(problem.clone_model(), inputs_on(problem, device), device)
    return round(time.time() - started, 1)


def compile_one(problem_dir: Path) -> Dict[str, Any]:
    """Compiles one problem's module at each bench shape (in this process)."""
    from .spec_tools import sizes_of

    with open(problem_dir / "problem.toml", "rb") as f:
        spec = tomllib.load(f)
    module_file = spec["reference"]["module"]
    source = (problem_dir / module_file).read_text()
    shapes = []
    for shape in spec.get("bench_shapes", []):
        sizes = sizes_of(shape)
        overrides = {g: sizes[g] for g in spec.get("module", {}).get("globals", [])}
        shapes.append(compile_source(source, module_file, overrides))
    return {"shape_seconds": shapes}


def _run_child(problem_dir: Path, env: Dict[str, str], timeout_s: float) -> Dict[str, Any]:
    started = time.time()
    result: Dict[str, Any] = {"problem": str(problem_dir), "ok": False}
    try:
        proc = subprocess.run([sys.executable, "-m", "kjudge_oracle.warm_compile", "--one",
                               str(problem_dir)], env=env, capture_output=True, text=True,
                              timeout=timeout_s, cwd="/")
        lines = proc.stdout.strip().splitlines()
        if proc.returncode == 0 and lines:
            result.update(json.loads(lines[-1]), ok=True)
        else:
            tail = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
            result["error"] = f"exit {proc.returncode}: {tail[:300]}"
    except subprocess.TimeoutExpired:
        result["error"] = f"did not finish in {timeout_s:.0f} s (killed)"
    result["seconds"] = round(time.time() - started, 1)
    return result


def child_env(cache: Path) -> Dict[str, str]:
    """The compile oracle's environment for Inductor (worker/judge/main.cc sets the same)."""
    env = dict(os.environ)
    env["TORCHINDUCTOR_CACHE_DIR"] = str(cache)
    env["TORCHINDUCTOR_COMPILE_THREADS"] = "1"
    env["PYTHONPATH"] = str(PACKAGE_ROOT)
    return env


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python3 -m kjudge_oracle.warm_compile",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Fill a torch.compile (Inductor) cache for every PyTorch problem under "
                    "PROBLEMS, N compiles at a time, so that a judge started with "
                    "--torch-compile-cache DIR times torch_compile baselines without compiling "
                    "for minutes per problem on one core. Needs a GPU host with torch >= 2.",
        epilog="example:\n"
               "  PYTHONPATH=worker/oracle python3 -m kjudge_oracle.warm_compile \\\n"
               "      --cache /var/lib/kjudge/torch-compile --jobs 12 problems/kernelbench\n"
               "  kjudge-worker ... --torch-compile-cache /var/lib/kjudge/torch-compile\n"
               "Keep DIR writable by the worker's user only: the compile oracle runs what it "
               "finds there.")
    parser.add_argument("problems", metavar="PROBLEMS", nargs="*", type=Path,
                        help="folders searched for problem.toml files (recursively)")
    parser.add_argument("--cache", type=Path, help="the cache folder (created if missing)")
    parser.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) - 2),
                        help="compiles at a time (default: CPUs - 2)")
    parser.add_argument("--timeout-s", type=float, default=900.0,
                        help="seconds one problem's compiles may take (default 900)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write every result here")
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)  # a child: one problem
    return parser.parse_args(argv)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    if args.one is not None:
        print(json.dumps(compile_one(args.one)))
        return 0
    if args.cache is None or not args.problems or args.jobs < 1:
        print("warm_compile: give --cache DIR, --jobs >= 1 and at least one PROBLEMS folder "
              "(--help)", file=sys.stderr)
        return 2
    missing = [str(p) for p in args.problems if not p.is_dir()]
    if missing:
        print(f"warm_compile: no such folder: {', '.join(missing)}", file=sys.stderr)
        return 2
    problems = module_problems(args.problems)
    if not problems:
        print(f"warm_compile: no problem with [reference] module under "
              f"{', '.join(map(str, args.problems))}", file=sys.stderr)
        return 2
    args.cache.mkdir(parents=True, exist_ok=True)
    env = child_env(args.cache.resolve())
    started = time.time()
    results: List[Dict[str, Any]] = []
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(_run_child, p.resolve(), env, args.timeout_s) for p in problems]
        for i, future in enumerate(futures, 1):
            r = future.result()
            results.append(r)
            status = "ok  " if r["ok"] else "FAIL"
            detail = "" if r["ok"] else f": {r['error']}"
            print(f"[{i}/{len(problems)}] {status} {r['problem']} ({r['seconds']:.1f} s){detail}",
                  flush=True)
    failed = [r for r in results if not r["ok"]]
    print(f"{len(results) - len(failed)} of {len(results)} compiled into {args.cache} in "
          f"{time.time() - started:.0f} s with {args.jobs} at a time")
    if args.json:
        args.json.write_text(json.dumps({"cache": str(args.cache), "results": results}, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
