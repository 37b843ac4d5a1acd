#!/usr/bin/python3
"""CTest `importer_gpu_only`: a module too big for any CPU test shape (tests/importer/
fixtures_gpu_only: a 6000 x 6000 weight no global shrinks) is imported, not skipped, flagged
`# gpu-only-check:` with meta-checked test shapes; worker/oracle/check_problems.py reports it as
"skip" (not passed, not failed) without a GPU, and checks it in float32 vs float64 with one.
CPU only in CI; needs torch (exit 77 = SKIP without).
"""
import importlib.util
import json
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "importer" / "fixtures_gpu_only"
IMPORTER = ROOT / "deploy" / "kernelbench" / "import_kernelbench.py"
CHECKER = ROOT / "worker" / "oracle" / "check_problems.py"

if importlib.util.find_spec("torch") is None:  # the importer runs with this interpreter
    print(f"SKIP: {sys.executable} has no torch (install python3-torch; CMake variable "
          "KJUDGE_TORCH_PYTHON picks the interpreter)")
    sys.exit(77)

FAILURES = []


def expect(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "kb"
        run = subprocess.run([sys.executable, IMPORTER, FIXTURES, out, "--levels", "3",
                              "--examples", Path(tmp) / "none", "--json"],
                             capture_output=True, text=True)
        expect(run.returncode == 0, f"importer exit 0 (rc {run.returncode}: {run.stderr[-800:]})")
        report = json.loads(run.stdout or "{}")
        summary = report.get("summary", {})
        expect(summary.get("imported") == 1 and summary.get("gpu_only") == 1,
               f"the too-big module is imported as GPU-only: {summary}")
        problem = out / "level3" / "1_MyWideMLP"
        toml_text = (problem / "problem.toml").read_text() if problem.is_dir() else ""
        expect(any(line.startswith("# gpu-only-check:") and "too slow for the CPU" in line
                   for line in toml_text.splitlines()),
               "problem.toml carries the gpu-only-check flag with the CPU's reason")
        if toml_text:
            spec = tomllib.loads(toml_text)
            shapes = spec["test_shapes"]
            expect([s["batch_size"] for s in shapes] == [1, 2, 3],
                   f"the smallest candidate of each ladder: {shapes}")
            expect(all(s.get("input_scale", 1) == 1 for s in shapes),
                   "no stress shape (it would need a CPU run)")
            expect(all(s["net_2_weight_d0"] == 6000 for s in shapes),
                   "the list-held width stays at its value")
            expect(spec["tolerance"]["rel_l2"] == 1e-3, "level 3's default tolerance")
            expect(spec["module"]["parameters"]["net.2.weight"] == "net_2_weight",
                   "parameters bound as usual")
        check = subprocess.run([sys.executable, CHECKER, out, "--no-gpu", "--json",
                                Path(tmp) / "check.json"], capture_output=True, text=True)
        expect(check.returncode == 0, f"a skip is not a failure: {check.stdout[-800:]}")
        result = json.loads((Path(tmp) / "check.json").read_text()) if check.returncode == 0 \
            else {}
        expect(result.get("skipped") == 1 and result.get("passed") == 0 and
               result.get("failed") == 0, f"reported as skipped: {result}")
        expect(" skip " in check.stdout and "GPU-only check" in check.stdout,
               f"the skip is visible: {check.stdout[-800:]}")
    if FAILURES:
        print(f"{len(FAILURES)} failure(s)")
        return 1
    print("importer_gpu_only: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
