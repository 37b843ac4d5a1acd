#!/usr/bin/env python3
"""The catalog table of docs/kernelbench-catalog.md, from GPU runs' own outputs.

Usage: tests/gpu/catalog_table.py PROBLEMS_DIR --results FILE... [--checks FILE...] [--prefix P]

  PROBLEMS_DIR  the catalog the runs judged (a bundle's problems/, or the source tree's after the
                importer ran): every folder with a problem.toml is a row.
  --results     catalog_results.jsonl files written by tests/gpu/run_catalog.sh (one `kjudge
                --json job` object per line); a later file's job for a problem replaces an
                earlier one's, except that a baselines-only job does not replace an example's
                job: it only adds the baselines it listed.
  --checks      JSON files written by `check_problems.py DIR --json FILE` (the oracle check).
  --prefix      only problems whose name starts with P.

Per problem: its source (hand-made or KernelBench level L), whether it has an example, the
example's verdict, bench median and SOL%, and the torch_eager and torch_compile medians, derived
from the job's own speedups (baseline time = speedup x candidate median, the judge's definition),
and the oracle check. Prints markdown (a header line and one row per problem) and, on stderr,
the counts. Reads only; exits 2 on bad usage.
"""
from __future__ import annotations

import argparse
import json
import sys
import tomllib
from pathlib import Path
from typing import Dict, List, Optional


def load_results(paths: List[str]) -> Dict[str, dict]:
    jobs: Dict[str, dict] = {}
    for path in paths:
        for number, line in enumerate(Path(path).read_text().splitlines(), 1):
            if not line.strip():
                continue
            try:
                job = json.loads(line)
            except json.JSONDecodeError as exc:
                raise SystemExit(f"catalog_table.py: {path}:{number}: not JSON: {exc}") from exc
            if "problem" not in job:
                continue
            earlier = jobs.get(job["problem"])
            if earlier and job.get("baselines_only") and not earlier.get("baselines_only"):
                # A baselines-only job after the example's: the example's verdict stays, and
                # the baselines the later job listed join it.
                merge_baselines(job, earlier)
                continue
            merge_baselines(earlier, job)
            jobs[job["problem"]] = job
    return jobs


def merge_baselines(earlier: Optional[dict], later: dict) -> None:
    """A later job keeps the baselines an earlier job of its problem listed and it did not (a
    baselines-only job that timed torch_compile in pass 3 lists only that; torch_eager came in
    pass 1)."""
    if not earlier:
        return
    old = earlier.get("result", {}).get("baselines", [])
    new = later.setdefault("result", {}).setdefault("baselines", [])
    seen = {(b.get("name"), b.get("shape")) for b in new}
    new.extend(b for b in old if (b.get("name"), b.get("shape")) not in seen)


def load_checks(paths: List[str]) -> Dict[str, bool]:
    checks: Dict[str, bool] = {}
    for path in paths:
        data = json.loads(Path(path).read_text())
        rows = data if isinstance(data, list) else data.get("problems", [])
        for r in rows:
            checks[r["problem"]] = bool(r.get("ok"))
    return checks


def source_of(name: str) -> str:
    parts = name.split("/")
    if parts[0] == "kernelbench" and len(parts) > 1:
        return f"KernelBench {parts[1]}"
    return "hand-made (reference.cu + reference.py)"


def baseline_median(result: dict, baseline: str) -> str:
    """The baseline's bench median: a baselines-only job lists what it measured; an example's
    job gives it through its speedups (speedup x candidate median)."""
    listed = [b["timing"]["median_us"] for b in result.get("baselines", [])
              if b.get("name") == baseline]
    if listed:
        return ";".join(f"{v:.1f}" for v in listed)
    medians = {t["shape"]: t["timing"]["median_us"] for t in result.get("timings", [])}
    values = [s["speedup"] * medians[s["shape"]] for s in result.get("speedups", [])
              if s.get("baseline") == baseline and s.get("shape") in medians]
    return ";".join(f"{v:.1f}" for v in values) if values else "-"


def row(problems: Path, name: str, jobs: Dict[str, dict], checks: Dict[str, bool]) -> List[str]:
    spec = tomllib.loads((problems / name / "problem.toml").read_text())
    has_example = (problems / name / "solution.cu").is_file() or bool(spec.get("example"))
    job = jobs.get(name)
    result = job.get("result", {}) if job else {}
    verdict = result.get("verdict", job.get("state", "-") if job else "not run")
    timings = result.get("timings", [])
    median = ";".join(f'{t["timing"]["median_us"]:.1f}' for t in timings) or "-"
    sol = ";".join(f'{t["timing"].get("sol_percent", 0):.0f}' for t in timings) or "-"
    has_module = "module" in spec.get("reference", {})
    check = {True: "pass", False: "FAIL"}.get(checks.get(name), "-" if has_module else "n/a")
    return [name, source_of(name), "yes" if has_example else "no", verdict, median, sol,
            baseline_median(result, "torch_eager"), baseline_median(result, "torch_compile"), check]


def natural_key(name: str) -> list:
    """level1/9_X before level1/10_Y: each part by its numeric prefix, then by name."""
    key = []
    for part in name.split("/"):
        head = part.split("_")[0]
        key.append((int(head) if head.isdigit() else -1, part))
    return key


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("problems")
    parser.add_argument("--results", nargs="+", required=True)
    parser.add_argument("--checks", nargs="*", default=[])
    parser.add_argument("--prefix", default="")
    args = parser.parse_args(argv)
    problems = Path(args.problems)
    if not problems.is_dir():
        print(f"catalog_table.py: {problems} is not a folder", file=sys.stderr)
        return 2
    jobs, checks = load_results(args.results), load_checks(args.checks)
    names = sorted((str(p.parent.relative_to(problems)) for p in problems.rglob("problem.toml")),
                   key=natural_key)
    names = [n for n in names if n.startswith(args.prefix) and "/examples/" not in n]
    print("| problem | source | example | verdict | example median (us) | SOL% | "
          "torch_eager median (us) | torch_compile median (us) | oracle check |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | --- |")
    counts = {"problems": 0, "examples": 0, "CORRECT": 0, "eager": 0, "compile": 0}
    for name in names:
        r = row(problems, name, jobs, checks)
        counts["problems"] += 1
        counts["examples"] += r[2] == "yes"
        counts["CORRECT"] += r[3] == "CORRECT"
        counts["eager"] += r[6] != "-"
        counts["compile"] += r[7] != "-"
        print("| " + " | ".join(r) + " |")
    print(", ".join(f"{k}: {v}" for k, v in counts.items()), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
