#include "worker/judge/cublaslt_baseline.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

#include "worker/judge/baseline_registry.h"
#include "worker/gpu/runner_error.h"
#include "worker/gpu/str_util.h"

namespace kjudge::runner {
namespace {

constexpr int64_t kMaxDim = 2147483647;

struct EpilogueEntry {
  std::string_view name;
  cublasLtEpilogue_t value;
  bool bias;
};

constexpr std::array<EpilogueEntry, 6> kEpilogues{{
    {"none", CUBLASLT_EPILOGUE_DEFAULT, false},
    {"bias", CUBLASLT_EPILOGUE_BIAS, true},
    {"relu", CUBLASLT_EPILOGUE_RELU, false},
    {"relu_bias", CUBLASLT_EPILOGUE_RELU_BIAS, true},
    {"gelu", CUBLASLT_EPILOGUE_GELU, false},
    {"gelu_bias", CUBLASLT_EPILOGUE_GELU_BIAS, true},
}};

// The descriptors of one matmul, destroyed together.
struct LtPlan {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr;
  cublasLtMatrixLayout_t b = nullptr;
  cublasLtMatrixLayout_t d = nullptr;
  LtPlan() = default;
  LtPlan(const LtPlan&) = delete;
  LtPlan& operator=(const LtPlan&) = delete;
  LtPlan(LtPlan&&) = delete;
  LtPlan& operator=(LtPlan&&) = delete;
  ~LtPlan() {
    if (d != nullptr) cublasLtMatrixLayoutDestroy(d);
    if (b != nullptr) cublasLtMatrixLayoutDestroy(b);
    if (a != nullptr) cublasLtMatrixLayoutDestroy(a);
    if (op != nullptr) cublasLtMatmulDescDestroy(op);
  }
};

class Preference {
 public:
  Preference() = default;
  Preference(const Preference&) = delete;
  Preference& operator=(const Preference&) = delete;
  Preference(Preference&&) = delete;
  Preference& operator=(Preference&&) = delete;
  ~Preference() {
    if (pref_ != nullptr) cublasLtMatmulPreferenceDestroy(pref_);
  }
  cublasLtMatmulPreference_t* out() { return &pref_; }
  cublasLtMatmulPreference_t get() const { return pref_; }

 private:
  cublasLtMatmulPreference_t pref_ = nullptr;
};

absl::StatusOr<cublasLtMatmulAlgo_t> ChooseAlgorithm(const LibraryBaselineSpec& b,
                                                     CublasLtState& lt, const LtPlan& plan,
                                                     const std::string& key) {
  auto it = lt.algorithms().find(key);
  if (it != lt.algorithms().end()) return it->second;
  Preference pref;
  KJ_RETURN_IF_ERROR(CublasStatus(cublasLtMatmulPreferenceCreate(pref.out()),
                                  "cublasLtMatmulPreferenceCreate"));
  const size_t workspace = lt.workspace_bytes();
  KJ_RETURN_IF_ERROR(CublasStatus(
      cublasLtMatmulPreferenceSetAttribute(pref.get(), CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                           &workspace, sizeof(workspace)),
      "cublasLtMatmulPreferenceSetAttribute"));
  cublasLtMatmulHeuristicResult_t result{};
  int returned = 0;
  KJ_RETURN_IF_ERROR(CublasStatus(
      cublasLtMatmulAlgoGetHeuristic(lt.handle(), plan.op, plan.a, plan.b, plan.d, plan.d,
                                     pref.get(), 1, &result, &returned),
      "cublasLtMatmulAlgoGetHeuristic"));
  if (returned < 1 || result.state != CUBLAS_STATUS_SUCCESS) {
    return BaselineError(b, Cat("cuBLASLt has no algorithm for ", key));
  }
  lt.algorithms().emplace(key, result.algo);
  return result.algo;
}

template <typename T>
absl::Status SetDesc(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr,
                     const T& value, std::string_view what) {
  return CublasStatus(cublasLtMatmulDescSetAttribute(desc, attr, &value, sizeof(value)),
                      Cat("cublasLtMatmulDescSetAttribute(", what, ")"));
}

}  // namespace

absl::StatusOr<std::unique_ptr<CublasLtState>> CublasLtState::Create() {
  cublasLtHandle_t handle = nullptr;
  KJ_RETURN_IF_ERROR(CublasStatus(cublasLtCreate(&handle), "cublasLtCreate"));
  absl::StatusOr<DeviceBuffer> workspace =
      DeviceBuffer::Allocate(kCublasLtWorkspaceBytes, "cuBLASLt workspace");
  if (!workspace.ok()) {
    cublasLtDestroy(handle);
    return workspace.status();
  }
  return std::unique_ptr<CublasLtState>(new CublasLtState(handle, *std::move(workspace)));
}

CublasLtState::~CublasLtState() {
  if (handle_ != nullptr) cublasLtDestroy(handle_);
}

absl::StatusOr<RunFn> MakeCublasLtMatmul(const BaselineRequest& r, BaselineLibraries& libraries) {
  const LibraryBaselineSpec& b = r.baseline;
  KJ_RETURN_IF_ERROR(
      CheckParamKeys(b, {"x", "w", "bias", "y", "m", "n", "k", "epilogue"}));
  KJ_ASSIGN_OR_RETURN(const int64_t m, SizeParam(r, "m", 1, kMaxDim));
  KJ_ASSIGN_OR_RETURN(const int64_t n, SizeParam(r, "n", 1, kMaxDim));
  KJ_ASSIGN_OR_RETURN(const int64_t k, SizeParam(r, "k", 1, kMaxDim));
  const std::string epilogue_name = OptionalParam(b, "epilogue").value_or("none");
  const EpilogueEntry* epilogue = nullptr;
  for (const EpilogueEntry& e : kEpilogues) {
    if (e.name == epilogue_name) epilogue = &e;
  }
  if (epilogue == nullptr) {
    return BaselineError(b, Cat("epilogue \"", epilogue_name,
                                "\"; expected none, bias, relu, relu_bias, gelu or gelu_bias"));
  }
  if (epilogue->bias != b.params.contains("bias")) {
    return BaselineError(b, epilogue->bias ? Cat("epilogue ", epilogue_name, " needs `bias`")
                                           : Cat("epilogue ", epilogue_name, " takes no `bias`"));
  }
  KJ_ASSIGN_OR_RETURN(const int64_t mk, CheckedMul(b, m, k, "m * k"));
  KJ_ASSIGN_OR_RETURN(const int64_t nk, CheckedMul(b, n, k, "n * k"));
  KJ_ASSIGN_OR_RETURN(const int64_t mn, CheckedMul(b, m, n, "m * n"));
  KJ_ASSIGN_OR_RETURN(const bool partial, FlagParam(b, "partial", false));
  const float* x = nullptr;
  if (b.params.contains("x")) {
    KJ_ASSIGN_OR_RETURN(x, F32Tensor(r, "x", mk));
  } else if (!partial) {
    return BaselineError(b, "`x` is required unless the baseline is partial (partial = \"1\")");
  }
  KJ_ASSIGN_OR_RETURN(const float* w, F32Tensor(r, "w", nk));
  const float* bias = nullptr;
  if (epilogue->bias) {
    KJ_ASSIGN_OR_RETURN(bias, F32Tensor(r, "bias", n));
  }
  std::shared_ptr<DeviceBuffer> own_input;
  std::shared_ptr<DeviceBuffer> own_output;
  float* y = nullptr;
  if (b.params.contains("y")) {
    KJ_ASSIGN_OR_RETURN(y, F32Tensor(r, "y", mn));
  } else if (!partial) {
    return BaselineError(b, "`y` is required unless the baseline is partial (partial = \"1\")");
  }
  if (libraries.validation_only()) return RunFn();
  if (y == nullptr) {
    KJ_ASSIGN_OR_RETURN(DeviceBuffer buffer,
                        DeviceBuffer::Allocate(static_cast<size_t>(mn) * sizeof(float),
                                               Cat("baseline ", b.name, " output")));
    own_output = std::make_shared<DeviceBuffer>(std::move(buffer));
    y = static_cast<float*>(own_output->get());
  }
  if (x == nullptr) {
    KJ_ASSIGN_OR_RETURN(DeviceBuffer buffer,
                        DeviceBuffer::Allocate(static_cast<size_t>(mk) * sizeof(float),
                                               Cat("baseline ", b.name, " input")));
    KJ_RETURN_IF_ERROR(CudaStatus(cudaMemset(buffer.get(), 0, buffer.size()), "cudaMemset"));
    own_input = std::make_shared<DeviceBuffer>(std::move(buffer));
    x = static_cast<const float*>(own_input->get());
  }

  KJ_ASSIGN_OR_RETURN(CublasLtState * lt, libraries.cublaslt());
  auto plan = std::make_shared<LtPlan>();
  KJ_RETURN_IF_ERROR(CublasStatus(
      cublasLtMatmulDescCreate(&plan->op, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate"));
  KJ_RETURN_IF_ERROR(SetDesc(plan->op, CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_T, "TRANSA"));
  KJ_RETURN_IF_ERROR(SetDesc(plan->op, CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N, "TRANSB"));
  KJ_RETURN_IF_ERROR(SetDesc(plan->op, CUBLASLT_MATMUL_DESC_EPILOGUE, epilogue->value, "EPILOGUE"));
  if (bias != nullptr) {
    KJ_RETURN_IF_ERROR(SetDesc(plan->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, bias, "BIAS_POINTER"));
  }
  // Stored matrices, column-major: W as k x n (ld k), x as k x m (ld k), y as n x m (ld n).
  KJ_RETURN_IF_ERROR(CublasStatus(cublasLtMatrixLayoutCreate(&plan->a, CUDA_R_32F, k, n, k),
                                  "cublasLtMatrixLayoutCreate(W)"));
  KJ_RETURN_IF_ERROR(CublasStatus(cublasLtMatrixLayoutCreate(&plan->b, CUDA_R_32F, k, m, k),
                                  "cublasLtMatrixLayoutCreate(x)"));
  KJ_RETURN_IF_ERROR(CublasStatus(cublasLtMatrixLayoutCreate(&plan->d, CUDA_R_32F, n, m, n),
                                  "cublasLtMatrixLayoutCreate(y)"));
  const std::string key = Cat(m, ",", n, ",", k, ",", epilogue_name);
  KJ_ASSIGN_OR_RETURN(const cublasLtMatmulAlgo_t algo, ChooseAlgorithm(b, *lt, *plan, key));

  cublasLtHandle_t handle = lt->handle();
  void* workspace = lt->workspace();
  const size_t workspace_bytes = lt->workspace_bytes();
  return RunFn([=](cudaStream_t stream) -> absl::Status {
    (void)own_input;  // kept alive as long as the run function
    (void)own_output;
    const float alpha = 1.0F;
    const float beta = 0.0F;
    KJ_RETURN_IF_ERROR(CublasStatus(
        cublasLtMatmul(handle, plan->op, &alpha, w, plan->a, x, plan->b, &beta, y, plan->d, y,
                       plan->d, &algo, workspace, workspace_bytes, stream),
        "cublasLtMatmul"));
    return CudaStatus(cudaGetLastError(), "cublasLtMatmul launch");
  });
}

}  // namespace kjudge::runner
