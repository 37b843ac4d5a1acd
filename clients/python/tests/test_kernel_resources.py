"""Compile feedback (issue 27): Job.kernels from a real server and compile-only worker (ptxas'
report through NVRTC, no GPU): registers, spills, local memory, static and dynamic shared
memory, per kernel, for a kernel the plan launches and one it does not."""

from __future__ import annotations

import pytest

import kjudge

RELU = "level1/19_ReLU"

SOURCE = r"""/* kjudge-plan
relu_smem<<<cdiv(M * N, 256), 256, 2048>>>(X, Y, M * N);
*/
extern "C" __global__ void relu_smem(const float* X, float* Y, long long n) {
  extern __shared__ float dyn[];
  __shared__ float fixed[100];
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  fixed[threadIdx.x % 100] = 0.f;
  dyn[threadIdx.x] = i < n ? X[i] : 0.f;
  __syncthreads();
  if (i < n) Y[i] = fmaxf(dyn[threadIdx.x], fixed[(threadIdx.x + 1) % 100]);
}
__global__ void __launch_bounds__(128) spill(float* o, int k) {
  float a[256];
  for (int i = 0; i < 256; i++) a[i] = o[i * k];
  float s = 0;
  for (int i = 0; i < 256; i++) s += a[(i * k) & 255] * a[i];
  o[0] = s;
}
"""


@pytest.fixture()
def kj(cluster):
    with kjudge.Client(cluster.address, api_key=cluster.keys["submitter"]) as client:
        yield client


def test_compiled_job_reports_each_kernel(kj):
    job = kj.wait(kj.submit(RELU, SOURCE, compile_only=True).id, timeout=120)
    assert job.verdict == kjudge.Verdict.COMPILED, job.message
    kernels = {k.name: k for k in job.kernels}
    assert set(kernels) == {"relu_smem", "_Z5spillPfi"}, job.kernels
    assert job.kernels_cut == 0
    relu = kernels["relu_smem"]
    assert relu.plan_names == ("relu_smem",)
    assert relu.static_shared_bytes == 400 and relu.dynamic_shared_bytes == 2048
    assert relu.registers > 0 and relu.spill_store_bytes == 0 and relu.max_threads_per_block == 1024
    spill = kernels["_Z5spillPfi"]
    assert spill.plan_names == () and spill.dynamic_shared_bytes == 0
    assert spill.spill_store_bytes > 0 and spill.spill_load_bytes > 0 and spill.local_bytes >= 1024
    assert spill.max_threads_per_block == 128, "its __launch_bounds__(128), read from the cubin"
    assert isinstance(kjudge.types.KernelResources, type) and isinstance(relu, kjudge.types.KernelResources)
    assert "ptxas" not in job.compile_log, "the log is NVRTC's without -v"
