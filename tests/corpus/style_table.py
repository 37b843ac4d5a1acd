#!/usr/bin/env python3
"""Prints the style coverage tables of tests/corpus/README.md from the corpus files.

Run from anywhere: python3 tests/corpus/style_table.py. The per-file table is each file's first
line ("// Style: ..."); the coverage counts come from what the source and its kjudge-plan block
actually contain, so they cannot claim a style no file uses. Paste the output into the README
between the "begin tables" and "end tables" markers (the CI test checks every file is listed).
"""
import glob
import os
import re
import sys

# (label, regex, where): where is "src" (the whole file) or "plan" (the kjudge-plan block); a
# regex of None means "more than one launch in the plan"; "prelude" counts files that match in
# the source and have no #include at all (nvcc's implicit prelude, worker/compiler/std_headers).
TAGS = [
    ("standard headers: `<cmath>` `<math.h>` `<cfloat>` `<cstdint>` `<limits>`",
     r"#include <(cmath|math\.h|cfloat|float\.h|cstdint|stdint\.h|limits|climits)>", "src"),
    ("`<cuda_runtime.h>`", r"#include <cuda_runtime\.h>", "src"),
    ("`-INFINITY` / `INFINITY` / `FLT_MAX` / `std::numeric_limits` (or the bit pattern)",
     r"INFINITY|FLT_MAX|numeric_limits|0xff800000|0x7f800000", "src"),
    ("`__restrict__`", r"__restrict__", "src"),
    ("template kernel instantiated by the plan (`kern<256><<<...>>>`)", r"^\w+<[^>]*><<<", "plan"),
    ("`#pragma unroll`", r"#pragma unroll", "src"),
    ("cub: `BlockReduce`, `WarpReduce`, `BlockScan`", r"cub::", "src"),
    ("WMMA tensor cores (`<mma.h>`: TF32 3x split, fp16 hi/lo, bf16x3)", r"wmma::", "src"),
    ("cooperative groups (`tiled_partition`, `cg::reduce`, `cg::memcpy_async`)", r"cooperative_groups", "src"),
    ("`__half` / `__nv_bfloat16`", r"__half|__nv_bfloat16", "src"),
    ("`cuda::pipeline` / `cuda::memcpy_async` / `__pipeline_memcpy_async`",
     r"cuda::pipeline|__pipeline_memcpy_async|memcpy_async", "src"),
    ("`float4` vector loads", r"float4", "src"),
    ("warp shuffles (`__shfl_*_sync`)", r"__shfl_", "src"),
    ("dynamic shared memory sized in the plan", r"extern __shared__", "src"),
    ("scratch buffers in the plan", r"^scratch ", "plan"),
    ("multi-kernel plan", None, "plan"),
    ("atomics (`atomicAdd`)", r"atomicAdd", "src"),
    ("no `#include`, names from nvcc's implicit prelude (`INFINITY`, `M_PI`, `int64_t`, `std::exp`...)",
     r"\b(INFINITY|NAN|HUGE_VALF?|M_[A-Z0-9_]+f?|FLT_[A-Z_]+|DBL_[A-Z_]+|u?int(8|16|32|64)_t|std::\w+)\b", "prelude"),
]


def main():
    root = os.path.dirname(os.path.abspath(__file__))
    files = sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "level*", "*", "*.cu")))
    counts = {label: 0 for label, _, _ in TAGS}
    rows = []
    for rel in files:
        with open(os.path.join(root, rel)) as f:
            src = f.read()
        first = src.splitlines()[0] if src else ""
        if not first.startswith("// Style: "):
            sys.exit(f"{rel}: the first line must be '// Style: ...'")
        plan_match = re.search(r"/\* kjudge-plan\n(.*?)\*/", src, re.S)
        if not plan_match:
            sys.exit(f"{rel}: no /* kjudge-plan ... */ block")
        plan = plan_match.group(1)
        launches = [line for line in plan.splitlines() if "<<<" in line]
        for label, rx, where in TAGS:
            text = plan if where == "plan" else src
            if rx is None:
                hit = len(launches) > 1
            else:
                hit = bool(re.search(rx, text, re.M))
                if where == "prelude":
                    hit = hit and not re.search(r"^\s*#\s*include", src, re.M)
            if hit:
                counts[label] += 1
        rows.append((rel, first[len("// Style: "):].replace("|", "\\|")))
    problems = sorted({rel.rsplit("/", 1)[0] for rel in files})
    level1 = sum(p.startswith("level1/") for p in problems)
    print(f"{len(files)} kernels for {len(problems)} problems ({level1} level 1, {len(problems) - level1} level 2).")
    print()
    print("| style | files |")
    print("| --- | ---: |")
    for label, _, _ in TAGS:
        print(f"| {label} | {counts[label]} |")
    print()
    print("| file | what it represents (its first line) |")
    print("| --- | --- |")
    for rel, style in rows:
        print(f"| `{rel}` | {style} |")


if __name__ == "__main__":
    main()
