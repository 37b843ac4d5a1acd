#include "worker/judge/baseline_registry.h"

#include <array>
#include <string_view>
#include <utility>

#include "worker/judge/cublaslt_baseline.h"
#include "worker/gpu/runner_error.h"

namespace kjudge::runner {
namespace {

struct KindEntry {
  std::string_view kind;
  BaselineFactory make;
};

constexpr std::array<KindEntry, 3> kKinds{{
    {"cublas_gemm", &MakeCublasGemm},
    {"cublas_gemv", &MakeCublasGemv},
    {"cublaslt_matmul", &MakeCublasLtMatmul},
}};

const KindEntry* FindKind(std::string_view kind) {
  for (const KindEntry& e : kKinds) {
    if (e.kind == kind) return &e;
  }
  return nullptr;
}

}  // namespace

absl::StatusOr<BaselineLibraries> BaselineLibraries::Create() {
  KJ_ASSIGN_OR_RETURN(CublasHandle cublas, CublasHandle::Create());
  return BaselineLibraries(std::move(cublas));
}
BaselineLibraries BaselineLibraries::ValidationOnly() { return BaselineLibraries(); }
BaselineLibraries::BaselineLibraries(CublasHandle cublas) { cublas_.emplace(std::move(cublas)); }
BaselineLibraries::BaselineLibraries(BaselineLibraries&& other) noexcept = default;
BaselineLibraries::~BaselineLibraries() = default;

absl::StatusOr<CublasLtState*> BaselineLibraries::cublaslt() {
  if (validation_only()) {
    return MakeRunnerError(v1::INTERNAL_ERROR, "cuBLASLt used in validation-only mode");
  }
  if (lt_ == nullptr) {
    KJ_ASSIGN_OR_RETURN(std::unique_ptr<CublasLtState> lt, CublasLtState::Create());
    lt_ = std::move(lt);
  }
  return lt_.get();
}

bool IsKnownBaselineKind(const std::string& kind) { return FindKind(kind) != nullptr; }

std::vector<std::string> KnownBaselineKinds() {
  std::vector<std::string> out;
  out.reserve(kKinds.size());
  for (const KindEntry& e : kKinds) out.emplace_back(e.kind);
  return out;
}

bool IsPartialBaseline(const LibraryBaselineSpec& baseline) {
  auto it = baseline.params.find("partial");
  return it != baseline.params.end() && (it->second == "1" || it->second == "true");
}

absl::StatusOr<RunFn> MakeLibraryBaseline(const LibraryBaselineSpec& baseline,
                                          const ProblemSpec& spec, const Bindings& bindings,
                                          const std::map<std::string, void*>& tensors,
                                          BaselineLibraries& libraries) {
  const KindEntry* entry = FindKind(baseline.kind);
  if (entry == nullptr) return BaselineError(baseline, "unknown baseline kind");
  KJ_RETURN_IF_ERROR(FlagParam(baseline, "partial", false).status());
  const BaselineRequest request{baseline, spec, bindings, tensors};
  return entry->make(request, libraries);
}

}  // namespace kjudge::runner
