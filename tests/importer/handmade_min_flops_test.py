"""`[cost] min_flops` of the hand-made level-2 problems (issue 26.3): every one is what the
importer's rule (deploy/kernelbench/gemm_bound.py through import_kernelbench.min_flops_lines)
derives from its reference.py, as deploy/kernelbench/handmade_min_flops.py checks; and that check
fails for a declaration that is missing, wrong, or made where the rule gives none. Needs torch
(CPU); exit 77 (SKIP) without it.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "deploy" / "kernelbench" / "handmade_min_flops.py"
LEVEL2 = REPO / "problems" / "level2"


def check(*dirs: Path, write: bool = False) -> subprocess.CompletedProcess:
    argv = [sys.executable, str(SCRIPT), *map(str, dirs)] + (["--write"] if write else [])
    return subprocess.run(argv, capture_output=True, text=True, timeout=240, check=False)


class HandmadeMinFlopsTest(unittest.TestCase):
    def test_every_level2_problem_declares_what_the_rule_gives(self):
        done = check(LEVEL2)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertNotIn("BAD", done.stdout)
        # The GEMM + epilogue problems have one; a GEMM whose result is summed (14, 56) and two
        # chained GEMMs (bert_gemm_bias_gelu_add_layernorm) have none.
        declared = re.findall(r"^ok  (\S+): declared '", done.stdout, re.M)
        self.assertIn("level2/12_Gemm_Multiply_LeakyReLU", declared)
        self.assertIn("level2/bert_gemm_bias_add_layernorm", declared)
        for none in ("level2/14_Gemm_Divide_Sum_Scaling", "level2/56_Matmul_Sigmoid_Sum",
                     "level2/bert_gemm_bias_gelu_add_layernorm"):
            self.assertNotIn(none, declared)
        self.assertEqual(len(declared), 15, done.stdout)

    def _edited(self, problem: str, edit) -> Path:
        root = Path(tempfile.mkdtemp(prefix="kjudge-minflops-"))
        self.addCleanup(shutil.rmtree, root)
        shutil.copytree(LEVEL2 / problem, root / problem)
        toml = root / problem / "problem.toml"
        toml.write_text(edit(toml.read_text()))
        return root

    def test_the_check_fails_for_a_missing_wrong_or_unfounded_declaration(self):
        drop = self._edited("12_Gemm_Multiply_LeakyReLU", lambda t: re.sub(r"^min_flops = .*\n", "", t, flags=re.M))
        self.assertEqual(check(drop).returncode, 1)
        wrong = self._edited("12_Gemm_Multiply_LeakyReLU",
                             lambda t: re.sub(r"^min_flops = .*$", 'min_flops = "2 * M * N * K"', t, flags=re.M))
        self.assertEqual(check(wrong).returncode, 1)
        unfounded = self._edited("14_Gemm_Divide_Sum_Scaling",
                                 lambda t: t.replace("[cost]\n", '[cost]\nmin_flops = "7 * M * N * K / 4"\n'))
        self.assertEqual(check(unfounded).returncode, 1)
        # --write declares it where it is missing, and the check then passes.
        self.assertEqual(check(drop, write=True).returncode, 0)
        self.assertIn('min_flops = "7 * 2 * M * K * N / 8"', (drop / "12_Gemm_Multiply_LeakyReLU" / "problem.toml").read_text())


if __name__ == "__main__":
    try:
        import torch  # noqa: F401
    except ImportError:
        print("SKIP: needs torch (python3-torch)")
        sys.exit(77)
    unittest.main()
