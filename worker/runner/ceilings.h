// Ceilings: what this GPU can do at best, measured once at runner start-up (SPEC §5 step 7),
// for SOL% and the physical floor of every timing.
//
// Contract: MeasureCeilings() uses at most a quarter of the free device memory and ~0.5 s:
//   * copy bandwidth: cudaMemcpyAsync device-to-device of up to 1 GiB, best of 10 timed copies
//     after 3 warm-ups, counting read + write bytes (2 * size / time), in GB/s (1e9);
//   * SGEMM rate: cublasSgemm (CUBLAS_DEFAULT_MATH: FP32, no TF32) at N = 8192 (4096 when memory
//     is short), best of 5 after 2 warm-ups, 2 N^3 / time, in TFLOP/s.
// The best, not the median, is reported: the floor derived from it is then the most lenient.
// Floor of a timing: max(flops / SGEMM rate (only when every tensor is f32: tensor cores make
// the SGEMM rate no ceiling for other dtypes), bytes / copy bandwidth), from the problem's
// [cost] expressions; SOL% = floor / median * 100.
#pragma once

#include <cuda_runtime_api.h>

#include "absl/status/statusor.h"
#include "common/problem_spec.h"
#include "worker/runner/cublas_baseline.h"

namespace kjudge::runner {

struct Ceilings {
  double copy_gbs = 0.0;
  double sgemm_tflops = 0.0;
};

absl::StatusOr<Ceilings> MeasureCeilings(cudaStream_t stream, CublasHandle& cublas);

// The physical floor (us) of `shape` under `spec`'s cost model; 0 when unknown (no cost model,
// no ceilings, or an expression that does not evaluate).
double FloorUs(const ProblemSpec& spec, const Shape& shape, const Ceilings& ceilings);

}  // namespace kjudge::runner
