#include "worker/judge/cublas_baseline.h"

#include <cstdint>
#include <utility>

#include "worker/judge/baseline_registry.h"
#include "worker/gpu/runner_error.h"
#include "worker/gpu/str_util.h"

namespace kjudge::runner {
namespace {

constexpr int64_t kMaxDim = int64_t{1} << 40;

// Elements a strided batch touches: the last item's start plus one item.
absl::StatusOr<int64_t> BatchExtent(const LibraryBaselineSpec& b, int64_t batch, int64_t stride,
                                    int64_t item, std::string_view what) {
  KJ_ASSIGN_OR_RETURN(int64_t last, CheckedMul(b, batch - 1, stride, what));
  if (last > INT64_MAX - item) return BaselineError(b, Cat(what, " overflows int64"));
  return last + item;
}

}  // namespace

absl::StatusOr<RunFn> MakeCublasGemm(const BaselineRequest& r, BaselineLibraries& libraries) {
  const LibraryBaselineSpec& b = r.baseline;
  KJ_RETURN_IF_ERROR(CheckParamKeys(b, {"a", "b", "c", "m", "n", "k", "trans_a", "trans_b",
                                        "batch", "stride_a", "stride_b", "stride_c"}));
  KJ_ASSIGN_OR_RETURN(const int64_t m, SizeParam(r, "m", 1, kMaxDim));
  KJ_ASSIGN_OR_RETURN(const int64_t n, SizeParam(r, "n", 1, kMaxDim));
  KJ_ASSIGN_OR_RETURN(const int64_t k, SizeParam(r, "k", 1, kMaxDim));
  KJ_ASSIGN_OR_RETURN(const bool trans_a, FlagParam(b, "trans_a", false));
  KJ_ASSIGN_OR_RETURN(const bool trans_b, FlagParam(b, "trans_b", false));
  const bool batched = b.params.contains("batch");
  KJ_ASSIGN_OR_RETURN(const int64_t batch, SizeParam(r, "batch", 1, 2147483647, 1));
  KJ_ASSIGN_OR_RETURN(const int64_t mk, CheckedMul(b, m, k, "m * k"));
  KJ_ASSIGN_OR_RETURN(const int64_t kn, CheckedMul(b, k, n, "k * n"));
  KJ_ASSIGN_OR_RETURN(const int64_t mn, CheckedMul(b, m, n, "m * n"));
  KJ_ASSIGN_OR_RETURN(const int64_t stride_a, SizeParam(r, "stride_a", 0, INT64_MAX, mk));
  KJ_ASSIGN_OR_RETURN(const int64_t stride_b, SizeParam(r, "stride_b", 0, INT64_MAX, kn));
  KJ_ASSIGN_OR_RETURN(const int64_t stride_c, SizeParam(r, "stride_c", mn, INT64_MAX, mn));
  KJ_ASSIGN_OR_RETURN(const int64_t need_a, BatchExtent(b, batch, stride_a, mk, "A's extent"));
  KJ_ASSIGN_OR_RETURN(const int64_t need_b, BatchExtent(b, batch, stride_b, kn, "B's extent"));
  KJ_ASSIGN_OR_RETURN(const int64_t need_c, BatchExtent(b, batch, stride_c, mn, "C's extent"));
  KJ_ASSIGN_OR_RETURN(const float* a, F32Tensor(r, "a", need_a));
  KJ_ASSIGN_OR_RETURN(const float* bm, F32Tensor(r, "b", need_b));
  KJ_ASSIGN_OR_RETURN(float* c, F32Tensor(r, "c", need_c));

  if (libraries.validation_only()) return RunFn();
  cublasHandle_t h = libraries.cublas().get();
  KJ_RETURN_IF_ERROR(CublasStatus(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode"));
  const cublasOperation_t op_a = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_b = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int64_t lda = trans_a ? m : k;
  const int64_t ldb = trans_b ? k : n;
  return RunFn([=](cudaStream_t stream) -> absl::Status {
    KJ_RETURN_IF_ERROR(CublasStatus(cublasSetStream(h, stream), "cublasSetStream"));
    const float alpha = 1.0F;
    const float beta = 0.0F;
    if (batched) {
      KJ_RETURN_IF_ERROR(CublasStatus(
          cublasSgemmStridedBatched_64(h, op_b, op_a, n, m, k, &alpha, bm, ldb, stride_b, a, lda,
                                       stride_a, &beta, c, n, stride_c, batch),
          "cublasSgemmStridedBatched"));
    } else {
      KJ_RETURN_IF_ERROR(CublasStatus(
          cublasSgemm_64(h, op_b, op_a, n, m, k, &alpha, bm, ldb, a, lda, &beta, c, n),
          "cublasSgemm"));
    }
    return CudaStatus(cudaGetLastError(), "cublasSgemm launch");
  });
}

absl::StatusOr<RunFn> MakeCublasGemv(const BaselineRequest& r, BaselineLibraries& libraries) {
  const LibraryBaselineSpec& b = r.baseline;
  KJ_RETURN_IF_ERROR(CheckParamKeys(b, {"a", "x", "y", "m", "k", "trans"}));
  KJ_ASSIGN_OR_RETURN(const int64_t m, SizeParam(r, "m", 1, kMaxDim));
  KJ_ASSIGN_OR_RETURN(const int64_t k, SizeParam(r, "k", 1, kMaxDim));
  KJ_ASSIGN_OR_RETURN(const bool trans, FlagParam(b, "trans", false));
  KJ_ASSIGN_OR_RETURN(const int64_t mk, CheckedMul(b, m, k, "m * k"));
  KJ_ASSIGN_OR_RETURN(const float* a, F32Tensor(r, "a", mk));
  KJ_ASSIGN_OR_RETURN(const float* x, F32Tensor(r, "x", trans ? m : k));
  KJ_ASSIGN_OR_RETURN(float* y, F32Tensor(r, "y", trans ? k : m));

  if (libraries.validation_only()) return RunFn();
  cublasHandle_t h = libraries.cublas().get();
  KJ_RETURN_IF_ERROR(CublasStatus(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode"));
  // Column-major, A is the k x m matrix A^T (ld k): op T gives A (m x k), op N gives A^T.
  const cublasOperation_t op = trans ? CUBLAS_OP_N : CUBLAS_OP_T;
  return RunFn([=](cudaStream_t stream) -> absl::Status {
    KJ_RETURN_IF_ERROR(CublasStatus(cublasSetStream(h, stream), "cublasSetStream"));
    const float alpha = 1.0F;
    const float beta = 0.0F;
    KJ_RETURN_IF_ERROR(CublasStatus(
        cublasSgemv_64(h, op, k, m, &alpha, a, k, x, 1, &beta, y, 1), "cublasSgemv"));
    return CudaStatus(cudaGetLastError(), "cublasSgemv launch");
  });
}

absl::StatusOr<CublasHandle> CublasHandle::Create() {
  CublasHandle handle;
  KJ_RETURN_IF_ERROR(CublasStatus(cublasCreate(&handle.handle_), "cublasCreate"));
  return handle;
}
CublasHandle::CublasHandle(CublasHandle&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)) {}
CublasHandle::~CublasHandle() {
  if (handle_ != nullptr) cublasDestroy(handle_);
}

std::string CublasVersionString() {
  int major = 0;
  int minor = 0;
  int patch = 0;
  if (cublasGetProperty(MAJOR_VERSION, &major) != CUBLAS_STATUS_SUCCESS ||
      cublasGetProperty(MINOR_VERSION, &minor) != CUBLAS_STATUS_SUCCESS ||
      cublasGetProperty(PATCH_LEVEL, &patch) != CUBLAS_STATUS_SUCCESS) {
    return "unknown";
  }
  return Cat(major, ".", minor, ".", patch);
}

}  // namespace kjudge::runner
