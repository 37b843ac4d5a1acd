#!/usr/bin/python3
"""`[cost] min_flops` for the hand-made catalog problems, by the importer's own rule (issue 26.3).

Usage: /usr/bin/python3 deploy/kernelbench/handmade_min_flops.py [--write] DIR...

For every problem under each DIR whose problem.toml has a PyTorch module ([reference] module =
"reference.py", problems/README.md), this runs that module on the meta device at each of its test
and bench shapes under import_kernelbench.analyse_shape (the importer's FlopCounter, which feeds
gemm_bound.GemmBound), and derives min_flops with import_kernelbench.min_flops_lines: exactly
what the importer declares for an imported problem of the same form (7/8 of the GEMM flops that
gemm_bound.py recognises at every shape, fitted over the sizes; none for reductions of a GEMM's
result, chains of matmuls, structure ops, convolutions...). There is no second rule here.

Without --write it checks: each problem's declared min_flops must equal the derived one at every
shape (compared as numbers: a hand-written "7 * M * N * K / 4" equals the derived
"7 * 2 * M * N * K / 8"), and a problem the rule gives none must declare none. One line per
problem; exit status 1 when any disagrees, 2 on bad usage. With --write it puts the derived
line into [cost] of each problem that has no min_flops yet (after its `bytes` line) and removes
nothing. Needs torch (CPU).
"""
from __future__ import annotations

import argparse
import sys
import tomllib
from pathlib import Path
from types import SimpleNamespace
from typing import Dict, List, Optional, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))

import import_kernelbench as ik  # noqa: E402

from kjudge_oracle.spec_tools import eval_size_expr  # noqa: E402


def shapes_of(spec: dict) -> List[Dict[str, int]]:
    """The problem's test and bench shapes, sizes only (input_scale and the like dropped)."""
    sizes = spec.get("sizes", [])
    shapes = list(spec.get("test_shapes", [])) + list(spec.get("bench_shapes", []))
    return [{s: int(shape[s]) for s in sizes} for shape in shapes]


def derive(problem: Path, spec: dict) -> Tuple[Optional[str], str]:
    """(the min_flops line the importer's rule gives, or None; why none)."""
    source_path = problem / spec["reference"]["module"]
    source = source_path.read_text()
    runs = []
    for shape in shapes_of(spec):
        try:
            runs.append(ik.analyse_shape(source, str(source_path), shape))
        except ik.SkipProblem as exc:
            return None, f"the meta forward failed at {shape}: {exc}"
    infos = {t["name"]: SimpleNamespace(init=t.get("init")) for t in spec.get("tensor", [])}
    lines = ik.min_flops_lines(runs, lambda r: r.overrides, list(spec.get("sizes", [])), infos)
    if not lines:
        return None, "no GEMM bound (gemm_bound.py: not one of its two patterns)"
    return lines[0], ""


def expression(line: str) -> str:
    """The quoted expression of a `min_flops = "..."  # ...` line."""
    return tomllib.loads(line.split("#", 1)[0])["min_flops"]


def agree(declared: Optional[str], derived: Optional[str], spec: dict) -> bool:
    if declared is None or derived is None:
        return declared is None and derived is None
    return all(eval_size_expr(declared, shape) == eval_size_expr(derived, shape) for shape in shapes_of(spec))


def write(toml_path: Path, line: str) -> None:
    """Puts `line` after the `bytes = ` line of [cost]."""
    text = toml_path.read_text().splitlines(keepends=True)
    in_cost = False
    for i, row in enumerate(text):
        if row.strip().startswith("["):
            in_cost = row.strip() == "[cost]"
        elif in_cost and row.startswith("bytes ="):
            text.insert(i + 1, line + "\n")
            toml_path.write_text("".join(text))
            return
    raise SystemExit(f"{toml_path}: no `bytes =` line in [cost] to put min_flops after")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="+", type=Path)
    parser.add_argument("--write", action="store_true", help="declare the derived min_flops where none is")
    args = parser.parse_args()
    if ik.torch is None:
        print("handmade_min_flops: needs torch (python3-torch)", file=sys.stderr)
        return 2
    ik._init_dtypes()
    bad = 0
    checked = 0
    for root in args.dirs:
        for toml_path in sorted(root.glob("*/problem.toml")):
            spec = tomllib.loads(toml_path.read_text())
            if "module" not in spec.get("reference", {}):
                continue
            checked += 1
            name = spec.get("name", toml_path.parent.name)
            derived_line, why = derive(toml_path.parent, spec)
            derived = expression(derived_line) if derived_line else None
            declared = spec.get("cost", {}).get("min_flops")
            if args.write and declared is None and derived_line is not None:
                write(toml_path, derived_line)
                declared = derived
            ok = agree(declared, derived, spec)
            bad += not ok
            print(f"{'ok ' if ok else 'BAD'} {name}: declared {declared!r}, the rule gives "
                  f"{derived!r}{'' if derived else ' (' + why + ')'}")
    if checked == 0:
        print("handmade_min_flops: no module problem under " + ", ".join(map(str, args.dirs)), file=sys.stderr)
        return 2
    print(f"{checked - bad} of {checked} agree with the importer's min_flops rule")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
