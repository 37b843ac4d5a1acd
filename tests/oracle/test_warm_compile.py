"""kjudge_oracle.warm_compile: finds module problems, compiles each in its own process into the
given cache, reports each; clear errors for bad usage. Run by run_tests.py (CPU and --cuda)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import torch

from oracle_client import ORACLE_PATH  # a source tree's worker/oracle or a bundle's

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = Path(ORACLE_PATH)
RELU = ROOT / "problems" / "level1" / "19_ReLU"


def warm(*args, timeout=600):
    env = dict(os.environ, PYTHONPATH=str(PACKAGE))
    return subprocess.run([sys.executable, "-m", "kjudge_oracle.warm_compile", *map(str, args)],
                          env=env, capture_output=True, text=True, timeout=timeout)


def small_relu(folder: Path) -> Path:
    """The catalog's 19_ReLU (reference.py beside reference.cu) at a bench shape a CPU compiles."""
    dest = folder / "level1" / "19_ReLU"
    shutil.copytree(RELU, dest)
    toml = (dest / "problem.toml").read_text()
    toml, n = re.subn(r"^bench_shapes = .*$", "bench_shapes = [ { M = 33, N = 65 } ]", toml,
                      flags=re.M)
    assert n == 1, "19_ReLU's problem.toml has no bench_shapes line"
    (dest / "problem.toml").write_text(toml)
    return dest


class WarmCompileTest(unittest.TestCase):
    def test_help_teaches(self):
        r = warm("--help")
        self.assertEqual(r.returncode, 0)
        for word in ("--cache", "--jobs", "--torch-compile-cache", "PROBLEMS"):
            self.assertIn(word, r.stdout)

    def test_bad_usage_exits_2_saying_what(self):
        with tempfile.TemporaryDirectory() as tmp:
            r = warm(tmp)
            self.assertEqual(r.returncode, 2)
            self.assertIn("--cache", r.stderr)
            r = warm("--cache", Path(tmp) / "c", Path(tmp) / "nowhere")
            self.assertEqual(r.returncode, 2)
            self.assertIn("no such folder", r.stderr)
            self.assertIn("nowhere", r.stderr)
            r = warm("--cache", Path(tmp) / "c", tmp)  # a folder without module problems
            self.assertEqual(r.returncode, 2)
            self.assertIn("no problem with [reference] module", r.stderr)

    def test_compiles_into_the_cache_or_says_why_not(self):
        with tempfile.TemporaryDirectory() as tmp:
            problems = Path(tmp) / "problems"
            small_relu(problems)
            (problems / "not_a_module_problem").mkdir()
            (problems / "not_a_module_problem" / "problem.toml").write_text('name = "x"\n')
            cache = Path(tmp) / "cache"
            r = warm("--cache", cache, "--jobs", "2", "--json", Path(tmp) / "r.json", problems)
            self.assertIn("[1/1]", r.stdout)  # the one module problem, not the other folder
            self.assertIn("19_ReLU", r.stdout)
            self.assertTrue((Path(tmp) / "r.json").is_file())
            if not hasattr(torch, "compile"):  # Debian 12's torch 1.13
                self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
                self.assertIn("FAIL", r.stdout)
                self.assertIn("has no torch.compile", r.stdout)
                return
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn("1 of 1 compiled", r.stdout)
            files = [p for p in cache.rglob("*") if p.is_file()]
            self.assertTrue(files, "Inductor wrote nothing into the cache folder")


if __name__ == "__main__":
    unittest.main()
