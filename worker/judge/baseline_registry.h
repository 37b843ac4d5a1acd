// BaselineRegistry: the library baselines the runner knows, keyed by the spec's `kind`
// (`[[baseline]]` in common/problem_spec.h; docs/architecture.md, "Adding things"), and the
// library state they share.
//
// Kinds (params are strings; sizes are integer expressions over the problem's sizes):
//   cublas_gemm      row-major C = op(A) @ op(B), optionally strided-batched (cublas_baseline.h)
//   cublas_gemv      row-major y = A @ x or A^T @ x                          (cublas_baseline.h)
//   cublaslt_matmul  nn.Linear y = x @ W^T (+ bias) (+ ReLU/GELU epilogue)   (cublaslt_baseline.h)
// Every kind also takes `partial = "1"`: the baseline computes only part of the problem (e.g.
// the GEMM + bias of a fused GEMM + activation problem), so its output is not compared with
// the reference's. A baseline that is not partial must write the problem's outputs, and the
// verdict protocol checks them against the reference after timing.
//
// Contract: MakeLibraryBaseline() validates the params against the spec and the shape's
// bindings (any failure is INTERNAL_ERROR, the problem's fault), does the untimed set-up
// (handles, descriptors, algorithm choice, the baseline's own buffers) and returns a run
// function for TimeRuns on the given stream. All math is fp32 with fp32 accumulation: no TF32.
// BaselineLibraries holds the cuBLAS handle (created eagerly) and the cuBLASLt state (handle,
// 32 MiB workspace, per-shape algorithm cache; created on first use). Not thread-safe.
// BaselineLibraries::ValidationOnly() holds no library state and needs no GPU: with it,
// MakeLibraryBaseline() only validates (tensor pointers are never dereferenced) and returns an
// empty RunFn on success; the catalog test uses it to check every problem's baselines.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/problem_spec.h"
#include "worker/judge/baseline_params.h"
#include "worker/judge/cublas_baseline.h"
#include "worker/gpu/timing.h"

namespace kjudge::runner {

class CublasLtState;  // cublaslt_baseline.h

class BaselineLibraries {
 public:
  static absl::StatusOr<BaselineLibraries> Create();
  static BaselineLibraries ValidationOnly();
  bool validation_only() const { return !cublas_.has_value(); }
  BaselineLibraries(BaselineLibraries&& other) noexcept;
  BaselineLibraries& operator=(BaselineLibraries&&) = delete;
  BaselineLibraries(const BaselineLibraries&) = delete;
  BaselineLibraries& operator=(const BaselineLibraries&) = delete;
  ~BaselineLibraries();

  CublasHandle& cublas() { return *cublas_; }
  absl::StatusOr<CublasLtState*> cublaslt();

 private:
  BaselineLibraries() = default;
  explicit BaselineLibraries(CublasHandle cublas);
  std::optional<CublasHandle> cublas_;
  std::unique_ptr<CublasLtState> lt_;
};

using BaselineFactory = absl::StatusOr<RunFn> (*)(const BaselineRequest& request,
                                                  BaselineLibraries& libraries);

bool IsKnownBaselineKind(const std::string& kind);
std::vector<std::string> KnownBaselineKinds();
// `partial = "1"`: the output is not the problem's, so it is not checked.
bool IsPartialBaseline(const LibraryBaselineSpec& baseline);

absl::StatusOr<RunFn> MakeLibraryBaseline(const LibraryBaselineSpec& baseline,
                                          const ProblemSpec& spec, const Bindings& bindings,
                                          const std::map<std::string, void*>& tensors,
                                          BaselineLibraries& libraries);

}  // namespace kjudge::runner
