// CublasBaseline: library baselines from the problem spec's [[baseline]] tables that the
// runner knows how to run. Registry: kind "cublas_gemm" only (for now).
//
// cublas_gemm params: a, b, c = tensor names (f32), m, n, k = integer expressions over sizes.
// Computes row-major C[m,n] = A[m,k] @ B[k,n] with cublasSgemm in the default math mode (no
// TF32), via the usual swap: column-major C^T = B^T A^T, i.e. sgemm(N, N, n, m, k, B, n, A, k,
// C, n). Contract: Make() validates the params against the spec and the shape's bindings
// (REJECTED-free: a bad baseline spec is INTERNAL_ERROR, it is the problem's fault) and returns
// a run function for TimeRuns on the given stream. CublasHandle is RAII.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "common/problem_spec.h"
#include "worker/runner/timing.h"

namespace kjudge::runner {

class CublasHandle {
 public:
  static absl::StatusOr<CublasHandle> Create();
  CublasHandle(CublasHandle&& other) noexcept;
  CublasHandle& operator=(CublasHandle&&) = delete;
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  ~CublasHandle();
  cublasHandle_t get() const { return handle_; }

 private:
  CublasHandle() = default;
  cublasHandle_t handle_ = nullptr;
};

std::string CublasVersionString();
bool IsKnownBaselineKind(const std::string& kind);

absl::StatusOr<RunFn> MakeLibraryBaseline(const LibraryBaselineSpec& baseline,
                                          const ProblemSpec& spec, const Bindings& bindings,
                                          const std::map<std::string, void*>& tensors,
                                          CublasHandle& handle);

}  // namespace kjudge::runner
