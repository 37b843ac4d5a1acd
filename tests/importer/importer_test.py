#!/usr/bin/python3
"""CTest `importer`: runs deploy/kernelbench/import_kernelbench.py on tests/importer/fixtures
(KernelBench-form files written for kjudge) and checks what it generates, then runs
worker/oracle/check_problems.py over the result. CPU only; needs torch (exit 77 = SKIP without).

Checked per fixture: the spec's name, tensor names and order (frozen naming rules of
docs/pytorch-problems.md §5), sizes; at every test and bench shape the input shapes equal
get_inputs()'s and the output shapes equal the module's at that shape; inits (rand/randn/
randint, parameter scale, BatchNorm buffers); cost at the bench shape; the starter's plan names
the real tensors; globals equal at every shape are told apart (6_MyCollidingSizes); a module whose
output depends on dropout's random mask is skipped (7_MyRandomDrop); our example solution is
copied as solution.cu (fixtures/examples); a hand-patched problem (hand_patches.py: level2/66's
dropout draws become an input) imports and passes the checker; structure get_inputs() gives its random values
becomes an init transform (8_MyStructuredInputs: softmax, tril, sign; 9_MyMaskedMix: triu,
symmetric) and a constant buffer the module registers stays its own, unbound (9_MyMaskedMix's
`keep`), while torch.nn's buffers stay inputs (4_MyBatchNorm); kjudge_oracle.spec_tools.draw
applies every transform (rows sum to 1, zeros above the diagonal, ...). Also: --help teaches,
an unreadable level exits 1, --json is valid JSON. Issue 26: every spec has the `regimes` line
check_problems.admit_regimes decides; `[cost] min_flops` (7/8 of the GEMM flops) only for the
GEMM-like fixture (2_MyLinear), never for a convolution or a masked / triangular chain
(9_MyMaskedMix) or a GEMM of a triangular input (8_MyStructuredInputs); gemm_bound.GemmBound claims a bound exactly for the patterns its contract names.
"""
import json
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "importer" / "fixtures"
EXAMPLES = FIXTURES / "examples"  # our example solutions' layout: level<L>/<name>.cu
IMPORTER = ROOT / "deploy" / "kernelbench" / "import_kernelbench.py"
CHECKER = ROOT / "worker" / "oracle" / "check_problems.py"

try:
    import torch
except ImportError:
    print(f"SKIP: {sys.executable} has no torch (install python3-torch; CMake variable "
          "KJUDGE_TORCH_PYTHON picks the interpreter)")
    sys.exit(77)

sys.path.insert(0, str(ROOT / "worker" / "oracle"))
from kjudge_oracle.module_problem import ModuleProblem  # noqa: E402
from kjudge_oracle.spec_tools import (REGIMES, draw, eval_size_expr, shape_of,  # noqa: E402
                                      sizes_of)

FAILURES = []


def expect(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what)


EXPECTED = {
    "1_MyTanhHalf": (["x", "out"], ["rows", "cols"]),
    "2_MyLinear": (["x", "proj_weight", "proj_bias", "out"],
                   ["batch_size", "in_features", "out_features"]),
    "3_MyStridedConv": (["image", "conv_weight", "out"],
                        ["batch_size", "in_channels", "out_channels", "kernel_size", "height",
                         "width", "out_d2", "out_d3"]),
    "4_MyBatchNorm": (["x", "norm_weight", "norm_bias", "norm_running_mean", "norm_running_var",
                       "norm_num_batches_tracked", "out"], ["batch_size", "channels", "length"]),
    "5_MyTwoOutputs": (["scores", "labels", "out0", "out1"], ["batch_size", "num_classes"]),
    "6_MyCollidingSizes": (["x", "conv_weight", "out"],
                           ["batch_size", "in_channels", "out_channels", "kernel_size", "length",
                            "out_d2"]),
    "8_MyStructuredInputs": (["probs", "lower", "signs", "plain", "out"], ["rows", "cols"]),
    "9_MyMaskedMix": (["x", "upper", "sym", "mix_weight", "mix_bias", "out"], ["width"]),
}
# Expected init transforms (tensor -> transform) and buffers left to the module.
TRANSFORMS = {"8_MyStructuredInputs": {"probs": "softmax", "lower": "tril", "signs": "sign",
                                       "plain": None},
              "9_MyMaskedMix": {"x": None, "upper": "triu", "sym": "symmetric",
                                "mix_weight": None}}
STRUCTURAL = {"9_MyMaskedMix": ["keep"]}


def check_shapes(stem, spec, source):
    """Every shape: get_inputs()/module output shapes equal the spec's expressions."""
    module = spec["module"]
    for shape in spec["test_shapes"] + spec["bench_shapes"]:
        sizes = sizes_of(shape)
        overrides = {g: sizes[g] for g in module["globals"]}
        mp = ModuleProblem(source, stem, overrides)
        tensors = {t["name"]: t for t in spec["tensor"]}
        for name, t in zip(module["forward"], mp.sample_inputs()):
            expect(list(t.shape) == list(shape_of(tensors[name]["shape"], sizes)),
                   f"{stem} {shape}: input {name} is {list(t.shape)}")
        for key, t in mp.model.state_dict().items():
            if key in STRUCTURAL.get(stem, []):
                expect(key not in module["parameters"], f"{stem}: buffer {key} is not bound")
                continue
            name = module["parameters"][key]
            expect(list(t.shape) == list(shape_of(tensors[name]["shape"], sizes)),
                   f"{stem} {shape}: parameter {name} is {list(t.shape)}")
        if shape in spec["bench_shapes"] or shape.get("input_scale", 1) != 1:
            continue
        inputs = mp.sample_inputs()
        outs = mp.run(inputs, mp.model.state_dict(), torch.float64)
        for name, o in zip(module["outputs"], outs):
            expect(list(o.shape) == list(shape_of(tensors[name]["shape"], sizes)),
                   f"{stem} {shape}: output {name} is {list(o.shape)}")


def check_draw_transforms():
    """spec_tools.draw (the CPU checks' copy of the judge's draw) applies init.transform after
    the scaled draw, in float64, then casts."""
    gen = torch.Generator().manual_seed(3)
    base = {"dist": "uniform", "low": 0.0, "high": 1.0}
    soft = draw("f32", dict(base, transform="softmax"), (6, 2, 9), 1.0, gen)
    expect(soft.dtype == torch.float32 and bool((soft > 0).all()) and
           bool(((soft.double().sum(-1) - 1).abs() < 1e-6).all()),
           "draw softmax: rows along the last dim are positive and sum to 1")
    sharp = draw("f32", dict(base, transform="softmax"), (4, 50), 100.0, gen)
    expect(bool(((sharp.double().sum(-1) - 1).abs() < 1e-6).all()) and float(sharp.max()) > 0.5,
           "draw softmax at input_scale 100: logits scaled first, the output still sums to 1")
    low = draw("f64", dict(base, transform="tril"), (3, 5, 7), 1.0, gen)
    expect(bool((low.triu(1) == 0).all()) and bool((low.tril() != 0).any()),
           "draw tril: zero above the diagonal of the last two dims, values below")
    up = draw("f16", dict(base, transform="triu"), (5, 5), 1.0, gen)
    expect(up.dtype == torch.float16 and bool((up.tril(-1) == 0).all()),
           "draw triu: zero below the diagonal")
    sym = draw("f32", dict(base, transform="symmetric"), (2, 8, 8), 1.0, gen)
    expect(torch.equal(sym, sym.transpose(-1, -2)), "draw symmetric: equal to its transpose")
    sign = draw("f32", {"dist": "uniform", "low": -1.0, "high": 1.0, "transform": "sign"},
                (1000,), 1.0, gen)
    expect(set(sign.tolist()) == {-1.0, 1.0}, "draw sign: only -1 and +1")
    plain = draw("f32", base, (4, 4), 1.0, gen)
    expect(bool((plain.tril(-1) != 0).any() and (plain.triu(1) != 0).any()),
           "draw without a transform: a general matrix")
    for bad, what in ((dict(base, transform="cumsum"), "unknown"),
                      (dict(base, transform="tril"), "rank")):
        try:
            draw("f32", bad, (5,), 1.0, gen)
            expect(False, f"draw rejects a bad transform ({what})")
        except ValueError:
            pass


# Our own KernelBench-form module with the lines hand_patches.py rewrites for level2/66 (a
# dropout whose random numbers become an input): imported under that name, it must be judgeable.
DROPOUT_66 = """import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, in_features, out_features, dropout_p):
        super(Model, self).__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, x):
        x = self.matmul(x)
        x = self.dropout(x)
        x = torch.softmax(x, dim=1)
        return x

batch_size = 24
in_features = 40
out_features = 36
dropout_p = 0.2

def get_inputs():
    return [torch.rand(batch_size, in_features)]

def get_init_inputs():
    return [in_features, out_features, dropout_p]
"""


def check_hand_patches(tmp):
    """hand_patches.py: a patched problem imports with its randomness as an input and passes
    check_problems; a file that lost a patch's text is skipped naming the patch."""
    sys.path.insert(0, str(IMPORTER.parent))
    from hand_patches import HAND_PATCHES, HandPatchError, apply_hand_patches
    for key, patches in HAND_PATCHES.items():
        source = "\n".join(p.old for p in patches) + "\n"
        patched, notes = apply_hand_patches(key, source)
        expect(all(p.new in patched for p in patches) and notes and
               all(n.startswith("changed by hand: ") for n in notes),
               f"{key}: every patch applies to its text and says why")
        try:
            apply_hand_patches(key, "# a file without the patched lines\n")
            expect(False, f"{key}: a file without the text raises HandPatchError")
        except HandPatchError as exc:
            expect(key in str(exc) and "hand_patches.py" in str(exc),
                   f"{key}: the error names the problem and the file to update: {exc}")
    kb = Path(tmp) / "kb66"
    (kb / "level2").mkdir(parents=True)
    (kb / "level2" / "66_Matmul_Dropout_Softmax.py").write_text(DROPOUT_66)
    out = Path(tmp) / "out66"
    run = subprocess.run([sys.executable, IMPORTER, kb, out, "--levels", "2", "--json"],
                         capture_output=True, text=True)
    report = json.loads(run.stdout) if run.returncode == 0 else {"problems": []}
    got = report["problems"][0] if report["problems"] else {}
    expect(got.get("status") == "imported", f"patched 66 imports: {got or run.stderr[-500:]}")
    if got.get("status") != "imported":
        return
    d = out / "level2" / "66_Matmul_Dropout_Softmax"
    spec = tomllib.loads((d / "problem.toml").read_text())
    names = [t["name"] for t in spec["tensor"]]
    expect(names[:2] == ["x", "dropout_u"] and spec["module"]["forward"] == ["x", "dropout_u"],
           f"66: the dropout's random numbers are the second input: {names}")
    expect("changed by hand" in spec["description"], "66: the description says what changed")
    expect("self.dropout(x)" not in (d / "reference.py").read_text().split("kjudge: was")[0],
           "66: reference.py no longer calls the dropout")
    check = subprocess.run([sys.executable, CHECKER, out, "--no-gpu"], capture_output=True,
                           text=True)
    expect(check.returncode == 0, f"66: check_problems passes: {check.stdout[-800:]}")


def check_fit_flops():
    """fit_flops finds an exact product of sizes, and gives up on a deep model's hundreds of
    derived sizes within its bound (level3/45 searched C(n, 6) products for hours)."""
    sys.path.insert(0, str(IMPORTER.parent))
    import import_kernelbench as imp  # noqa: E402 pylint: disable=import-outside-toplevel

    class Run:  # the one field fit_flops reads
        def __init__(self, flops):
            self.flops = flops

    shapes = [{"b": 2, "n": 3}, {"b": 5, "n": 7}, {"b": 11, "n": 13}]
    runs = [Run(4 * v["b"] * v["n"]) for v in shapes]
    expr, _ = imp.fit_flops(runs, lambda r: shapes[runs.index(r)], ["b", "n"])
    expect(expr == "4 * b * n", f"fit_flops fits 4 * b * n exactly: {expr}")

    many = [f"x_d{i}" for i in range(300)]
    deep = [{s: 2 + i * 3 + k for i, s in enumerate(many)} for k in range(3)]
    deep_runs = [Run(10 ** 9 + d) for d in (0, 7, 100)]  # no c * product + d fits these
    started = time.time()
    saved = imp.FIT_FLOPS_TRIES
    imp.FIT_FLOPS_TRIES = 20_000
    try:
        expr, note = imp.fit_flops(deep_runs, lambda r: deep[deep_runs.index(r)], many)
    finally:
        imp.FIT_FLOPS_TRIES = saved
    expect(expr == str(10 ** 9) and "within 20000 tries" in note and time.time() - started < 30,
           f"fit_flops gives up within its bound on 300 derived sizes: {expr!r}, {note[-80:]!r}")


def check_test_batches():
    """candidate_shapes takes each test shape's batch size from TEST_BATCHES where a problem
    needs more values per channel than BATCH_VALUES give (level3/24: BatchNorm over the batch
    alone), never above the bench batch, and keeps BATCH_VALUES elsewhere."""
    sys.path.insert(0, str(IMPORTER.parent))
    import import_kernelbench as imp  # noqa: E402 pylint: disable=import-outside-toplevel
    values = {"batch_size": 16, "n": 100}
    default = imp.candidate_shapes(["batch_size", "n"], values, ["batch_size", "n"])
    expect([ladder[0]["batch_size"] for ladder in default] == imp.BATCH_VALUES,
           f"test shapes use BATCH_VALUES by default: {[lad[0] for lad in default]}")
    batches, why = imp.TEST_BATCHES["level3/24_EfficientNetB2"]
    chosen = imp.candidate_shapes(["batch_size", "n"], values, ["batch_size", "n"], batches)
    expect(all(rung["batch_size"] == b for ladder, b in zip(chosen, batches) for rung in ladder)
           and why, f"every rung of a test shape keeps the problem's batch: {chosen[0][:2]}")
    small = imp.candidate_shapes(["batch_size"], {"batch_size": 9}, ["batch_size"], batches)
    expect([ladder[0]["batch_size"] for ladder in small] == [8, 9, 9],
           f"a test batch never exceeds the bench batch: {[lad[0] for lad in small]}")


GEMM_CASES = {  # forward body over x [8, 16], w [16, 12], v [12, 12] -> GEMM flops or None
    "torch.relu(x @ w) * 2 + 1": 2 * 8 * 16 * 12,                   # GEMM, elementwise epilogue
    "torch.softmax(torch.nn.functional.layer_norm(x @ w, [12]), 1)": 2 * 8 * 16 * 12,
    "x @ w[:, :1]": 2 * 8 * 16,                                       # a GEMV
    "torch.softmax((x @ w) / 4, -1) @ v": 2 * 8 * 16 * 12 + 2 * 8 * 12 * 12,  # attention
    "(x @ w).sum(1)": None,                     # level2/14: a GEMV of column sums does it
    "(x @ w).amax(1, keepdim=True) - x[:, :1]": None,
    "(x @ w)[:4]": None,                        # half the result is never needed
    "x @ w @ v": None,                          # reassociation: x (w v)
    "torch.relu(x @ w) @ v": None,              # two GEMMs without a softmax: not claimed
    "torch.tril(x[:, :8]) @ w[:8]": None,       # triangular operand
    "(x @ w).masked_fill(w[:8, :12] > 0, 0.0)": None,  # masks skip blocks
    "x.expand(3, 8, 16) @ w": None,             # a broadcast copy of the operand
    "torch.softmax((x @ w) * (v[:8] >= 0.2).float(), 1)": None,  # level2/66's dropout mask
}


def check_gemm_bound():
    """gemm_bound.GemmBound on meta forwards: exact GEMM flops for the patterns it claims, None
    wherever an algorithm could do less (the module contract); fit_monomial finds N * N * N."""
    sys.path.insert(0, str(ROOT / "deploy" / "kernelbench"))
    import gemm_bound  # noqa: PLC0415
    import import_kernelbench as imp  # noqa: PLC0415
    x, w, v = (torch.empty(*s, device="meta") for s in ((8, 16), (16, 12), (12, 12)))
    for body, want in GEMM_CASES.items():
        counter = imp.FlopCounter()
        counter.gemm.mark_inputs([x, w, v])
        with torch.no_grad(), counter:
            out = eval(body, {"torch": torch, "x": x, "w": w, "v": v})  # noqa: S307 - ours
        got = counter.gemm.bound([out])
        expect(got == want, f"GemmBound({body}) = {got}, want {want} ({counter.gemm.refused})")
    conv = torch.nn.Conv2d(3, 4, 3).to("meta")
    counter = imp.FlopCounter()
    with torch.no_grad(), counter:
        out = conv(torch.empty(1, 3, 8, 8, device="meta"))
    expect(counter.gemm.bound([out]) is None, "a convolution claims no GEMM bound")
    sizes = [{"N": 5}, {"N": 7}, {"N": 4096}]
    expect(gemm_bound.fit_monomial([2 * n["N"] ** 3 for n in sizes], sizes, ["N"]) ==
           "2 * N * N * N", "fit_monomial: 2 * N * N * N")
    mixed = [{"B": 1, "S": 5, "D": 8}, {"B": 2, "S": 7, "D": 8}, {"B": 3, "S": 9, "D": 4}]
    expect(gemm_bound.fit_monomial([4 * m["B"] * m["S"] ** 2 * m["D"] for m in mixed], mixed,
                                   ["B", "S", "D"]) == "4 * B * S * S * D",
           "fit_monomial: attention's 4 * B * S * S * D")
    expect(gemm_bound.fit_monomial([10, 11, 12], sizes, ["N"]) is None, "no fit: None")
    expect(gemm_bound.min_flops_expr("2 * M * N * K") == "7 * 2 * M * N * K / 8" and
           gemm_bound.min_flops_expr("2 * M + 1") == "7 * (2 * M + 1) / 8", "min_flops_expr")


def tree_files(root: Path) -> dict:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def check_parallel_matches_serial(parallel_out: Path, serial_out: Path, parallel_report: dict):
    """Issue 27 pt9: -j N (here 3 processes) writes exactly the files one process (-j 1) writes,
    and reports the problems in the same order with the same statuses."""
    run = subprocess.run([sys.executable, IMPORTER, FIXTURES, serial_out, "--levels", "1",
                          "--examples", EXAMPLES, "--json", "-j", "1"], capture_output=True,
                         text=True)
    expect(run.returncode == 0, f"-j 1 import exit 0 (rc {run.returncode}: {run.stderr[-500:]})")
    serial = json.loads(run.stdout)
    strip = lambda rep: [(p["name"], p["status"], p["reason"], p["gpu_only"]) for p in rep["problems"]]
    expect(strip(serial) == strip(parallel_report),
           f"-j 1 and -j 3 report the same problems in the same order: {strip(serial)}")
    a, b = tree_files(parallel_out), tree_files(serial_out)
    differ = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    expect(len(a) > 8 and not differ, f"-j 3 and -j 1 write identical files ({len(a)}); differ: {differ}")
    bad = subprocess.run([sys.executable, IMPORTER, FIXTURES, serial_out, "-j", "0"],
                         capture_output=True, text=True)
    expect(bad.returncode == 2 and "-j" in bad.stderr, f"-j 0 is refused: {bad.stderr[-300:]}")


def main():
    check_draw_transforms()
    check_fit_flops()
    check_gemm_bound()
    check_test_batches()
    with tempfile.TemporaryDirectory() as tmp:
        check_hand_patches(tmp)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "kb"
        help_run = subprocess.run([sys.executable, IMPORTER, "--help"], capture_output=True,
                                  text=True)
        expect(help_run.returncode == 0 and "KERNELBENCH_DIR" in help_run.stdout and
               "--json" in help_run.stdout, "--help explains the arguments")
        bad = subprocess.run([sys.executable, IMPORTER, FIXTURES, out, "--levels", "1,2"],
                             capture_output=True, text=True)
        expect(bad.returncode == 1 and "level2" in bad.stdout,
               f"a missing level folder exits 1 and names it (rc {bad.returncode})")
        stale = out / "level1" / "2_MyLinear" / "solution.cu"  # from an earlier import
        stale.parent.mkdir(parents=True, exist_ok=True)
        stale.write_text("// an example that no longer exists\n")
        run = subprocess.run([sys.executable, IMPORTER, FIXTURES, out, "--levels", "1",
                              "--examples", EXAMPLES, "--json", "-j", "3"], capture_output=True,
                             text=True)
        expect(run.returncode == 0, f"importer exit 0 (rc {run.returncode}: {run.stderr[-500:]})")
        report = json.loads(run.stdout)
        expect(report["summary"]["imported"] == 8 and report["summary"]["skipped"] == 1,
               f"8 fixtures imported, 1 skipped: {report['summary']}")
        drop = [p for p in report["problems"] if p["name"].endswith("7_MyRandomDrop")]
        expect(drop and drop[0]["status"] == "skipped" and "random mask" in drop[0]["reason"] and
               "drop (Dropout, p = 0.3)" in drop[0]["reason"],
               f"a random dropout is skipped, naming the module: {drop}")
        expect(report["summary"]["with_example"] == 1, f"one example: {report['summary']}")

        for stem, (names, sizes) in EXPECTED.items():
            d = out / "level1" / stem
            spec = tomllib.loads((d / "problem.toml").read_text())
            expect(spec["name"] == f"kernelbench/level1/{stem}", f"{stem}: name {spec['name']}")
            expect([t["name"] for t in spec["tensor"]] == names,
                   f"{stem}: tensors {[t['name'] for t in spec['tensor']]}")
            expect(spec["sizes"] == sizes, f"{stem}: sizes {spec['sizes']}")
            expect(2 <= len(spec["test_shapes"]) <= 5, f"{stem}: 2-5 test shapes")
            expect(spec["reference"]["module"] == "reference.py", f"{stem}: [reference] module")
            example = EXAMPLES / "level1" / f"{stem}.cu"
            if example.exists():
                expect(spec.get("example") == "solution.cu" and
                       (d / "solution.cu").read_text() == example.read_text(),
                       f"{stem}: our example is copied as solution.cu and named by the spec")
            else:
                expect("example" not in spec and not (d / "solution.cu").exists(),
                       f"{stem}: no example, no solution.cu (a stale one is removed)")
            source = (d / "reference.py").read_text()
            expect(source == (FIXTURES / "level1" / f"{stem}.py").read_text(),
                   f"{stem}: reference.py is the file, unchanged")
            check_shapes(stem, spec, source)
            starter = (d / "starter.cu").read_text()
            expect("kjudge-plan" in starter and all(n in starter for n in names),
                   f"{stem}: starter's plan names every tensor")
            bench = sizes_of(spec["bench_shapes"][0])
            flops = eval_size_expr(spec["cost"]["flops"], bench)
            nbytes = eval_size_expr(spec["cost"]["bytes"], bench)
            spec_tensors = {t["name"]: t for t in spec["tensor"]}
            want_bytes = sum(
                eval_size_expr(" * ".join(["1"] + list(t["shape"])), bench) *
                {"f32": 4, "i64": 8}[t["dtype"]] for t in spec_tensors.values())
            expect(nbytes == want_bytes, f"{stem}: bytes {nbytes} != {want_bytes}")
            for name, transform in TRANSFORMS.get(stem, {}).items():
                init = spec_tensors[name]["init"]
                expect(init.get("transform") == transform,
                       f"{stem}: {name}'s init transform is {transform}: {init}")
                if transform in ("softmax", "sign"):
                    expect(init.get("scalable") is False, f"{stem}: {name} is never scaled")
            if stem in STRUCTURAL:
                keys = list(spec["module"]["parameters"])
                expect(keys == ["mix.weight", "mix.bias"] and "keep" not in spec_tensors,
                       f"{stem}: the constant buffer stays the module's: {keys}")
                expect("Not given" in spec["description"] and "keep" in spec["description"],
                       f"{stem}: the description says the mask is not given")
            expect(set(spec.get("regimes", [None])) <= set(REGIMES) and
                   "Decided by worker/oracle/check_problems.py" in
                   (d / "problem.toml").read_text(),
                   f"{stem}: a regimes line from check_problems.py: {spec.get('regimes')}")
            gemm = stem in ("2_MyLinear",)
            expect(("min_flops" in spec["cost"]) == gemm,
                   f"{stem}: min_flops only for the GEMM-like fixtures: {spec['cost']}")
            if stem == "2_MyLinear":
                expect(flops == 2 * 40 * 96 * 80, f"{stem}: flops {flops} = 2 * B * I * O")
                expect(eval_size_expr(spec["cost"]["min_flops"], bench) == 7 * 40 * 96 * 80 // 4,
                       f"{stem}: min_flops 7/8 of 2 * B * I * O: {spec['cost']['min_flops']}")
                expect(spec["regimes"] == [r for r in REGIMES if r != "large"],
                       f"{stem}: a Linear admits every regime but 'large' (GEMM_OR_CONV: its "
                       f"products outgrow atol at the bench shape): {spec['regimes']}")
                w = spec_tensors["proj_weight"]["init"]
                expect(w["dist"] == "uniform" and abs(w["high"] - 96 ** -0.5) < 0.01 and
                       w["low"] == -w["high"] and w["scalable"] is False,
                       f"{stem}: weight init uniform(+-1/sqrt(96)): {w}")
                expect(spec_tensors["x"]["init"] == {"dist": "uniform", "low": 0.0, "high": 1.0},
                       f"{stem}: torch.rand -> uniform [0, 1)")
            if stem == "1_MyTanhHalf":
                expect(spec_tensors["x"]["init"] == {"dist": "normal", "mean": 0.0, "std": 1.0},
                       f"{stem}: torch.randn -> normal(0, 1)")
                expect(all(s["rows"] != 300 for s in spec["test_shapes"]), "sizes shrunk")
            if stem == "3_MyStridedConv":
                expect(flops == 2 * 6 * 12 * 19 * 24 * 8 * 9, f"{stem}: conv flops {flops}")
                expect(all(s["kernel_size"] == 3 for s in spec["test_shapes"]),
                       "kernel_size stays fixed")
            if stem == "4_MyBatchNorm":
                var = spec_tensors["norm_running_var"]["init"]
                expect(var["low"] > 0, f"running_var stays positive: {var}")
                wgt = spec_tensors["norm_weight"]["init"]
                expect(wgt["low"] == 0.9 and wgt["high"] == 1.1, f"weight near 1: {wgt}")
                expect(spec_tensors["norm_num_batches_tracked"]["dtype"] == "i64", "i64 buffer")
                expect(any(s.get("input_scale", 1) > 1 for s in spec["test_shapes"]),
                       "a norm has a stress shape")
            if stem == "6_MyCollidingSizes":
                weight = spec_tensors["conv_weight"]["shape"]
                expect(weight == ["out_channels", "in_channels", "kernel_size"],
                       f"{stem}: weight dims named after the globals they follow: {weight}")
                expect(any(s["in_channels"] != s["kernel_size"] for s in spec["test_shapes"]),
                       f"{stem}: a test shape varies in_channels alone")
                expect(all(s["kernel_size"] == 3 for s in spec["test_shapes"]),
                       f"{stem}: kernel_size (structural) is never varied")
            if stem == "5_MyTwoOutputs":
                labels = spec_tensors["labels"]
                expect(labels["dtype"] == "i64" and labels["init"]["scalable"] is False and
                       round(labels["init"]["low"]) == 0 and round(labels["init"]["high"]) == 9,
                       f"randint(0, 10) -> integers 0..9: {labels}")
                expect(spec["module"]["outputs"] == ["out0", "out1"], "two outputs")
                expect(all(s["num_classes"] == 10 for s in spec["test_shapes"]),
                       "a randint bound stays fixed")

        check_parallel_matches_serial(out, Path(tmp) / "serial", report)

        check = subprocess.run([sys.executable, CHECKER, out, "--no-gpu", "--json",
                                Path(tmp) / "check.json"], capture_output=True, text=True)
        expect(check.returncode == 0, f"check_problems passes: {check.stdout[-1500:]}")
        result = json.loads((Path(tmp) / "check.json").read_text())
        expect(result["passed"] == 8, f"check_problems checked 8: {result['passed']}")
        expect(result["complete"] is True and len(result["problems"]) == 8 and
               not (Path(tmp) / "check.json.tmp").exists(),
               "the JSON, rewritten after every problem, ends complete with all 8")
    print("importer test:", "FAILED" if FAILURES else "ok", f"({len(FAILURES)} failures)")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
