#include "worker/judge/baseline_params.h"

#include <algorithm>
#include <utility>

#include "worker/gpu/runner_error.h"
#include "worker/gpu/str_util.h"

namespace kjudge::runner {

absl::Status BaselineError(const LibraryBaselineSpec& b, std::string_view what) {
  return MakeRunnerError(v1::INTERNAL_ERROR, Cat("baseline ", b.name, " (", b.kind, "): ", what));
}

absl::Status CublasStatus(cublasStatus_t s, std::string_view what) {
  if (s == CUBLAS_STATUS_SUCCESS) return absl::OkStatus();
  return MakeRunnerError(v1::INTERNAL_ERROR, Cat(what, " failed: ", cublasGetStatusString(s)));
}

absl::Status CheckParamKeys(const LibraryBaselineSpec& b,
                            std::initializer_list<std::string_view> known) {
  for (const auto& [key, value] : b.params) {
    if (key == "partial") continue;
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string expected;
    for (std::string_view k : known) Append(&expected, expected.empty() ? "" : ", ", k);
    return BaselineError(b, Cat("unknown param `", key, "`; expected one of ", expected,
                                ", partial"));
  }
  return absl::OkStatus();
}

std::optional<std::string> OptionalParam(const LibraryBaselineSpec& b, const std::string& key) {
  auto it = b.params.find(key);
  if (it == b.params.end()) return std::nullopt;
  return it->second;
}

absl::StatusOr<std::string> Param(const LibraryBaselineSpec& b, const std::string& key) {
  std::optional<std::string> v = OptionalParam(b, key);
  if (!v.has_value()) return BaselineError(b, Cat("missing param `", key, "`"));
  return *std::move(v);
}

absl::StatusOr<bool> FlagParam(const LibraryBaselineSpec& b, const std::string& key,
                               bool fallback) {
  std::optional<std::string> v = OptionalParam(b, key);
  if (!v.has_value()) return fallback;
  if (*v == "1" || *v == "true") return true;
  if (*v == "0" || *v == "false") return false;
  return BaselineError(b, Cat("param `", key, "` = \"", *v, "\"; expected \"0\" or \"1\""));
}

absl::StatusOr<int64_t> CheckedMul(const LibraryBaselineSpec& b, int64_t x, int64_t y,
                                   std::string_view what) {
  int64_t out = 0;
  if (__builtin_mul_overflow(x, y, &out)) return BaselineError(b, Cat(what, " overflows int64"));
  return out;
}

absl::StatusOr<float*> F32Tensor(const BaselineRequest& r, const std::string& key,
                                 int64_t min_elements) {
  const LibraryBaselineSpec& b = r.baseline;
  KJ_ASSIGN_OR_RETURN(std::string name, Param(b, key));
  const TensorSpec* t = r.spec.FindTensor(name);
  auto it = r.tensors.find(name);
  if (t == nullptr || it == r.tensors.end()) {
    return BaselineError(b, Cat("`", key, "` names unknown tensor ", name));
  }
  if (t->dtype != DType::kF32) return BaselineError(b, Cat(name, " is not f32"));
  int64_t elements = 1;
  for (const Expr& dim : t->shape) {
    absl::StatusOr<int64_t> d = dim.EvaluateInt(r.bindings);
    if (!d.ok()) return BaselineError(b, Sv(d.status().message()));
    KJ_ASSIGN_OR_RETURN(elements, CheckedMul(b, elements, *d, Cat(name, "'s element count")));
  }
  if (elements < min_elements) {
    return BaselineError(b, Cat("`", key, "` = ", name, " has ", elements,
                                " elements but the call needs ", min_elements));
  }
  return static_cast<float*>(it->second);
}

absl::StatusOr<int64_t> SizeParam(const BaselineRequest& r, const std::string& key,
                                  int64_t min_value, int64_t max_value,
                                  std::optional<int64_t> fallback) {
  const LibraryBaselineSpec& b = r.baseline;
  std::optional<std::string> text = OptionalParam(b, key);
  if (!text.has_value()) {
    if (fallback.has_value()) return *fallback;
    return BaselineError(b, Cat("missing param `", key, "`"));
  }
  absl::StatusOr<Expr> expr = ParseExpression(*text);
  if (!expr.ok()) return BaselineError(b, Cat("`", key, "`: ", Sv(expr.status().message())));
  absl::StatusOr<int64_t> v = expr->EvaluateInt(r.bindings);
  if (!v.ok()) return BaselineError(b, Cat("`", key, "`: ", Sv(v.status().message())));
  if (*v < min_value || *v > max_value) {
    return BaselineError(b, Cat("`", key, "` = ", *text, " = ", *v, " is outside [", min_value,
                                ", ", max_value, "]"));
  }
  return *v;
}

}  // namespace kjudge::runner
