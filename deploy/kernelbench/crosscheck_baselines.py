#!/usr/bin/env python3
"""Compares kjudge's torch_eager medians with KernelBench's own baseline times (issue 28).

Usage:
  kjudge --json baselines --problems kernelbench/ > kjudge.json
  python3 deploy/kernelbench/crosscheck_baselines.py kjudge.json \\
      KernelBench/results/timing/H100_Modal/baseline_time_torch.json [--gpu H100] [--markdown]

KJUDGE_JSON is what `kjudge --json baselines` prints (ListBaselinesResponse: "baselines",
each with problem, shape, name, hardware_key, timing.median_us). KERNELBENCH_JSON is one of
KernelBench's results/timing/<hardware>/baseline_time_torch.json ({"level1": {"<stem>.py":
{"mean": ms, "hardware": ...}}}), or the same written by its generate_baseline_time.py on your
GPU. Problems are matched as kernelbench/level<L>/<stem> <-> level<L>/<stem>.py.

For each matched problem it prints kjudge's median, KernelBench's mean and their ratio, and for
every ratio outside [--low, --high] (0.7-1.4) the reasons it knows:
  * the problem carries a hand patch (deploy/kernelbench/hand_patches.py): a changed module;
  * --reasons FILE (JSON {"kernelbench/level1/42_...": "why"}) names one people found;
  * the GPUs differ (kjudge's hardware key vs KernelBench's "hardware").
An outlier with none of these is "unexplained"; with --strict the exit status is 1 when any is.
The PyTorch versions (kjudge's from its hardware key, KernelBench's from --kernelbench-torch,
2.5.0 for its published JSONs) are printed beside the table: a version gap is context, not a
reason by itself.

Contract: reads two JSON files, writes a table (text, --markdown or --json) to stdout; exit 0,
1 (--strict and an unexplained outlier) or 2 (bad input, with the file and what is wrong).
"""
from __future__ import annotations

import argparse
import json
import math
import re
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hand_patches import HAND_PATCHES  # noqa: E402

PREFIX = "kernelbench/"
PUBLISHED_TORCH = "2.5.0"  # results/timing/README.md: "All (current) baseline are ran with PyTorch 2.5.0"


class InputError(Exception):
    """A file that is not what the usage says; the message names it and what is wrong."""


@dataclass
class Row:
    problem: str                 # kernelbench/level<L>/<stem>
    kjudge_ms: Optional[float]   # kjudge's torch_eager median (ms); None: not measured
    kernelbench_ms: Optional[float]  # KernelBench's mean (ms); None: not in its JSON
    ratio: Optional[float]       # kjudge / KernelBench
    outlier: bool = False
    reasons: List[str] = field(default_factory=list)

    @property
    def unexplained(self) -> bool:
        return self.outlier and not self.reasons


def _load(path: str) -> object:
    try:
        return json.loads(Path(path).read_text())
    except OSError as exc:
        raise InputError(f"{path}: cannot read it ({exc.strerror})") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from None


def kjudge_medians(path: str, baseline: str, gpu: str) -> Dict[str, float]:
    """problem -> median in ms of `baseline` measured (not imported) on a GPU matching `gpu`.
    With several shapes or hardware keys, the smallest median (KernelBench has one shape)."""
    data = _load(path)
    if not isinstance(data, dict) or not isinstance(data.get("baselines", []), list):
        raise InputError(f"{path}: expected `kjudge --json baselines` output, an object with a "
                         "\"baselines\" list")
    out: Dict[str, float] = {}
    for i, b in enumerate(data.get("baselines", [])):
        try:
            name, key, problem = b["name"], b["hardware_key"], b["problem"]
            median_us = float(b["timing"]["median_us"])
        except (KeyError, TypeError, ValueError):
            raise InputError(f"{path}: baselines[{i}] lacks name, hardware_key, problem or "
                             "timing.median_us") from None
        if name != baseline or key.startswith("imported|") or gpu.lower() not in key.lower():
            continue
        if not problem.startswith(PREFIX) or not median_us > 0:
            continue
        ms = median_us / 1000.0
        out[problem] = min(ms, out.get(problem, math.inf))
    return out


def kernelbench_means(path: str) -> Dict[str, float]:
    """problem (kernelbench/level<L>/<stem>) -> KernelBench's mean in ms."""
    data = _load(path)
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected KernelBench's baseline JSON, an object of levels")
    out: Dict[str, float] = {}
    for level, problems in data.items():
        if not re.fullmatch(r"level\d+", str(level)) or not isinstance(problems, dict):
            raise InputError(f"{path}: key {level!r}: expected \"level<N>\" mapping file names to timings")
        for filename, timing in problems.items():
            try:
                mean = float(timing["mean"])
            except (KeyError, TypeError, ValueError):
                raise InputError(f"{path}: {level}/{filename}: no numeric \"mean\"") from None
            out[f"{PREFIX}{level}/{Path(filename).stem}"] = mean
    return out


def hardware_of_kernelbench(path: str) -> str:
    data = _load(path)
    for problems in data.values() if isinstance(data, dict) else []:
        for timing in problems.values() if isinstance(problems, dict) else []:
            if isinstance(timing, dict) and isinstance(timing.get("hardware"), str):
                return timing["hardware"]
    return ""


def torch_of_kjudge(path: str, baseline: str) -> str:
    data = _load(path)
    for b in data.get("baselines", []) if isinstance(data, dict) else []:
        match = re.search(r"\|torch ([^|]+)", str(b.get("hardware_key", "")))
        if b.get("name") == baseline and match:
            return match.group(1)
    return ""


def compare(kjudge: Dict[str, float], kernelbench: Dict[str, float], *, low: float, high: float,
            reasons: Dict[str, str], gpus_differ: Optional[str]) -> List[Row]:
    rows: List[Row] = []
    for problem in sorted(set(kjudge) | set(kernelbench), key=_catalog_order):
        ours, theirs = kjudge.get(problem), kernelbench.get(problem)
        ratio = ours / theirs if ours is not None and theirs is not None and theirs > 0 else None
        row = Row(problem, ours, theirs, ratio)
        if ratio is not None and not low <= ratio <= high:
            row.outlier = True
            key = problem[len(PREFIX):]
            if key in HAND_PATCHES:
                row.reasons.append("hand patch: the module differs from KernelBench's "
                                   "(deploy/kernelbench/hand_patches.py)")
            if problem in reasons:
                row.reasons.append(reasons[problem])
            if gpus_differ:
                row.reasons.append(gpus_differ)
        rows.append(row)
    return rows


def _catalog_order(problem: str) -> tuple:
    """level, then the KernelBench number (level1/2 before level1/10), then the name."""
    match = re.match(r"kernelbench/level(\d+)/(\d+)_", problem)
    return (int(match.group(1)), int(match.group(2)), problem) if match else (math.inf, math.inf, problem)


def _fmt(value: Optional[float], digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def render_text(rows: Sequence[Row], header: str, markdown: bool) -> str:
    lines = [header, ""]
    if markdown:
        lines += ["| problem | kjudge torch_eager (ms) | KernelBench (ms) | ratio | outlier: reasons |",
                  "| --- | ---: | ---: | ---: | --- |"]
    for r in rows:
        note = ("UNEXPLAINED" if r.unexplained else "; ".join(r.reasons)) if r.outlier else ""
        cells = [r.problem, _fmt(r.kjudge_ms), _fmt(r.kernelbench_ms), _fmt(r.ratio, 2), note]
        lines.append("| " + " | ".join(cells) + " |" if markdown else "  ".join(cells).rstrip())
    matched = [r for r in rows if r.ratio is not None]
    outliers = [r for r in matched if r.outlier]
    unexplained = [r for r in outliers if r.unexplained]
    geo = math.exp(sum(math.log(r.ratio) for r in matched) / len(matched)) if matched else None
    lines += ["", f"{len(matched)} problems in both; geomean ratio {_fmt(geo, 3)}; {len(outliers)} outside the "
              f"band, {len(unexplained)} unexplained; {sum(r.kjudge_ms is None for r in rows)} only in "
              f"KernelBench's JSON, {sum(r.kernelbench_ms is None for r in rows)} only in kjudge's"]
    return "\n".join(lines) + "\n"


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("kjudge_json", help="`kjudge --json baselines` output")
    parser.add_argument("kernelbench_json", help="KernelBench's results/timing/<hw>/baseline_time_torch.json")
    parser.add_argument("--baseline", default="torch_eager", help="kjudge's baseline name (default torch_eager)")
    parser.add_argument("--gpu", default="", help="only kjudge hardware keys containing this (e.g. H100)")
    parser.add_argument("--low", type=float, default=0.7, help="lowest ratio not an outlier (0.7)")
    parser.add_argument("--high", type=float, default=1.4, help="highest ratio not an outlier (1.4)")
    parser.add_argument("--reasons", help="JSON file {problem: reason} for outliers people explained")
    parser.add_argument("--kernelbench-torch", default=PUBLISHED_TORCH,
                        help=f"PyTorch of the KernelBench JSON (default {PUBLISHED_TORCH}, its published ones)")
    parser.add_argument("--markdown", action="store_true", help="a Markdown table (docs/kernelbench-catalog.md)")
    parser.add_argument("--json", action="store_true", help="rows as JSON")
    parser.add_argument("--strict", action="store_true", help="exit 1 when an outlier is unexplained")
    args = parser.parse_args(argv)
    try:
        if not 0 < args.low <= 1 <= args.high:
            raise InputError(f"--low {args.low} / --high {args.high}: need 0 < low <= 1 <= high")
        ours = kjudge_medians(args.kjudge_json, args.baseline, args.gpu)
        theirs = kernelbench_means(args.kernelbench_json)
        reasons: Dict[str, str] = {}
        if args.reasons:
            loaded = _load(args.reasons)
            if not isinstance(loaded, dict) or not all(isinstance(v, str) for v in loaded.values()):
                raise InputError(f"{args.reasons}: expected an object mapping problem names to reasons")
            reasons = loaded
    except InputError as exc:
        print(f"crosscheck_baselines: {exc}", file=sys.stderr)
        return 2
    their_gpu = hardware_of_kernelbench(args.kernelbench_json)
    our_torch = torch_of_kjudge(args.kjudge_json, args.baseline)
    gpus_differ = None
    if args.gpu and their_gpu and args.gpu.lower() not in their_gpu.lower():
        gpus_differ = f"GPU differs: kjudge on {args.gpu}, KernelBench on {their_gpu}"
    rows = compare(ours, theirs, low=args.low, high=args.high, reasons=reasons, gpus_differ=gpus_differ)
    if args.json:
        print(json.dumps([dict(asdict(r), unexplained=r.unexplained) for r in rows], indent=1))
    else:
        header = (f"kjudge {args.baseline} (PyTorch {our_torch or 'unknown'}{', ' + args.gpu if args.gpu else ''}) vs "
                  f"KernelBench (PyTorch {args.kernelbench_torch}, {their_gpu or 'unknown GPU'}); band "
                  f"{args.low}-{args.high}x")
        sys.stdout.write(render_text(rows, header, args.markdown))
    return 1 if args.strict and any(r.unexplained for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
