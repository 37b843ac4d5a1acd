"""The input regimes of kjudge_oracle.spec_tools (issue 26 point 2; problems/README.md "Input
regimes"): the Python twin of the judge's draw(..., regime) and check_problems.py's admission
rule. Distributions are checked with sample statistics on 200k draws (bounds far outside the
sampling noise, and far inside what a wrong map would give)."""
import math
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "worker" / "oracle"))

import torch  # noqa: E402

from kjudge_oracle.spec_tools import REGIMES, apply_regime, draw  # noqa: E402
import check_problems  # noqa: E402  (worker/oracle/check_problems.py)

N = 200_000
NORMAL = {"dist": "normal", "mean": 0.0, "std": 1.0}
UNIFORM = {"dist": "uniform", "low": 0.0, "high": 1.0}


def sample(init, regime, dtype="f64", scale=1.0, seed=3):
    gen = torch.Generator().manual_seed(seed)
    return draw(dtype, init, [N], scale, gen, regime=regime).double()


class RegimeDraws(unittest.TestCase):
    def test_names(self):
        self.assertEqual(REGIMES, ("offset", "large", "ties", "zeros", "positive", "negative"))

    def test_declared_is_the_plain_draw(self):
        gen_a, gen_b = torch.Generator().manual_seed(5), torch.Generator().manual_seed(5)
        a = draw("f32", NORMAL, [1000], 2.0, gen_a)
        b = draw("f32", NORMAL, [1000], 2.0, gen_b, regime="declared")
        self.assertTrue(torch.equal(a, b))

    def test_offset_normal_moves_the_mean_by_32_std(self):
        v = sample({"dist": "normal", "mean": 1.0, "std": 2.0}, "offset")
        self.assertAlmostEqual(float(v.mean()), 1.0 + 64.0, delta=0.05)
        self.assertAlmostEqual(float(v.std()), 2.0, delta=0.05)

    def test_offset_uniform_uses_its_std_and_input_scale(self):
        v = sample(UNIFORM, "offset", scale=10.0)  # U(0, 10): sigma = 10 / sqrt(12)
        self.assertAlmostEqual(float(v.min()), 32 * 10 / math.sqrt(12), delta=0.01)
        self.assertAlmostEqual(float(v.max()), 10 + 32 * 10 / math.sqrt(12), delta=0.01)

    def test_large_multiplies_by_100(self):
        v = sample(NORMAL, "large")
        self.assertAlmostEqual(float(v.std()), 100.0, delta=1.0)
        self.assertGreater(float(v.abs().max()), 400.0)

    def test_ties_is_a_grid_of_half_sigma(self):
        v = sample({"dist": "normal", "mean": 0.0, "std": 4.0}, "ties")  # q = 2
        self.assertTrue(torch.equal(v, torch.round(v / 2.0) * 2.0))
        self.assertLess(v.unique().numel(), 40)  # N(0, 4) over a grid of 2: ~ +-20
        self.assertGreater(v.unique().numel(), 10)
        u = sample(UNIFORM, "ties")  # q = 1 / (2 sqrt(12)) ~ 0.144: 8 points in [0, 1]
        self.assertLessEqual(u.unique().numel(), 8)

    def test_ties_rounds_half_to_even(self):
        v = torch.tensor([0.5, 1.5, 2.5, -0.5], dtype=torch.float64)
        self.assertEqual(apply_regime(v, "ties", 2.0).tolist(), [0.0, 2.0, 2.0, -0.0])

    def test_zeros_is_half_exact_zeros_and_keeps_the_rest(self):
        gen = torch.Generator().manual_seed(9)
        plain = draw("f64", NORMAL, [N], 1.0, torch.Generator().manual_seed(9))
        v = draw("f64", NORMAL, [N], 1.0, gen, regime="zeros")
        zero = v == 0
        self.assertAlmostEqual(float(zero.double().mean()), 0.5, delta=0.01)
        self.assertTrue(torch.equal(v[~zero], plain[~zero]))  # the mask comes after the draw

    def test_signs(self):
        self.assertGreaterEqual(float(sample(NORMAL, "positive").min()), 0.0)
        self.assertLessEqual(float(sample(NORMAL, "negative").max()), 0.0)
        self.assertAlmostEqual(float(sample(NORMAL, "positive").mean()), math.sqrt(2 / math.pi),
                               delta=0.01)

    def test_before_the_transform(self):  # softmax of an offset row = softmax of the row
        init = {"dist": "normal", "mean": 0.0, "std": 1.0, "transform": "softmax"}
        a = draw("f64", init, [4, 50], 1.0, torch.Generator().manual_seed(1))
        b = draw("f64", init, [4, 50], 1.0, torch.Generator().manual_seed(1), regime="offset")
        self.assertTrue(torch.allclose(a, b))
        s = draw("f64", {**NORMAL, "transform": "sign"}, [1000], 1.0,
                 torch.Generator().manual_seed(1), regime="negative")
        self.assertTrue(bool((s == -1).all()))

    def test_integer_and_unscalable_tensors_are_drawn_as_declared(self):
        ints = {"dist": "uniform", "low": 0.0, "high": 9.0}
        for regime in REGIMES:
            a = draw("i64", ints, [500], 1.0, torch.Generator().manual_seed(2))
            b = draw("i64", ints, [500], 1.0, torch.Generator().manual_seed(2), regime=regime)
            self.assertTrue(torch.equal(a, b), regime)
            fixed = {**UNIFORM, "scalable": False}
            a = draw("f32", fixed, [500], 1.0, torch.Generator().manual_seed(2))
            b = draw("f32", fixed, [500], 1.0, torch.Generator().manual_seed(2), regime=regime)
            self.assertTrue(torch.equal(a, b), regime)

    def test_unknown_regime_is_an_error(self):
        with self.assertRaisesRegex(ValueError, "unknown input regime 'offest'"):
            draw("f32", NORMAL, [3], 1.0, torch.Generator(), regime="offest")
        with self.assertRaisesRegex(ValueError, "unknown input regime"):
            draw("i32", NORMAL, [3], 1.0, torch.Generator(), regime="offest")


TOML = '''name = "t/x"
description = """
bench_shapes = [ { N = 1 } ]
[not a table]
example = "no.cu"
"""
test_shapes = [ { N = 3 } ]
bench_shapes = [
  { N = 8 },  # [a comment]
]
example = "solution.cu"

[[tensor]]
name = "X"
'''


class Compare(unittest.TestCase):
    def test_exact_zero_with_a_zero_bound_passes(self):  # atol = 0 and a zero reference
        from kjudge_oracle.spec_tools import compare  # noqa: PLC0415
        self.assertEqual(compare(torch.tensor([0.0, 2.0]), torch.tensor([0.0, 2.0]), 0.0, 1e-5,
                                 1e-5), (True, 0.0))
        ok, worst = compare(torch.tensor([1e-9, 2.0]), torch.tensor([0.0, 2.0]), 0.0, 1e-5, 1e-5)
        self.assertFalse(ok)
        self.assertTrue(math.isinf(worst))


class WriteRegimes(unittest.TestCase):
    def test_inserted_after_example_and_nothing_else_changes(self):
        out = check_problems.with_regimes(TOML, ["offset", "ties"])
        lines = out.splitlines()
        at = lines.index('example = "solution.cu"')
        self.assertEqual(lines[at + 1], check_problems.REGIMES_COMMENT)
        self.assertEqual(lines[at + 2], 'regimes = ["offset", "ties"]')
        self.assertEqual("\n".join(lines[:at + 1] + lines[at + 3:]) + "\n", TOML)

    def test_after_a_multi_line_bench_shapes_without_example(self):
        text = TOML.replace('example = "solution.cu"\n', "")
        lines = check_problems.with_regimes(text, []).splitlines()
        self.assertEqual(lines[lines.index("]") + 2], "regimes = []")

    def test_rewritten_in_place_idempotent(self):
        once = check_problems.with_regimes(TOML, ["large"])
        twice = check_problems.with_regimes(once, ["zeros", "negative"])
        self.assertEqual(twice, check_problems.with_regimes(TOML, ["zeros", "negative"]))
        self.assertEqual(check_problems.with_regimes(twice, ["zeros", "negative"]), twice)

    def test_no_bench_shapes_is_an_error(self):
        with self.assertRaisesRegex(ValueError, "no top-level bench_shapes"):
            check_problems.with_regimes('name = "x"\n', [])


SPEC = {"test_shapes": [{"N": 5}, {"N": 64, "input_scale": 100.0}], "bench_shapes": [{"N": 4096}],
        "tensor": [{"name": "X", "dtype": "f32", "shape": ["N"], "role": "in",
                    "init": {"dist": "normal", "mean": 0.0, "std": 1.0}},
                   {"name": "Y", "dtype": "f32", "shape": ["N"], "role": "out"}],
        "module": {"globals": ["N"], "forward": ["X"], "outputs": ["Y"], "precision": "f64"},
        "tolerance": {"atol": 1e-5, "rtol": 1e-5, "rel_l2": 1e-5},
        "cost": {"flops": "N", "bytes": "8 * N"}}
MODULE = """import torch
N = 16
class Model(torch.nn.Module):
    def forward(self, x):
        return {body}
def get_inputs():
    return [torch.randn(N)]
def get_init_inputs():
    return []
"""


def admitted(body):
    verdicts = check_problems.admit_regimes(SPEC, MODULE.format(body=body), "t/reference.py")
    return check_problems.admitted_list(verdicts), verdicts


class AdmissionRule(unittest.TestCase):
    def test_stable_elementwise_admits_every_regime(self):
        self.assertEqual(admitted("torch.tanh(x)")[0], list(REGIMES))

    def test_log_refuses_what_makes_it_non_finite(self):
        got, verdicts = admitted("torch.log(x.abs())")  # log 0 = -inf: the zeros regime
        self.assertNotIn("zeros", got)
        self.assertIn("not finite", verdicts["zeros"]["reason"])
        self.assertIn("offset", got)

    def test_overflow_at_the_bench_shape_refuses_large(self):
        got, verdicts = admitted("torch.exp(x * 0.5)")  # exp(0.5 * 100 * 4.5 * ...) = inf
        self.assertNotIn("large", got)
        self.assertTrue(math.isinf(verdicts["large"]["worst"]) or
                        "not finite" in verdicts["large"]["reason"])

    def test_bench_shape_finiteness(self):  # |x| 4096^10 ~ 1e36: x100 overflows f32 there only
        got, verdicts = admitted("x * float(x.numel()) ** 10")
        self.assertNotIn("large", got)
        self.assertIn("at the bench shape", verdicts["large"]["reason"])
        self.assertLess(verdicts["large"]["worst"], 1.0)  # the test shapes were fine
        self.assertIn("offset", got)

    def test_cancellation_refuses_offset(self):  # one-pass variance in float32: mean 32 sigma
        got, verdicts = admitted("(x * x).mean(0, keepdim=True) - x.mean(0, keepdim=True) ** 2 "
                                 "+ x * 0")
        self.assertNotIn("offset", got)
        self.assertGreater(verdicts["offset"]["worst"], 1.0)
        self.assertIn("tolerance away", verdicts["offset"]["reason"])

    def test_unscalable_inputs_admit_nothing(self):
        spec = {**SPEC, "tensor": [{**SPEC["tensor"][0], "init": {
            "dist": "uniform", "low": 0.0, "high": 1.0, "scalable": False}}, SPEC["tensor"][1]]}
        verdicts = check_problems.admit_regimes(spec, MODULE.format(body="x"), "t/ref.py")
        self.assertEqual(check_problems.admitted_list(verdicts), [])


if __name__ == "__main__":
    unittest.main()
