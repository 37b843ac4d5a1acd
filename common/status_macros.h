// KJ_RETURN_IF_ERROR(expr): returns the absl::Status `expr` when it is not OK.
// KJ_ASSIGN_OR_RETURN(lhs, expr): evaluates the absl::StatusOr `expr`; returns its status when
// not OK, else moves its value into `lhs` (a declaration or an lvalue).
// The tree's one error-propagation toolkit (issue 29): common/, server/, client/, dashboard/ and
// worker/ all use these; worker/gpu/runner_error.h, which includes CUDA, re-exports them.
#pragma once

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define KJ_RETURN_IF_ERROR(expr)            \
  do {                                      \
    absl::Status kj_status_ = (expr);       \
    if (!kj_status_.ok()) return kj_status_; \
  } while (false)

#define KJ_CONCAT_INNER(a, b) a##b
#define KJ_CONCAT(a, b) KJ_CONCAT_INNER(a, b)
#define KJ_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(*tmp)
#define KJ_ASSIGN_OR_RETURN(lhs, expr) \
  KJ_ASSIGN_OR_RETURN_IMPL(KJ_CONCAT(kj_statusor_, __LINE__), lhs, expr)
