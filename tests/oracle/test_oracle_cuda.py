"""The real oracle with memory "cuda": this test plays the judge, creating CUDA VMM allocations
exported as POSIX file descriptors (as worker/gpu/shared_allocation.cc does) and sending them.

Skips (visibly) without a CUDA device. On a GPU host:
  /usr/bin/python3 tests/oracle/run_tests.py --cuda      (or: ctest -R oracle_cuda)
"""
from __future__ import annotations

import ctypes
import os
import sys
import time
import unittest

import torch
import torch.nn.functional as F

from fixtures import ELEMENTWISE, LINEAR_RELU, load_request
from oracle_client import DTYPE_NAMES, ORACLE_PATH, OracleProcess

sys.path.insert(0, ORACLE_PATH)
from kjudge_oracle import cuda_driver  # noqa: E402  pylint: disable=wrong-import-position
from kjudge_oracle.memory import _CudaArray  # noqa: E402  pylint: disable=wrong-import-position
from kjudge_oracle.dtypes import lookup  # noqa: E402  pylint: disable=wrong-import-position

HAVE_CUDA = torch.cuda.is_available()


class DeviceTensor:
    """A tensor in its own exported VMM allocation, at a non-zero offset (the judge's layout)."""

    OFFSET = 512

    def __init__(self, name: str, value: torch.Tensor) -> None:
        drv = cuda_driver.driver()
        lib = drv.lib
        self.name, self.dtype, self.shape = name, value.dtype, list(value.shape)
        dev = torch.cuda.current_device()
        drv.ensure_context(dev)  # torch's primary context, as the judge's own context
        prop = cuda_driver.CUmemAllocationProp()
        prop.type = cuda_driver.CU_MEM_ALLOCATION_TYPE_PINNED
        prop.requestedHandleTypes = cuda_driver.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
        prop.location = cuda_driver.CUmemLocation(cuda_driver.CU_MEM_LOCATION_TYPE_DEVICE, dev)
        gran = ctypes.c_size_t()
        drv.check(lib.cuMemGetAllocationGranularity(ctypes.byref(gran), ctypes.byref(prop), 0),
                  "granularity")
        need = self.OFFSET + value.numel() * value.element_size()
        self.bytes = (need + gran.value - 1) // gran.value * gran.value
        self.handle = cuda_driver.CUmemHandle()
        drv.check(lib.cuMemCreate(ctypes.byref(self.handle), self.bytes, ctypes.byref(prop), 0),
                  "cuMemCreate")
        fd = ctypes.c_int(-1)
        drv.check(lib.cuMemExportToShareableHandle(ctypes.byref(fd), self.handle,
                                                   cuda_driver.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
                  "cuMemExportToShareableHandle")
        self.fd = fd.value
        self.ptr = self._map(dev)
        dt = lookup(DTYPE_NAMES[value.dtype], name)
        t = torch.as_tensor(_CudaArray(self.ptr + self.OFFSET, tuple(self.shape), dt.typestr),
                            device=torch.device("cuda", dev))
        self.tensor = t.view(dt.torch_dtype) if dt.needs_view else t
        self.tensor.copy_(value)
        torch.cuda.synchronize()

    def _map(self, dev: int) -> int:
        drv = cuda_driver.driver()
        ptr = cuda_driver.CUdeviceptr()
        drv.check(drv.lib.cuMemAddressReserve(ctypes.byref(ptr), self.bytes, 0, 0, 0), "reserve")
        drv.check(drv.lib.cuMemMap(ptr, self.bytes, 0, self.handle, 0), "map")
        access = cuda_driver.CUmemAccessDesc(
            cuda_driver.CUmemLocation(cuda_driver.CU_MEM_LOCATION_TYPE_DEVICE, dev),
            cuda_driver.CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
        drv.check(drv.lib.cuMemSetAccess(ptr, self.bytes, ctypes.byref(access), 1), "access")
        return int(ptr.value)

    def spec(self, fd_index: int):
        return {"name": self.name, "dtype": DTYPE_NAMES[self.dtype], "shape": self.shape,
                "fd": fd_index, "bytes": self.bytes, "offset": self.OFFSET}

    def read(self) -> torch.Tensor:
        torch.cuda.synchronize()
        return self.tensor.cpu()

    def close(self) -> None:
        self.tensor = None
        drv = cuda_driver.driver()
        drv.unmap(self.ptr, self.bytes)
        drv.lib.cuMemRelease(self.handle)
        os.close(self.fd)


@unittest.skipUnless(HAVE_CUDA, "SKIP: no CUDA device (the memory 'cuda' tests need a GPU host)")
class CudaOracleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.cuda.init()
        cls.oracle = OracleProcess(timeout=600)
        cls.gen = torch.Generator().manual_seed(99)

    @classmethod
    def tearDownClass(cls):
        assert cls.oracle.close() == 0

    def setUp(self):
        self.tensors = []

    def tearDown(self):
        for t in self.tensors:
            t.close()

    def dev(self, name, value):
        t = DeviceTensor(name, value)
        self.tensors.append(t)
        return t

    def randn(self, *shape, dtype=torch.float32):
        return torch.randn(*shape, generator=self.gen, dtype=torch.float64).to(dtype)

    def ok(self, reply):
        self.assertTrue(reply["ok"], reply.get("error"))
        return reply

    def test_hello_says_cuda(self):
        self.assertTrue(self.oracle.hello["cuda"], self.oracle.hello)
        self.assertEqual(self.oracle.hello["device"], torch.cuda.get_device_name())

    def test_run_linear_relu_f64(self):
        sizes = {"batch_size": 64, "in_features": 300, "out_features": 129}
        self.ok(self.oracle.request(load_request(
            "lin|cuda", LINEAR_RELU, sizes, ["x"], ["y"],
            [("linear.weight", "w"), ("linear.bias", "b")])))
        x, w, b = self.randn(64, 300), self.randn(129, 300), self.randn(129)
        ts = [self.dev("x", x), self.dev("w", w), self.dev("b", b),
              self.dev("y", torch.full((64, 129), -7.0))]
        req = {"op": "run", "key": "lin|cuda", "precision": "f64", "memory": "cuda",
               "tensors": [t.spec(i) for i, t in enumerate(ts)]}
        self.ok(self.oracle.request(req, [t.fd for t in ts]))
        expected = torch.relu(F.linear(x.double(), w.double(), b.double())).float()
        torch.testing.assert_close(ts[3].read(), expected, rtol=1e-6, atol=1e-6)

    def test_bf16_and_f16_tensors(self):
        self.ok(self.oracle.request(load_request("ew|half", ELEMENTWISE,
                                                 {"batch_size": 16, "dim": 33}, ["x"], ["y"])))
        for dtype in (torch.bfloat16, torch.float16):
            x = self.randn(16, 33, dtype=dtype)
            ts = [self.dev("x", x), self.dev("y", torch.zeros(16, 33, dtype=dtype))]
            req = {"op": "run", "key": "ew|half", "precision": "f64", "memory": "cuda",
                   "tensors": [t.spec(i) for i, t in enumerate(ts)]}
            self.ok(self.oracle.request(req, [t.fd for t in ts]))
            x64 = x.double()
            torch.testing.assert_close(ts[1].read(), (torch.tanh(x64) * 0.5 + x64 / 3).to(dtype),
                                       rtol=0, atol=0)

    def run_elementwise(self, rows, cols):
        x = torch.randn(rows, cols)
        ts = [DeviceTensor("x", x), DeviceTensor("y", torch.zeros(rows, cols))]
        try:
            req = {"op": "run", "key": f"ew|{rows}", "precision": "f32", "memory": "cuda",
                   "tensors": [t.spec(i) for i, t in enumerate(ts)]}
            self.ok(self.oracle.request(load_request(f"ew|{rows}", ELEMENTWISE,
                                                     {"batch_size": rows, "dim": cols},
                                                     ["x"], ["y"])))
            self.ok(self.oracle.request(req, [t.fd for t in ts]))
            torch.testing.assert_close(ts[1].read(), torch.tanh(x) * 0.5 + x / 3)
        finally:
            for t in ts:
                t.close()

    def test_memory_is_returned_after_each_request(self):
        self.run_elementwise(4, 4)  # the oracle's context and kernels exist from here on
        free_before = torch.cuda.mem_get_info()[0]
        self.run_elementwise(8192, 8192)  # 256 MiB each, plus the oracle's temporaries
        time.sleep(0.2)
        free_after = torch.cuda.mem_get_info()[0]
        self.assertLess(abs(free_before - free_after), 64 << 20,
                        f"free device memory {free_before} before, {free_after} after: the oracle "
                        "kept a mapping or its cache")

    def bench(self, key, mode):
        x, w, b = self.randn(256, 1024), self.randn(512, 1024), self.randn(512)
        ts = [self.dev("x", x), self.dev("w", w), self.dev("b", b),
              self.dev("y", torch.zeros(256, 512))]
        self.ok(self.oracle.request({"op": "bench_open", "key": key, "mode": mode,
                                     "memory": "cuda",
                                     "sets": [[t.spec(i) for i, t in enumerate(ts)]]},
                                    [t.fd for t in ts]))
        self.ok(self.oracle.request({"op": "warmup", "set": 0}))
        samples = [self.ok(self.oracle.request({"op": "sample", "set": 0})) for _ in range(5)]
        for s in samples:
            self.assertGreater(s["elapsed_us"], 0)
            self.assertLess(s["elapsed_us"], 1e6)
            self.assertIn(s["busy_after_stop"], (True, False))
        self.ok(self.oracle.request({"op": "write_outputs", "set": 0}))
        torch.testing.assert_close(ts[3].read(), torch.relu(F.linear(x, w, b)), rtol=1e-3,
                                   atol=1e-3)  # TF32 may be on in the oracle's torch
        self.ok(self.oracle.request({"op": "bench_close"}))
        print(f"\n  {mode}: elapsed_us {[round(s['elapsed_us'], 1) for s in samples]}",
              file=sys.stderr)

    def test_bench_eager_and_compile(self):
        sizes = {"batch_size": 256, "in_features": 1024, "out_features": 512}
        self.ok(self.oracle.request(load_request(
            "lin|bench", LINEAR_RELU, sizes, ["x"], ["y"],
            [("linear.weight", "w"), ("linear.bias", "b")])))
        self.bench("lin|bench", "eager")
        reply = self.ok(self.oracle.request({"op": "compile", "key": "lin|bench"}))
        deadline = time.monotonic() + 300
        while reply["state"] == "compiling" and time.monotonic() < deadline:
            time.sleep(1)
            reply = self.ok(self.oracle.request({"op": "compile", "key": "lin|bench"}))
        print(f"\n  compile: {reply['state']} {reply['error']}", file=sys.stderr)
        if hasattr(torch, "compile"):
            self.assertEqual(reply["state"], "ready", reply["error"])
            self.bench("lin|bench", "compile")
        else:
            self.assertEqual(reply["state"], "failed")


if __name__ == "__main__":
    unittest.main()
