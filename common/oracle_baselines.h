// The baselines the PyTorch oracle measures for a problem with reference.py, by name, and the
// oracle bench mode each is timed in (worker/oracle/kjudge_oracle/server.py BENCH_FLAGS). The
// server asks for these names (server/worker_service.cc), the judge times them
// (worker/judge/verdict_baselines.cc), and the metrics classify them (server/kernel_metrics.cc).
//
//   torch_eager       the module in eager mode under PyTorch's own default backend switches, as
//                     KernelBench's evaluator and its baseline JSONs time it (cuDNN may use TF32
//                     for float32 convolutions; matmuls may not): KernelBench's denominator.
//   torch_eager_fp32  the same with TF32 off everywhere (cuDNN and matmul): strict fp32.
//   torch_compile     torch.compile of the module (inductor defaults), TF32 off, as the oracle.
//
// Contract: header-only constants and a pure mapping; no I/O.
#pragma once

#include <string_view>

namespace kjudge {

inline constexpr char kTorchEagerBaseline[] = "torch_eager";
inline constexpr char kTorchEagerFp32Baseline[] = "torch_eager_fp32";
inline constexpr char kTorchCompileBaseline[] = "torch_compile";

// Every oracle baseline, in the order a job measures them.
inline constexpr const char* kOracleBaselines[] = {kTorchEagerBaseline, kTorchEagerFp32Baseline,
                                                   kTorchCompileBaseline};

// The oracle's bench_open mode for an oracle baseline: "eager", "eager_fp32" or "compile"
// (any other name: "compile", the mode of torch_compile).
inline std::string_view OracleBenchMode(std::string_view name) {
  if (name == kTorchEagerBaseline) return "eager";
  if (name == kTorchEagerFp32Baseline) return "eager_fp32";
  return "compile";
}

// Whether `name` is an eager baseline (either variant): a PyTorch eager denominator.
inline bool IsTorchEagerBaseline(std::string_view name) {
  return name == kTorchEagerBaseline || name == kTorchEagerFp32Baseline;
}

}  // namespace kjudge
