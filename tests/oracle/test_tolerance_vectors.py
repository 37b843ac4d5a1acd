"""The PyTorch oracle's compare (worker/oracle/kjudge_oracle/spec_tools.py, which admits input
regimes in check_problems.py) against tests/vectors/tolerance.json, the cases the judge's own
rule (common/output_comparison.h, tested on the same file by test_worker_output_comparison)
decides: the two twins must give the same verdict on every case."""
import json
import math
import sys
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "worker" / "oracle"))

import torch  # noqa: E402

from kjudge_oracle.spec_tools import compare  # noqa: E402

VECTORS = ROOT / "tests" / "vectors" / "tolerance.json"


def value(v):
    return float(v)  # float("nan"), float("inf"), float("-inf") read the string forms


class SharedToleranceVectors(unittest.TestCase):
    def test_every_case_gets_the_judges_verdict(self):
        cases = json.loads(VECTORS.read_text())["cases"]
        self.assertGreaterEqual(len(cases), 10)
        for case in cases:
            with self.subTest(case["name"]):
                out = torch.tensor([value(v) for v in case["out"]], dtype=torch.float64)
                ref = torch.tensor([value(v) for v in case["ref"]], dtype=torch.float64)
                ok, worst = compare(out, ref, case["atol"], case["rtol"], case["rel_l2"])
                self.assertEqual(ok, case["pass"], f"worst ratio {worst}")
                self.assertEqual(ok, worst <= 1.0)
                if not ok:
                    self.assertTrue(worst > 1.0 or math.isnan(worst))


if __name__ == "__main__":
    unittest.main()
