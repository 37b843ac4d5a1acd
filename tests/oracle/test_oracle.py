"""The real oracle process over a real SOCK_SEQPACKET socket with real memfds (memory "host").

Each expected output is computed here with torch in float64 from the same inputs the oracle got.
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
import unittest

import torch
import torch.nn.functional as F

from fixtures import (CAUSAL_MASK, CONV, ELEMENTWISE, FLAGS_PROBE, LAMBDA_OVER_SUBMODULE, LINEAR_RELU, RAISES,
                      SLOW_TO_BUILD, TWO_OUTPUTS, load_request)
from gated_compile import gate_name
from oracle_client import HostTensor, OracleProcess, tensors_request


def run_request(key, tensors, precision="f64"):
    specs, fds = tensors_request(tensors)
    return {"op": "run", "key": key, "precision": precision, "memory": "host",
            "tensors": specs}, fds


class OracleCase(unittest.TestCase):
    """One oracle process for the class; helpers. No tests of its own."""

    oracle: OracleProcess

    @classmethod
    def setUpClass(cls):
        cls.oracle = OracleProcess()
        cls.gen = torch.Generator().manual_seed(1234)

    @classmethod
    def tearDownClass(cls):
        status = cls.oracle.close()
        assert status == 0, f"oracle exit status {status}"

    def setUp(self):
        self.tensors = []

    def tearDown(self):
        for t in self.tensors:
            t.close()

    def host(self, name, value):
        t = HostTensor(name, value)
        self.tensors.append(t)
        return t

    def empty(self, name, shape, dtype=torch.float32):
        t = HostTensor.empty(name, shape, dtype)
        self.tensors.append(t)
        return t

    def randn(self, *shape, dtype=torch.float32):
        return torch.randn(*shape, generator=self.gen, dtype=torch.float64).to(dtype)

    def ok(self, reply):
        self.assertTrue(reply["ok"], reply.get("error"))
        return reply

    def fail(self, reply, *needles):
        self.assertFalse(reply["ok"], reply)
        for needle in needles:
            self.assertIn(needle, reply["error"])
        return reply["error"]

    def run_ok(self, key, tensors, precision="f64"):
        req, fds = run_request(key, tensors, precision)
        return self.ok(self.oracle.request(req, fds))

    def assert_elementwise(self, x, y):
        """y holds ELEMENTWISE's output for x: tanh(x) * 0.5 + x / 3, in float32."""
        xv = x.read().double()
        torch.testing.assert_close(y.read(), (torch.tanh(xv) * 0.5 + xv / 3).float(),
                                   rtol=1e-6, atol=1e-6)

    def compile_until(self, key, state, timeout=60.0):
        """Asks `compile` until the key is no longer compiling; asserts it ended in `state`."""
        deadline = time.monotonic() + timeout
        reply = self.ok(self.oracle.request({"op": "compile", "key": key}))
        while reply["state"] == "compiling" and time.monotonic() < deadline:
            time.sleep(0.05)
            reply = self.ok(self.oracle.request({"op": "compile", "key": key}))
        self.assertEqual(reply["state"], state, reply["error"])
        return reply

    def still_serving(self):
        reply = self.ok(self.oracle.request({"op": "hello"}))
        self.assertEqual(reply["torch"], torch.__version__)



class OracleTest(OracleCase):
    # ---- hello, load, run ----
    def test_hello(self):
        hello = self.oracle.hello
        self.assertEqual(hello["op"], "hello")
        self.assertTrue(hello["ok"])
        self.assertEqual(hello["torch"], torch.__version__)
        self.assertEqual(hello["cuda"], torch.cuda.is_available())

    def test_elementwise(self):
        self.ok(self.oracle.request(load_request("ew|a", ELEMENTWISE,
                                                 {"batch_size": 3, "dim": 37}, ["x"], ["y"])))
        x = self.randn(3, 37)
        xt, yt = self.host("x", x), self.empty("y", [3, 37])
        reply = self.run_ok("ew|a", [xt, yt])
        self.assertGreater(reply["ms"], 0)
        x64 = x.double()
        expected = (torch.tanh(x64) * 0.5 + x64 / 3).float()
        torch.testing.assert_close(yt.read(), expected, rtol=0, atol=0)
        torch.testing.assert_close(xt.read(), x, rtol=0, atol=0)  # inputs are left alone

    def test_linear_relu_with_parameters(self):
        sizes = {"batch_size": 5, "in_features": 33, "out_features": 17}
        self.ok(self.oracle.request(load_request(
            "lin|a", LINEAR_RELU, sizes, ["x"], ["y"],
            [("linear.weight", "w"), ("linear.bias", "b")])))
        x, w, b = self.randn(5, 33), self.randn(17, 33), self.randn(17)
        ts = [self.host("x", x), self.host("w", w), self.host("b", b), self.empty("y", [5, 17])]
        self.run_ok("lin|a", ts)
        expected = torch.relu(F.linear(x.double(), w.double(), b.double())).float()
        torch.testing.assert_close(ts[3].read(), expected, rtol=0, atol=0)
        self.assertTrue((ts[3].read() == 0).any() and (ts[3].read() > 0).any())

    def test_precision_f64_and_f32_differ(self):
        sizes = {"batch_size": 8, "in_features": 512, "out_features": 64}
        self.ok(self.oracle.request(load_request(
            "lin|p", LINEAR_RELU, sizes, ["x"], ["y"],
            [("linear.weight", "w"), ("linear.bias", "b")])))
        x, w, b = self.randn(8, 512), self.randn(64, 512), self.randn(64)
        expected = torch.relu(F.linear(x.double(), w.double(), b.double()))
        got = {}
        for precision in ("f64", "f32"):
            ts = [self.host("x", x), self.host("w", w), self.host("b", b),
                  self.empty("y", [8, 64], torch.float64)]
            self.run_ok("lin|p", ts, precision)
            got[precision] = ts[3].read()
        torch.testing.assert_close(got["f64"], expected, rtol=1e-12, atol=1e-12)
        err32 = (got["f32"] - expected).abs().max().item()
        self.assertGreater(err32, 1e-9, "f32 arithmetic should not match float64 exactly")
        self.assertLess(err32, 1e-3)

    def test_two_outputs(self):
        self.ok(self.oracle.request(load_request("two|a", TWO_OUTPUTS, {"rows": 6, "cols": 10},
                                                 ["a", "b"], ["sum", "dot"])))
        a, b = self.randn(6, 10), self.randn(6, 10)
        ts = [self.host("a", a), self.host("b", b), self.empty("sum", [6, 10]),
              self.empty("dot", [6])]
        self.run_ok("two|a", ts)
        torch.testing.assert_close(ts[2].read(), (a.double() + b.double()).float(), rtol=0, atol=0)
        torch.testing.assert_close(ts[3].read(), (a.double() * b.double()).sum(1).float(),
                                   rtol=0, atol=0)

    def test_conv_with_derived_sizes(self):
        sizes = {"batch_size": 2, "in_channels": 3, "out_channels": 4, "kernel_size": 3,
                 "height": 11, "width": 9}
        self.ok(self.oracle.request(load_request(
            "conv|a", CONV, sizes, ["x"], ["out"],
            [("conv.weight", "conv_weight"), ("conv.bias", "conv_bias")])))
        x, w, b = self.randn(2, 3, 11, 9), self.randn(4, 3, 3, 3), self.randn(4)
        out_shape = [2, 4, 6, 5]  # (11 + 2 - 3) // 2 + 1, (9 + 2 - 3) // 2 + 1
        ts = [self.host("x", x), self.host("conv_weight", w), self.host("conv_bias", b),
              self.empty("out", out_shape)]
        self.run_ok("conv|a", ts)
        expected = F.conv2d(x.double(), w.double(), b.double(), stride=2, padding=1).float()
        torch.testing.assert_close(ts[3].read(), expected, rtol=0, atol=0)
        # Spec shape off by one in a derived size: an error naming the tensor and both shapes.
        bad = [self.host("x", x), self.host("conv_weight", w), self.host("conv_bias", b),
               self.empty("out", [2, 4, 6, 6])]
        req, fds = run_request("conv|a", bad)
        self.fail(self.oracle.request(req, fds), "test/fixture", "output out", "[2, 4, 6, 5]",
                  "[2, 4, 6, 6]")
        self.still_serving()

    def test_output_dtype_mismatch(self):
        self.ok(self.oracle.request(load_request("ew|dt", ELEMENTWISE,
                                                 {"batch_size": 2, "dim": 3}, ["x"], ["y"])))
        ts = [self.host("x", self.randn(2, 3)), self.empty("y", [2, 3], torch.int32)]
        req, fds = run_request("ew|dt", ts)
        self.fail(self.oracle.request(req, fds), "output y", "dtype mismatch", "torch.int32")

    # ---- errors keep it serving ----
    def test_bad_json_and_unknown_op(self):
        self.fail(self.oracle.send_raw(b"{not json"), "not valid UTF-8 JSON")
        self.still_serving()
        self.fail(self.oracle.send_raw(b"[1, 2]"), "not an object")
        self.fail(self.oracle.request({"op": "frobnicate"}), "unknown op 'frobnicate'")
        self.fail(self.oracle.request({"noop": 1}), "unknown op None")
        self.still_serving()

    def test_unknown_key(self):
        x = self.host("x", self.randn(2))
        req, fds = run_request("never|loaded", [x])
        self.fail(self.oracle.request(req, fds), "unknown key 'never|loaded'", "load it first")
        self.still_serving()

    def test_missing_parameter(self):
        sizes = {"batch_size": 2, "in_features": 3, "out_features": 4}
        err = self.fail(self.oracle.request(load_request(
            "lin|miss", LINEAR_RELU, sizes, ["x"], ["y"], [("linear.weight", "w")])),
            "test/fixture", "missing ['linear.bias']")
        self.assertIn("reference.py", err)
        err = self.fail(self.oracle.request(load_request(
            "lin|typo", LINEAR_RELU, {"batch_sise": 2}, ["x"], ["y"], [])), "batch_sise")
        self.still_serving()

    def test_structural_buffer_stays_the_modules(self):
        # The mask buffer is left unbound: the module's own tril(ones) applies; the parameter
        # must still be bound.
        self.ok(self.oracle.request(load_request(
            "mask|a", CAUSAL_MASK, {"length": 6}, ["x"], ["y"], [("scale", "s")])))
        x, s = self.randn(6, 6), torch.tensor([2.0])
        ts = [self.host("x", x), self.host("s", s), self.empty("y", [6, 6])]
        self.run_ok("mask|a", ts)
        torch.testing.assert_close(ts[2].read(), (torch.tril(x.double()) * 2).float(), rtol=0,
                                   atol=0)
        self.fail(self.oracle.request(load_request(
            "mask|b", CAUSAL_MASK, {"length": 6}, ["x"], ["y"], [])), "missing ['scale']")
        self.still_serving()

    def test_run_binding_errors(self):
        sizes = {"batch_size": 2, "in_features": 3, "out_features": 4}
        self.ok(self.oracle.request(load_request(
            "lin|b", LINEAR_RELU, sizes, ["x"], ["y"],
            [("linear.weight", "w"), ("linear.bias", "b")])))
        x, y = self.host("x", self.randn(2, 3)), self.empty("y", [2, 4])
        req, fds = run_request("lin|b", [x, y])
        self.fail(self.oracle.request(req, fds), "missing ['w', 'b']")
        # A tensor naming an fd index the packet did not carry.
        w, b = self.host("w", self.randn(4, 3)), self.host("b", self.randn(4))
        specs, fds = tensors_request([x, w, b, y])
        specs[2]["fd"] = 7
        req = {"op": "run", "key": "lin|b", "precision": "f64", "memory": "host", "tensors": specs}
        self.fail(self.oracle.request(req, fds), "tensor b", "fd index 7", "4 descriptor(s)")
        # A tensor larger than its allocation; a bad dtype; a bad precision.
        specs, fds = tensors_request([x, w, b, y])
        specs[0]["shape"] = [200, 3]
        req["tensors"] = specs
        self.fail(self.oracle.request(req, fds), "tensor x", "[200, 3]", "allocation is")
        specs, fds = tensors_request([x, w, b, y])
        specs[3]["dtype"] = "f128"
        req["tensors"] = specs
        self.fail(self.oracle.request(req, fds), "tensor y", "unknown dtype 'f128'")
        specs, fds = tensors_request([x, w, b, y])
        req.update(tensors=specs, precision="f16")
        self.fail(self.oracle.request(req, fds), "'precision' must be one of")
        self.still_serving()

    def test_module_exception(self):
        self.ok(self.oracle.request(load_request("raise|a", RAISES, {"n": 4}, ["x"], ["y"])))
        ts = [self.host("x", self.randn(4)), self.empty("y", [4])]
        req, fds = run_request("raise|a", ts)
        self.fail(self.oracle.request(req, fds), "reference.py", "this module always fails")
        self.still_serving()

    def test_everything_is_closed_after_each_reply(self):
        self.ok(self.oracle.request(load_request("ew|fd", ELEMENTWISE,
                                                 {"batch_size": 4, "dim": 5}, ["x"], ["y"])))
        before = self.oracle.open_fds()
        for _ in range(3):
            self.run_ok("ew|fd", [self.host("x", self.randn(4, 5)), self.empty("y", [4, 5])])
            req, fds = run_request("ew|fd", [self.host("x", self.randn(4, 5)),
                                             self.empty("y", [4, 6])])
            self.fail(self.oracle.request(req, fds), "output y")
            # Descriptors that came with a request that is not even JSON are closed too.
            self.fail(self.oracle.send_raw(b"{", [self.host("x", self.randn(2)).fd]), "JSON")
        self.assertEqual(self.oracle.open_fds(), before)
        self.assertEqual(self.oracle.memfd_maps(), [])

    # ---- baselines and compile ----
    def test_bench_session_on_host(self):
        sizes = {"batch_size": 4, "in_features": 8, "out_features": 6}
        self.ok(self.oracle.request(load_request(
            "lin|bench", LINEAR_RELU, sizes, ["x"], ["y"],
            [("linear.weight", "w"), ("linear.bias", "b")])))
        sets, fds, values = [], [], []
        for _ in range(2):
            x, w, b = self.randn(4, 8), self.randn(6, 8), self.randn(6)
            ts = [self.host("x", x), self.host("w", w), self.host("b", b), self.empty("y", [4, 6])]
            sets.append([t.spec(len(fds) + i) for i, t in enumerate(ts)])
            fds += [t.fd for t in ts]
            values.append((x, w, b, ts[3]))
        self.fail(self.oracle.request({"op": "warmup", "set": 0}), "no bench session")
        self.ok(self.oracle.request({"op": "bench_open", "key": "lin|bench", "mode": "eager",
                                     "memory": "host", "sets": sets}, fds))
        self.ok(self.oracle.request({"op": "warmup", "set": 0}))
        self.fail(self.oracle.request({"op": "sample", "set": 0}), "timing needs CUDA")
        self.fail(self.oracle.request({"op": "warmup", "set": 2}), "index below 2")
        for i in (1, 0):  # out of order: each set's parameters are loaded when it changes
            self.ok(self.oracle.request({"op": "write_outputs", "set": i}))
            x, w, b, y = values[i]
            torch.testing.assert_close(y.read(), torch.relu(F.linear(x, w, b)), rtol=1e-6,
                                       atol=1e-6)
        self.fail(self.oracle.request({"op": "bench_open", "key": "lin|bench", "mode": "compile",
                                       "memory": "host", "sets": sets}, fds),
                  "torch.compile is not started")
        self.ok(self.oracle.request({"op": "bench_close"}))
        self.fail(self.oracle.request({"op": "write_outputs", "set": 0}), "no bench session")
        self.assertEqual(self.oracle.memfd_maps(), [])

    def test_torch_eager_runs_under_pytorchs_defaults_and_the_rest_without_tf32(self):
        """Issue 28: KernelBench times its reference with PyTorch's default switches (cuDNN may
        use TF32); torch_eager is timed so, torch_eager_fp32 and the expected outputs are not."""
        self.ok(self.oracle.request(load_request("flags|s", FLAGS_PROBE, {"batch_size": 2, "dim": 8},
                                                 ["x"], ["y"])))
        shipped = 1.0 * torch.backends.cudnn.allow_tf32 + 2.0 * torch.backends.cuda.matmul.allow_tf32

        def bench(mode):
            x, y = self.host("x", self.randn(2, 8)), self.empty("y", [2, 8])
            self.ok(self.oracle.request({"op": "bench_open", "key": "flags|s", "mode": mode, "memory": "host",
                                         "sets": [[x.spec(0), y.spec(1)]]}, [x.fd, y.fd]))
            self.ok(self.oracle.request({"op": "write_outputs", "set": 0}))
            self.ok(self.oracle.request({"op": "bench_close"}))
            return float(y.read()[0, 0])

        self.assertEqual(shipped, 1.0, "this torch ships cuDNN TF32 on and matmul TF32 off")
        self.assertEqual(bench("eager"), shipped)
        self.assertEqual(bench("eager_fp32"), 0.0)
        x, y = self.host("x", self.randn(2, 8)), self.empty("y", [2, 8])
        self.run_ok("flags|s", [x, y], precision="f32")
        self.assertEqual(float(y.read()[0, 0]), 0.0, "expected outputs: no TF32, also after an eager bench")
        self.fail(self.oracle.request({"op": "bench_open", "key": "flags|s", "mode": "eager_tf32", "memory": "host",
                                       "sets": [[x.spec(0), y.spec(1)]]}, [x.fd, y.fd]),
                  "'mode' must be one of eager, eager_fp32, compile")

    def test_an_identical_load_does_not_build_the_module_again(self):
        """The judge re-sends a load whose reply missed its patience; the second must answer at
        once (it keeps the first's entry), a changed one builds again."""
        sizes = {"batch_size": 2, "dim": 8}
        request = load_request("slow|s", SLOW_TO_BUILD, sizes, ["x"], ["y"], name="test/slow")
        self.assertGreater(self.ok(self.oracle.request(request))["ms"], 500)
        self.assertLess(self.ok(self.oracle.request(request))["ms"], 100)
        changed = load_request("slow|s", SLOW_TO_BUILD, {"batch_size": 3, "dim": 8}, ["x"], ["y"],
                               name="test/slow")
        self.assertGreater(self.ok(self.oracle.request(changed))["ms"], 500)
        x = self.host("x", self.randn(3, 8))
        y = self.empty("y", [3, 8])
        self.run_ok("slow|s", [x, y])
        self.assert_elementwise(x, y)

    def test_bench_model_is_its_own_instance(self):
        """The eager bench runs a second instance of the module, in the sets' float32, after the
        expected outputs ran it in float64: a forward through a lambda over a submodule
        (level3/44) must use the bench instance's layers, not the float64 ones."""
        sizes = {"batch_size": 4, "in_features": 8, "out_features": 6}
        self.ok(self.oracle.request(load_request(
            "lam|bench", LAMBDA_OVER_SUBMODULE, sizes, ["x"], ["y"],
            [("mlp.linear.weight", "w"), ("mlp.linear.bias", "b")])))
        x, w, b = self.randn(4, 8), self.randn(6, 8), self.randn(6)
        y64 = self.empty("y", [4, 6])
        self.run_ok("lam|bench", [self.host("x", x), self.host("w", w), self.host("b", b), y64])
        ts = [self.host("x", x), self.host("w", w), self.host("b", b), self.empty("y", [4, 6])]
        self.ok(self.oracle.request({"op": "bench_open", "key": "lam|bench", "mode": "eager",
                                     "memory": "host", "sets": [[t.spec(i) for i, t in
                                                                 enumerate(ts)]]},
                                    [t.fd for t in ts]))
        self.ok(self.oracle.request({"op": "write_outputs", "set": 0}))
        torch.testing.assert_close(ts[3].read(), torch.relu(F.linear(x, w, b)), rtol=1e-6,
                                   atol=1e-6)
        self.ok(self.oracle.request({"op": "bench_close"}))
        # The expected-output instance is untouched: still float64, still right.
        self.run_ok("lam|bench", [self.host("x", x), self.host("w", w), self.host("b", b), y64])
        torch.testing.assert_close(y64.read(), torch.relu(F.linear(x, w, b)), rtol=1e-6,
                                   atol=1e-6)

    def test_compile_state(self):
        self.ok(self.oracle.request(load_request("ew|c", ELEMENTWISE,
                                                 {"batch_size": 2, "dim": 8}, ["x"], ["y"])))
        reply = self.ok(self.oracle.request({"op": "compile", "key": "ew|c"}))
        if not hasattr(torch, "compile"):
            self.assertEqual(reply["state"], "failed")
            self.assertIn("has no torch.compile", reply["error"])
            self.assertIn(torch.__version__, reply["error"])
            return
        self.assertIn(reply["state"], ("compiling", "ready", "failed"))
        deadline = time.monotonic() + 600
        while reply["state"] == "compiling" and time.monotonic() < deadline:
            time.sleep(0.5)
            reply = self.ok(self.oracle.request({"op": "compile", "key": "ew|c"}))
        # An elementwise module every torch.compile handles: "failed" here is a defect, not an outcome.
        self.assertEqual(reply["state"], "ready", reply["error"])


class GatedCompileTest(OracleCase):
    """bench_open while a compile is in progress, with a stand-in torch.compile that compiles
    exactly when the test opens its gate (gated_compile.py): the real oracle, socket, memfds."""

    @classmethod
    def setUpClass(cls):
        cls.gates = tempfile.TemporaryDirectory(prefix="kjudge-gates-")
        here = os.path.dirname(os.path.abspath(__file__))
        cls.oracle = OracleProcess(launcher=[sys.executable, os.path.join(here, "gated_compile.py"),
                                             cls.gates.name],
                                   extra_env={"KJUDGE_COMPILE_HOLD_S": "0"})
        cls.gen = torch.Generator().manual_seed(99)

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        cls.gates.cleanup()

    def open_gate(self, key):
        with open(os.path.join(self.gates.name, gate_name(key)), "w", encoding="utf-8"):
            pass

    def wait_started(self, key, timeout=60.0):
        """Until the stand-in torch.compile of `key` runs (it writes GATE_DIR/<key>.pid)."""
        pid = os.path.join(self.gates.name, gate_name(key) + ".pid")
        deadline = time.monotonic() + timeout
        while not os.path.exists(pid):
            self.assertLess(time.monotonic(), deadline, f"{key}'s compile never started")
            time.sleep(0.02)

    def bench_open(self, key, mode, x, y):
        sets = [[x.spec(0), y.spec(1)]]
        return self.oracle.request({"op": "bench_open", "key": key, "mode": mode,
                                    "memory": "host", "sets": sets}, [x.fd, y.fd])

    def test_no_timing_while_another_compile_runs(self):
        sizes = {"batch_size": 2, "dim": 8}
        for key, name in (("b|s", "test/fast"), ("a|s", "test/slow")):
            self.ok(self.oracle.request(load_request(key, ELEMENTWISE, sizes, ["x"], ["y"],
                                                     name=name)))
        self.open_gate("b|s")
        self.compile_until("b|s", "ready")
        reply = self.ok(self.oracle.request({"op": "compile", "key": "a|s"}))
        self.assertEqual(reply["state"], "compiling")  # its gate is closed: it stays so
        # "compiling" includes waiting for a compile child; the rule is about a compile that has
        # started (a waiting one cannot start while a bench session is open). A loaded CI
        # machine once opened the bench before the child took it: wait until it has.
        self.wait_started("a|s")
        x = self.host("x", self.randn(2, 8))
        y = self.empty("y", [2, 8])
        for mode in ("compile", "eager"):
            self.fail(self.bench_open("b|s", mode, x, y), "still compiling in this oracle",
                      "problem test/slow (reference.py)")
        # Evicting a|s from the LRU (8 keys) does not stop its compile, nor hide it.
        for i in range(8):
            self.ok(self.oracle.request(load_request(f"filler|{i}", ELEMENTWISE, sizes, ["x"],
                                                     ["y"])))
        self.fail(self.oracle.request({"op": "compile", "key": "a|s"}), "unknown key")
        self.ok(self.oracle.request(load_request("b|s", ELEMENTWISE, sizes, ["x"], ["y"],
                                                 name="test/fast")))
        self.fail(self.bench_open("b|s", "eager", x, y), "problem test/slow (reference.py)")
        # One compile at a time: b|s's new compile waits for a|s's, though its gate is open.
        reply = self.ok(self.oracle.request({"op": "compile", "key": "b|s"}))
        self.assertEqual(reply["state"], "compiling")
        time.sleep(0.3)
        self.assertEqual(self.ok(self.oracle.request({"op": "compile", "key": "b|s"}))["state"],
                         "compiling")
        self.open_gate("a|s")
        self.compile_until("b|s", "ready")
        # The identical load again (a judge re-sending one that went unanswered) keeps the
        # entry and its compile; a different load of the key replaces both.
        self.ok(self.oracle.request(load_request("b|s", ELEMENTWISE, sizes, ["x"], ["y"],
                                                 name="test/fast")))
        self.assertEqual(self.ok(self.oracle.request({"op": "compile", "key": "b|s"}))["state"],
                         "ready")
        self.ok(self.bench_open("b|s", "compile", x, y))
        self.ok(self.oracle.request({"op": "write_outputs", "set": 0}))
        self.ok(self.oracle.request({"op": "bench_close"}))
        self.assert_elementwise(x, y)
        self.assertEqual(self.oracle.memfd_maps(), [])

    def test_failed_compile_is_a_state_not_a_crash(self):
        # gated_compile raises when its gate never opens; here the module itself raises.
        self.ok(self.oracle.request(load_request("r|s", RAISES, {"n": 4}, ["x"], ["y"],
                                                 name="test/raises")))
        self.open_gate("r|s")
        self.ok(self.oracle.request({"op": "compile", "key": "r|s"}))
        self.compile_until("r|s", "failed")
        reply = self.ok(self.oracle.request({"op": "compile", "key": "r|s"}))
        self.assertIn("torch.compile failed", reply["error"])
        self.still_serving()


class PooledCompileTest(OracleCase):
    """The compile oracle's compiles run in child oracle processes (compile_pool.py): a fresh
    oracle per test, the stand-in torch.compile of gated_compile.py in the children too."""

    CHILDREN = "2"
    HOLD_S = 5.0

    @classmethod
    def setUpClass(cls):
        cls.gen = torch.Generator().manual_seed(7)

    @classmethod
    def tearDownClass(cls):
        pass

    def setUp(self):
        super().setUp()
        self.gates = tempfile.TemporaryDirectory(prefix="kjudge-gates-")
        here = os.path.dirname(os.path.abspath(__file__))
        self.oracle = OracleProcess(
            launcher=[sys.executable, os.path.join(here, "gated_compile.py"), self.gates.name],
            extra_env={"KJUDGE_COMPILE_CHILDREN": self.CHILDREN,
                       "KJUDGE_COMPILE_HOLD_S": str(self.HOLD_S)})
        self.sizes = {"batch_size": 2, "dim": 8}

    def tearDown(self):
        super().tearDown()
        self.assertEqual(self.oracle.close(), 0)
        self.gates.cleanup()

    def gate(self, key, suffix=""):
        return os.path.join(self.gates.name, gate_name(key) + suffix)

    def touch(self, key, suffix=""):
        with open(self.gate(key, suffix), "w", encoding="utf-8"):
            pass

    def load(self, key, name="test/elementwise"):
        self.ok(self.oracle.request(load_request(key, ELEMENTWISE, self.sizes, ["x"], ["y"],
                                                 name=name)))

    def state(self, key):
        return self.ok(self.oracle.request({"op": "compile", "key": key}))

    def compiler_pid(self, key, timeout=60):
        deadline = time.monotonic() + timeout
        while not os.path.exists(self.gate(key, ".pid")):
            self.assertLess(time.monotonic(), deadline, f"{key}'s compile never started")
            time.sleep(0.02)
        time.sleep(0.05)  # the file is written before its content
        with open(self.gate(key, ".pid"), encoding="utf-8") as f:
            return int(f.read())

    def bench_open(self, key, x, y):
        return self.oracle.request({"op": "bench_open", "key": key, "mode": "compile",
                                    "memory": "host", "sets": [[x.spec(0), y.spec(1)]]},
                                   [x.fd, y.fd])

    def time_compiled(self, key):
        """A whole compiled bench session through the child; the outputs checked."""
        x = self.host("x", self.randn(2, 8))
        y = self.empty("y", [2, 8])
        self.ok(self.bench_open(key, x, y))
        self.ok(self.oracle.request({"op": "warmup", "set": 0}))
        # A sample needs CUDA; on host memory the child says so (the request reached it).
        self.fail(self.oracle.request({"op": "sample", "set": 0}), "sample (compile)",
                  "timing needs CUDA")
        self.ok(self.oracle.request({"op": "write_outputs", "set": 0}))
        self.ok(self.oracle.request({"op": "bench_close"}))
        self.assert_elementwise(x, y)
        self.assertEqual(self.oracle.memfd_maps(), [])

    def test_a_compile_holding_its_gil_does_not_hold_the_oracle(self):
        self.load("hog|s")
        self.touch("hog|s", ".hog")
        self.assertEqual(self.state("hog|s")["state"], "compiling")
        pid = self.compiler_pid("hog|s")
        self.assertNotEqual(pid, self.oracle.proc.pid)  # compiled in a child, not here
        # The child holds its GIL for ~1 s at a time; this process answers at once.
        slowest = 0.0
        for i in range(5):
            t0 = time.monotonic()
            self.load(f"other|{i}")
            self.assertEqual(self.state(f"other|{i}")["state"], "compiling")
            slowest = max(slowest, time.monotonic() - t0)
        self.assertLess(slowest, 0.5)
        # The second child compiles beside the first: an open gate is ready while hog waits.
        self.touch("other|0")
        self.compile_until("other|0", "ready")
        self.assertEqual(self.state("hog|s")["state"], "compiling")
        self.touch("hog|s")
        self.compile_until("hog|s", "ready")

    def test_timing_and_compiles_take_turns(self):
        self.load("b|s")
        self.load("a|s", name="test/slow")
        self.touch("b|s")
        self.compile_until("b|s", "ready")
        self.assertEqual(self.state("a|s")["state"], "compiling")
        self.compiler_pid("a|s")
        x = self.host("x", self.randn(2, 8))
        y = self.empty("y", [2, 8])
        # a|s compiles in a child: no timing now; a timing is wanted, so no new compile starts,
        # not even on the idle second child, until a|s is done and a window has passed.
        self.fail(self.bench_open("b|s", x, y), "still compiling in this oracle's children",
                  "problem test/slow (reference.py)")
        self.load("c|s", name="test/held")
        self.touch("c|s")
        self.assertEqual(self.state("c|s")["state"], "compiling")
        time.sleep(3.0)  # allowed, the idle second child would start and compile c|s in ~2 s
        self.assertFalse(os.path.exists(self.gate("c|s", ".pid")), "c|s started: not drained")
        self.touch("a|s")
        self.compile_until("a|s", "ready")
        drained = time.monotonic()
        # The window after the drain: the timing runs, in the child that compiled b|s; while
        # its session is open no compile starts, the window over or not.
        self.ok(self.bench_open("b|s", x, y))
        time.sleep(max(0.0, self.HOLD_S - (time.monotonic() - drained)) + 0.5)
        self.assertFalse(os.path.exists(self.gate("c|s", ".pid")), "c|s started in a session")
        self.ok(self.oracle.request({"op": "warmup", "set": 0}))
        self.ok(self.oracle.request({"op": "bench_close"}))
        closed = time.monotonic()
        # The close opens another window (for the next timing); then c|s compiles.
        time.sleep(1.0)
        self.assertFalse(os.path.exists(self.gate("c|s", ".pid")), "c|s started in the window")
        self.compile_until("c|s", "ready")
        self.assertGreater(time.monotonic() - closed, self.HOLD_S - 0.5)
        self.time_compiled("c|s")

    def test_a_child_that_dies_fails_only_its_compile(self):
        self.load("b|s")
        self.touch("b|s")
        self.compile_until("b|s", "ready")
        first = self.compiler_pid("b|s")
        self.load("boom|s", name="test/boom")
        self.touch("boom|s", ".crash")
        error = self.compile_until("boom|s", "failed")["error"]
        self.assertIn("problem test/boom (reference.py)", error)
        self.assertIn("died", error)
        self.assertIn("exit status 3", error)
        self.still_serving()
        os.remove(self.gate("b|s", ".pid"))
        # b|s was compiled in the child that died (two children: b|s's was idle, so boom went
        # there) or in the other one; either way its timing works once `compile` says ready.
        reply = self.state("b|s")
        if reply["state"] == "compiling":  # lost with its child: compiled again
            self.assertNotEqual(self.compiler_pid("b|s"), first)
            self.compile_until("b|s", "ready")
        self.time_compiled("b|s")
        self.time_compiled("b|s")  # the same compiled module again, same child

    def test_a_lost_compile_is_refused_until_compiled_again(self):
        self.load("b|s")
        self.touch("b|s")
        self.compile_until("b|s", "ready")
        os.kill(self.compiler_pid("b|s"), 9)
        # The pool learns of the death at the child's next request: the next compile there.
        self.load("d|s")
        self.touch("d|s")
        deadline = time.monotonic() + 60
        while self.state("d|s")["state"] == "compiling" and time.monotonic() < deadline:
            time.sleep(0.05)
        x = self.host("x", self.randn(2, 8))
        y = self.empty("y", [2, 8])
        reply = self.bench_open("b|s", x, y)
        if reply["ok"]:  # d|s went to the other child: b|s's death shows at the bench itself
            self.fail(self.oracle.request({"op": "warmup", "set": 0}), "died")
        else:
            self.assertIn("lost", reply["error"])
        self.assertEqual(self.state("b|s")["state"], "compiling")
        self.compile_until("b|s", "ready")
        self.time_compiled("b|s")


class CompileOracleRoleTest(OracleCase):
    """KJUDGE_ORACLE_ROLE=compile (the judge's compile oracle): loads build nothing, so even a
    module slow to build answers at once; the compile child builds it."""

    @classmethod
    def setUpClass(cls):
        cls.gates = tempfile.TemporaryDirectory(prefix="kjudge-gates-")
        here = os.path.dirname(os.path.abspath(__file__))
        cls.oracle = OracleProcess(
            launcher=[sys.executable, os.path.join(here, "gated_compile.py"), cls.gates.name],
            extra_env={"KJUDGE_ORACLE_ROLE": "compile", "KJUDGE_COMPILE_HOLD_S": "0"})
        cls.gen = torch.Generator().manual_seed(5)

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        cls.gates.cleanup()

    def test_loads_build_nothing_and_the_child_builds(self):
        sizes = {"batch_size": 2, "dim": 8}
        request = load_request("slow|s", SLOW_TO_BUILD, sizes, ["x"], ["y"], name="test/slow")
        self.assertLess(self.ok(self.oracle.request(request))["ms"], 100)  # builds in 600 ms
        x = self.host("x", self.randn(2, 8))
        y = self.empty("y", [2, 8])
        req, fds = run_request("slow|s", [x, y])
        self.fail(self.oracle.request(req, fds), "this is the compile oracle", "test/slow")
        self.fail(self.oracle.request({"op": "bench_open", "key": "slow|s", "mode": "eager",
                                       "memory": "host", "sets": [[x.spec(0), y.spec(1)]]},
                                      [x.fd, y.fd]), "builds no module")
        with open(os.path.join(self.gates.name, gate_name("slow|s")), "w", encoding="utf-8"):
            pass
        self.compile_until("slow|s", "ready")
        self.ok(self.oracle.request({"op": "bench_open", "key": "slow|s", "mode": "compile",
                                     "memory": "host", "sets": [[x.spec(0), y.spec(1)]]},
                                    [x.fd, y.fd]))
        self.ok(self.oracle.request({"op": "write_outputs", "set": 0}))
        self.ok(self.oracle.request({"op": "bench_close"}))
        self.assert_elementwise(x, y)

    def test_a_binding_the_module_refuses_fails_the_compile(self):
        """The module is checked where it is built: a parameter the module does not have makes
        the compile fail, saying so."""
        bad = load_request("bad|s", ELEMENTWISE, {"batch_size": 2, "dim": 8}, ["x"], ["y"],
                           parameters=[("weight", "w")], name="test/bad")
        self.ok(self.oracle.request(bad))
        reply = self.compile_until("bad|s", "failed")
        self.assertIn("not in the module ['weight']", reply["error"])
        self.still_serving()


class LifecycleTest(unittest.TestCase):
    def test_shutdown_exits_zero(self):
        oracle = OracleProcess()
        reply = oracle.request({"op": "shutdown"})
        self.assertTrue(reply["ok"])
        self.assertEqual(oracle.proc.wait(60), 0)
        self.assertEqual(oracle.sock.recv(16), b"")  # nothing after the shutdown reply
        oracle.close()

    def test_eof_exits_zero(self):
        oracle = OracleProcess()
        self.assertTrue(oracle.hello["ok"])
        self.assertEqual(oracle.close(), 0)

    def test_keys_kept_follow_the_environment(self):
        """KJUDGE_ORACLE_KEYS (OracleOptions::keys: the judge's --compile-oracle-keys) sets how
        many loaded modules the LRU keeps; the oldest beyond it is dropped."""
        oracle = OracleProcess(extra_env={"KJUDGE_ORACLE_KEYS": "3"})
        sizes = {"batch_size": 2, "dim": 8}
        for i in range(4):
            reply = oracle.request(load_request(f"k|{i}", ELEMENTWISE, sizes, ["x"], ["y"]))
            self.assertTrue(reply["ok"], reply)
        gone = oracle.request({"op": "compile", "key": "k|0"})
        self.assertFalse(gone["ok"])
        self.assertIn("keeps the 3 most recently used keys", gone["error"])
        for i in (1, 2, 3):
            self.assertTrue(oracle.request({"op": "compile", "key": f"k|{i}"})["ok"])
        self.assertEqual(oracle.close(), 0)

    def test_bad_fd_argument(self):
        import subprocess, sys  # pylint: disable=import-outside-toplevel,multiple-imports
        from oracle_client import ORACLE_PATH  # pylint: disable=import-outside-toplevel
        proc = subprocess.run([sys.executable, "-m", "kjudge_oracle", "--fd", "0"],
                              env={"PYTHONPATH": ORACLE_PATH, "PATH": "/usr/bin:/bin"},
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
                              check=False)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("not a", proc.stderr)


if __name__ == "__main__":
    unittest.main()
