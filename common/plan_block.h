// PlanBlock: finds the launch plan carried inside a .cu submission, so one file is a whole
// submission. The block is a block comment whose first token is `kjudge-plan`:
//
//   /* kjudge-plan
//   scratch partial : f32[cdiv(N, 1024) * M];
//   row_partial<<<dim3(cdiv(N, 1024), M), 256>>>(X, partial, M, N);
//   */
//
// Contract: returns nullopt when there is no such block; an error when there are two, or when
// the block is not closed (with the line of its start). `first_line` is the file line of the
// plan's first character, for ParseLaunchPlan. When the marker line has nothing after
// `kjudge-plan`, `text` starts on the next line; otherwise the marker (and what precedes it on
// its line) is replaced by spaces, so columns in ParseLaunchPlan errors are the file's too.
// Block comments inside string literals or `//` comments are not looked at.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace kjudge {

struct PlanBlock {
  std::string text;
  int first_line = 1;
};

absl::StatusOr<std::optional<PlanBlock>> FindPlanBlock(std::string_view source);

}  // namespace kjudge
