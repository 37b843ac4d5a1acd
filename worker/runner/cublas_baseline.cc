#include "worker/runner/cublas_baseline.h"

#include <utility>

#include "worker/runner/str_util.h"
#include "worker/runner/runner_error.h"

namespace kjudge::runner {
namespace {

absl::Status BaselineError(const LibraryBaselineSpec& b, std::string_view what) {
  return MakeRunnerError(v1::INTERNAL_ERROR,
                         Cat("baseline ", b.name, " (", b.kind, "): ", what));
}

absl::StatusOr<std::string> Param(const LibraryBaselineSpec& b, const std::string& key) {
  auto it = b.params.find(key);
  if (it == b.params.end()) return BaselineError(b, Cat("missing param `", key, "`"));
  return it->second;
}

absl::StatusOr<float*> F32Tensor(const LibraryBaselineSpec& b, const ProblemSpec& spec,
                                 const std::map<std::string, void*>& tensors,
                                 const std::string& key) {
  KJ_ASSIGN_OR_RETURN(std::string name, Param(b, key));
  const TensorSpec* t = spec.FindTensor(name);
  auto it = tensors.find(name);
  if (t == nullptr || it == tensors.end()) {
    return BaselineError(b, Cat("`", key, "` names unknown tensor ", name));
  }
  if (t->dtype != DType::kF32) return BaselineError(b, Cat(name, " is not f32"));
  return static_cast<float*>(it->second);
}

absl::StatusOr<int> SizeParam(const LibraryBaselineSpec& b, const Bindings& bindings,
                              const std::string& key) {
  KJ_ASSIGN_OR_RETURN(std::string text, Param(b, key));
  absl::StatusOr<Expr> expr = ParseExpression(text);
  if (!expr.ok()) return BaselineError(b, Sv(expr.status().message()));
  absl::StatusOr<int64_t> v = expr->EvaluateInt(bindings);
  if (!v.ok()) return BaselineError(b, Sv(v.status().message()));
  if (*v < 1 || *v > 2147483647) return BaselineError(b, Cat(key, " = ", *v));
  return static_cast<int>(*v);
}

absl::Status CublasStatus(cublasStatus_t s, std::string_view what) {
  if (s == CUBLAS_STATUS_SUCCESS) return absl::OkStatus();
  return MakeRunnerError(v1::INTERNAL_ERROR,
                         Cat(what, " failed: ", cublasGetStatusString(s)));
}

absl::StatusOr<RunFn> MakeGemm(const LibraryBaselineSpec& b, const ProblemSpec& spec,
                               const Bindings& bindings,
                               const std::map<std::string, void*>& tensors, CublasHandle& handle) {
  KJ_ASSIGN_OR_RETURN(float* a, F32Tensor(b, spec, tensors, "a"));
  KJ_ASSIGN_OR_RETURN(float* bm, F32Tensor(b, spec, tensors, "b"));
  KJ_ASSIGN_OR_RETURN(float* c, F32Tensor(b, spec, tensors, "c"));
  KJ_ASSIGN_OR_RETURN(int m, SizeParam(b, bindings, "m"));
  KJ_ASSIGN_OR_RETURN(int n, SizeParam(b, bindings, "n"));
  KJ_ASSIGN_OR_RETURN(int k, SizeParam(b, bindings, "k"));
  cublasHandle_t h = handle.get();
  KJ_RETURN_IF_ERROR(CublasStatus(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode"));
  return RunFn([=](cudaStream_t stream) -> absl::Status {
    KJ_RETURN_IF_ERROR(CublasStatus(cublasSetStream(h, stream), "cublasSetStream"));
    const float alpha = 1.0F;
    const float beta = 0.0F;
    KJ_RETURN_IF_ERROR(CublasStatus(
        cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, bm, n, a, k, &beta, c, n),
        "cublasSgemm"));
    return CudaStatus(cudaGetLastError(), "cublasSgemm launch");
  });
}

}  // namespace

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

bool IsKnownBaselineKind(const std::string& kind) { return kind == "cublas_gemm"; }

absl::StatusOr<RunFn> MakeLibraryBaseline(const LibraryBaselineSpec& baseline,
                                          const ProblemSpec& spec, const Bindings& bindings,
                                          const std::map<std::string, void*>& tensors,
                                          CublasHandle& handle) {
  if (baseline.kind == "cublas_gemm") return MakeGemm(baseline, spec, bindings, tensors, handle);
  return BaselineError(baseline, "unknown baseline kind");
}

}  // namespace kjudge::runner
