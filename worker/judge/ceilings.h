// Ceilings: what this GPU can do at best, measured once at runner start-up,
// for SOL% and the physical floor of every timing.
//
// Contract: MeasureCeilings() uses at most a quarter of the free device memory and ~0.5 s
// (on an H200: ~0.2 s of SGEMM, ~0.05 s for the four tensor-core GEMMs, plus cuBLAS's own
// start-up):
//   * copy bandwidth: cudaMemcpyAsync device-to-device of up to 1 GiB, best of 10 timed copies
//     after 3 warm-ups, counting read + write bytes (2 * size / time), in GB/s (1e9);
//   * library GEMM rates, each best of 5 after 2 warm-ups, 2 N^3 / time in TFLOP/s, square
//     N x N operands at N = 8192 (halved down to 1024 while three fp32 N x N matrices do not fit
//     the budget; none when even 1024 does not), filled with random normal values by the
//     runner's utility kernels (never constants or zeros: tensor cores run zeros faster):
//       - SGEMM: cublasSgemm (CUBLAS_DEFAULT_MATH: FP32 SIMT, no TF32);
//       - TF32: cublasGemmEx, fp32 in and out, CUBLAS_COMPUTE_32F_FAST_TF32 (tensor cores);
//       - FP16: fp16 in and out, the faster of CUBLAS_COMPUTE_32F and CUBLAS_COMPUTE_16F;
//       - BF16: bf16 in and out, CUBLAS_COMPUTE_32F.
//     A GEMM that cuBLAS refuses leaves its rate 0 (logged); a CUDA error fails the whole step.
// The best, not the median, is reported: the floor derived from it is then the most lenient.
//
// Floor of a timing (FloorOf, for reporting): max(flops / compute rate, bytes / copy
// bandwidth), from the problem's [cost] expressions; SOL% = floor / median * 100.
// Impossible floor (ImpossibleFloorOf, for the SUSPICIOUS decision: a median under 0.9 x it):
// the same, except that the compute term is present only when the problem declares
// `flops_lower_bound = true`. The [cost] flops count one algorithm's work; an exact algebraic
// rewrite can need fewer (level2/14: summing a GEMM's output over N is a GEMV with column
// sums; Strassen-like GEMMs do fewer than 2MNK), and such a kernel is faster code, not a
// cheat. Bytes are different: every correct kernel must read its inputs and write its outputs
// at least once, so the memory term is always in. The impossible floor must be a true lower
// bound, so the compute rate is also the most lenient (fastest) way the hardware can
// legitimately compute the problem, judged by its tensors' dtypes:
//   * f32 -> max(SGEMM, TF32) where the tolerance admits 1xTF32 (rel_l2 >= kTf32MinRelL2:
//     a 1xTF32 GEMM lands near 3e-4 relative L2), else max(SGEMM, TF32 / 3, BF16 / 3): an
//     fp32-accurate kernel then needs split precision on the tensor cores (3xTF32; 3 bf16
//     products reach ~1e-5), each pass at most the library's rate;
//   * f16 -> FP16; bf16 -> BF16; several of f32 / f16 / bf16 -> the fastest of their rates;
//   * f64, i32, i64 add no path of their own (nothing faster than the others' rates); a
//     problem with none of f32 / f16 / bf16 has no compute floor (bytes only);
//   * i8, u8, fp8 (e4m3, e5m2) tensors: no compute floor, since their tensor-core paths (int8,
//     fp8 MMA) are faster than every rate measured here;
//   * a rate that was not measured (0) among those needed: no compute floor, since the
//     remaining rates could be too strict.
// A kernel under even this lenient floor is not faster code: it skips work or cheats.
// The compute term of the impossible floor counts [cost] min_flops (the fewest flops any
// correct algorithm does; for a GEMM 7/8 of 2MNK, one level of Strassen's savings), or
// flops when flops_lower_bound = true; neither: bytes only.
#pragma once

#include <cuda_runtime_api.h>

#include <span>
#include <string>

#include "absl/status/statusor.h"
#include "common/dtype.h"
#include "common/problem_spec.h"
#include "worker/judge/cublas_baseline.h"

namespace kjudge::runner {

class DeviceUtilities;  // device_utilities.h

struct Ceilings {
  double copy_gbs = 0.0;
  double sgemm_tflops = 0.0;  // FP32 SIMT
  double tf32_tflops = 0.0;   // fp32 on TF32 tensor cores
  double fp16_tflops = 0.0;   // fp16 in, the faster of fp32 / fp16 accumulation
  double bf16_tflops = 0.0;   // bf16 in, fp32 accumulation
};

// `utilities` fills the GEMM operands with random values.
absl::StatusOr<Ceilings> MeasureCeilings(cudaStream_t stream, CublasHandle& cublas,
                                         DeviceUtilities& utilities);

// The compute rate a problem with tensors of `dtypes` is held to (rules above).
struct ComputeRate {
  double tflops = 0.0;  // 0: no compute floor
  std::string name;     // "SGEMM", "TF32 tensor-core GEMM", ...; why there is none when 0
};
// Below this relative-L2 tolerance an f32 problem's answer cannot come from 1xTF32.
inline constexpr double kTf32MinRelL2 = 1e-4;
// `rel_l2` is the problem's tolerance (default: loose enough for 1xTF32).
ComputeRate ComputeRateFor(std::span<const DType> dtypes, const Ceilings& ceilings,
                           double rel_l2 = 1.0);

struct PhysicalFloor {
  double us = 0.0;          // max(compute_us, memory_us); 0 when unknown
  double compute_us = 0.0;  // flops / rate.tflops (0 without a rate or flops)
  double memory_us = 0.0;   // bytes / copy bandwidth (0 without either)
  ComputeRate rate;
};

// The physical floor of `shape` under `spec`'s cost model, both terms (for floor_us and SOL%);
// 0 when unknown (no cost model, no ceilings, or an expression that does not evaluate).
PhysicalFloor FloorOf(const ProblemSpec& spec, const Shape& shape, const Ceilings& ceilings);
// The floor no correct kernel can beat, for the SUSPICIOUS decision: FloorOf with compute_us
// from spec.cost.min_flops (or flops when flops_lower_bound), dropped when the problem
// declares neither; `rate` is then {0, "none: ... min_flops ..."} saying why.
// us = max(compute_us, memory_us) as above.
PhysicalFloor ImpossibleFloorOf(const ProblemSpec& spec, const Shape& shape,
                                const Ceilings& ceilings);
double FloorUs(const ProblemSpec& spec, const Shape& shape, const Ceilings& ceilings);

}  // namespace kjudge::runner
