// CublasLtBaseline: the cuBLASLt kind of the baseline registry (baseline_registry.h).
//
// cublaslt_matmul: nn.Linear in fp32, row-major y[m,n] = x[m,k] @ W^T (+ bias[n]) with W
//   stored [n,k], then the epilogue. cublasLtMatmul with CUBLAS_COMPUTE_32F (no TF32), fp32
//   scale and data types.
//   params: w = f32 tensor name; bias = f32 tensor name ([n]; required by the *bias
//     epilogues, rejected otherwise); x, y = f32 tensor names, or absent for a partial
//     baseline (`partial = "1"`), which then reads an [m,k] buffer of zeros / writes an [m,n]
//     buffer of its own (allocated untimed; fp32 GEMM time does not depend on the values),
//     e.g. for a GEMM whose input is a fused problem's intermediate;
//     m, n, k = integer expressions;
//     epilogue = "none" (default) | "bias" | "relu" | "relu_bias" | "gelu" | "gelu_bias"
//       (CUBLASLT_EPILOGUE_DEFAULT, _BIAS, _RELU, _RELU_BIAS, _GELU, _GELU_BIAS). cuBLASLt's GELU
//       is the tanh approximation, not erf-GELU: use it for partial baselines only.
//   Column-major view: y^T (n x m, ld n) = W (op T of the stored k x n matrix, ld k) @ x^T
//   (op N, k x m, ld k); the bias runs along D's rows (length n), as cuBLASLt expects.
//   Set-up (untimed): layouts and the operation descriptor, and the algorithm, chosen once per
//   (m, n, k, epilogue) by cublasLtMatmulAlgoGetHeuristic (top result, workspace limit 32 MiB)
//   and cached in CublasLtState for the runner's lifetime.
// CublasLtState: the cuBLASLt handle, the 32 MiB workspace (allocated once) and the algorithm
// cache. Created on first use by BaselineLibraries::cublaslt().
#pragma once

#include <cublasLt.h>

#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "worker/judge/baseline_params.h"
#include "worker/gpu/device_buffer.h"
#include "worker/gpu/timing.h"

namespace kjudge::runner {

class BaselineLibraries;  // baseline_registry.h

inline constexpr size_t kCublasLtWorkspaceBytes = size_t{32} << 20U;

class CublasLtState {
 public:
  static absl::StatusOr<std::unique_ptr<CublasLtState>> Create();
  CublasLtState(const CublasLtState&) = delete;
  CublasLtState& operator=(const CublasLtState&) = delete;
  CublasLtState(CublasLtState&&) = delete;
  CublasLtState& operator=(CublasLtState&&) = delete;
  ~CublasLtState();

  cublasLtHandle_t handle() const { return handle_; }
  void* workspace() const { return workspace_.get(); }
  size_t workspace_bytes() const { return workspace_.size(); }
  // Algorithms chosen so far, by "m,n,k,epilogue".
  std::map<std::string, cublasLtMatmulAlgo_t>& algorithms() { return algorithms_; }

 private:
  CublasLtState(cublasLtHandle_t handle, DeviceBuffer workspace)
      : handle_(handle), workspace_(std::move(workspace)) {}
  cublasLtHandle_t handle_ = nullptr;
  DeviceBuffer workspace_;
  std::map<std::string, cublasLtMatmulAlgo_t> algorithms_;
};

absl::StatusOr<RunFn> MakeCublasLtMatmul(const BaselineRequest& request,
                                         BaselineLibraries& libraries);

}  // namespace kjudge::runner
