// CublasBaseline: the cuBLAS kinds of the baseline registry (baseline_registry.h), plus the
// cuBLAS handle (RAII) and version string. All calls use the 64-bit API (tensors of more than
// 2^31 elements, e.g. level1/4's 8.6 GB matrix) in the default math mode (no TF32).
//
// cublas_gemm: row-major C[m,n] = op(A) @ op(B) with cublasSgemm (or, with `batch`,
//   cublasSgemmStridedBatched: C[i] = op(A[i]) @ op(B[i]) for i < batch).
//   params: a, b, c = f32 tensor names; m, n, k = integer expressions;
//     trans_a = "0" (A stored [m,k]) | "1" (A stored [k,m], used transposed); default "0";
//     trans_b = "0" (B stored [k,n]) | "1" (B stored [n,k], used transposed); default "0";
//     batch = expression (optional; present = strided-batched call, even when it is 1);
//     stride_a, stride_b, stride_c = element strides between batch items (optional; default
//       m*k, k*n, m*n: contiguous [batch, ...] tensors).
//   Column-major view of the row-major problem: C^T = op(B)^T op(A)^T, i.e.
//   sgemm(opB, opA, n, m, k, B, ldb, A, lda, C, n) with lda = trans_a ? m : k and
//   ldb = trans_b ? k : n.
// cublas_gemv: row-major y = A @ x (trans = "0", default) or y = A^T @ x (trans = "1") with
//   cublasSgemv; A stored [m,k]. params: a, x, y = f32 tensor names; m, k = expressions.
//   Column-major view: A^T is k x m with ld k, so y = A x is gemv(T, k, m, A, k, x, y) and
//   y = A^T x is gemv(N, k, m, ...).
// Both check that every tensor holds the elements the call touches (INTERNAL_ERROR if not).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <string>

#include "absl/status/statusor.h"
#include "worker/judge/baseline_params.h"
#include "worker/gpu/timing.h"

namespace kjudge::runner {

class BaselineLibraries;  // baseline_registry.h

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

absl::StatusOr<RunFn> MakeCublasGemm(const BaselineRequest& request, BaselineLibraries& libraries);
absl::StatusOr<RunFn> MakeCublasGemv(const BaselineRequest& request, BaselineLibraries& libraries);

}  // namespace kjudge::runner
