// BaselineParams: reading a library baseline's `params` table (common/problem_spec.h,
// `[[baseline]]`) against the spec and one shape's bindings, shared by every baseline kind.
//
// Contract: every failure is INTERNAL_ERROR naming the baseline and the param ("baseline
// cublas (cublas_gemm): missing param `m`"): a bad baseline spec is the problem's fault, never
// the submission's. Tensor params name an f32 tensor of the spec that is present in `tensors`;
// MinElements() guards the library call against reading or writing past a tensor. Size params
// are integer expressions over the sizes (and scalars), evaluated at the shape.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <cublas_api.h>

#include "absl/status/statusor.h"
#include "common/problem_spec.h"

namespace kjudge::runner {

// What a baseline factory gets: one baseline of the spec at one bench shape.
struct BaselineRequest {
  const LibraryBaselineSpec& baseline;
  const ProblemSpec& spec;
  const Bindings& bindings;
  const std::map<std::string, void*>& tensors;
};

absl::Status BaselineError(const LibraryBaselineSpec& b, std::string_view what);
absl::Status CublasStatus(cublasStatus_t s, std::string_view what);

// Checks that every param key is one of `known` (typos are errors, as elsewhere in the spec).
// "partial" is accepted everywhere (see IsPartialBaseline in baseline_registry.h).
absl::Status CheckParamKeys(const LibraryBaselineSpec& b,
                            std::initializer_list<std::string_view> known);

std::optional<std::string> OptionalParam(const LibraryBaselineSpec& b, const std::string& key);
absl::StatusOr<std::string> Param(const LibraryBaselineSpec& b, const std::string& key);

// "0" or "1" (also "false"/"true"); `fallback` when the param is absent.
absl::StatusOr<bool> FlagParam(const LibraryBaselineSpec& b, const std::string& key,
                               bool fallback);

// An f32 tensor named by param `key`, with at least `min_elements` elements at this shape.
absl::StatusOr<float*> F32Tensor(const BaselineRequest& r, const std::string& key,
                                 int64_t min_elements);

// An integer expression param in [min_value, max_value]; `fallback` (unevaluated) when absent
// and a fallback is given.
absl::StatusOr<int64_t> SizeParam(const BaselineRequest& r, const std::string& key,
                                  int64_t min_value = 1,
                                  int64_t max_value = 2147483647,
                                  std::optional<int64_t> fallback = std::nullopt);

// a * b, or an error naming `what` on int64 overflow.
absl::StatusOr<int64_t> CheckedMul(const LibraryBaselineSpec& b, int64_t x, int64_t y,
                                   std::string_view what);

}  // namespace kjudge::runner
