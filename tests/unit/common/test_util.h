// Shared helpers for the kjudge_common unit tests.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace kjudge::testing {

inline std::string Message(const absl::Status& status) { return std::string(status.message()); }

template <typename T>
std::string Message(const absl::StatusOr<T>& result) {
  return result.ok() ? "<ok>" : std::string(result.status().message());
}

}  // namespace kjudge::testing
