#!/usr/bin/env python3
"""CTest `catalog_table`: tests/gpu/catalog_table.py over the real catalog with a recorded job.

One CORRECT job of level1/19_ReLU (median 10 us, torch_eager 2.0x, torch_compile 4.0x) and one
oracle check: its row must show the medians derived from the speedups (20.0 and 40.0 us), the
check, and the counts; a problem without a job is "not run"; a bad results line exits non-zero.
Two baselines-only jobs of level1/12 (torch_eager in the first, torch_compile in the later one):
its row shows both medians as the jobs listed them. A baselines-only job after the example job of
level1/19 keeps the example's verdict and adds the baseline it listed (torch_eager 30 us).
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "gpu" / "catalog_table.py"

job = {"problem": "level1/19_ReLU", "state": "DONE", "result": {
    "verdict": "CORRECT",
    "timings": [{"shape": "N=4096", "timing": {"median_us": 10.0, "sol_percent": 50}}],
    "speedups": [{"shape": "N=4096", "baseline": "torch_eager", "speedup": 2.0},
                 {"shape": "N=4096", "baseline": "torch_compile", "speedup": 4.0}]}}
DIAG = "level1/12_Matmul_with_diagonal_matrices_"
measured = [{"problem": DIAG, "state": "DONE", "result": {
    "verdict": "BASELINES_MEASURED",
    "baselines": [{"name": n, "shape": "N=4096", "timing": {"median_us": us}}]}}
    for n, us in (("torch_eager", 7.5), ("torch_compile", 5.25))]
later_eager = {"problem": "level1/19_ReLU", "state": "DONE", "baselines_only": True, "result": {
    "verdict": "BASELINES_MEASURED",
    "baselines": [{"name": "torch_eager", "shape": "N=4096", "timing": {"median_us": 30.0}}]}}
with tempfile.TemporaryDirectory() as tmp:
    results, checks, bad = Path(tmp, "r.jsonl"), Path(tmp, "c.json"), Path(tmp, "bad.jsonl")
    results.write_text("".join(json.dumps(j) + "\n" for j in [job] + measured + [later_eager]))
    checks.write_text(json.dumps({"problems": [{"problem": "level1/19_ReLU", "ok": True}]}))
    bad.write_text("{not json\n")
    out = subprocess.run([sys.executable, SCRIPT, ROOT / "problems", "--results", results,
                          "--checks", checks, "--prefix", "level1/1"], capture_output=True,
                         text=True, check=True)
    rows = {}
    for line in out.stdout.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows[cells[0]] = cells
    relu = rows["level1/19_ReLU"]
    assert relu[3:9] == ["CORRECT", "10.0", "50", "30.0", "40.0", "pass"], relu
    assert rows["level1/1_Square_matrix_multiplication_"][3] == "not run", out.stdout
    assert rows[DIAG][3] == "BASELINES_MEASURED" and rows[DIAG][6:8] == ["7.5", "5.2"], rows[DIAG]
    assert "CORRECT: 1" in out.stderr and "compile: 2" in out.stderr, out.stderr
    failed = subprocess.run([sys.executable, SCRIPT, ROOT / "problems", "--results", bad],
                            capture_output=True, text=True)
    assert failed.returncode != 0 and "bad.jsonl:1" in failed.stderr, failed.stderr
print("catalog_table: ok")
