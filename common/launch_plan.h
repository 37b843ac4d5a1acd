// LaunchPlan: the parsed form of a submission's (or a reference's) launch plan.
//
// A plan is a list of statements, each ending in ';' (a newline alone does not end one):
//   scratch NAME : DTYPE[EXPR];
//   KERNEL<<<GRID, BLOCK>>>(ARGS);
//   KERNEL<<<GRID, BLOCK, SHMEM>>>(ARGS);
//   KERNEL<TARGS><<<...>>>(ARGS);
// GRID and BLOCK are an expression or dim3(x[, y[, z]]); SHMEM is the dynamic shared memory in
// bytes (above 48 KB is allowed; the runner raises the function attribute). TARGS are template
// arguments, each an integer expression over sizes or a C++ type name (float, __half, ...).
// ARGS are expressions; a bare identifier naming a tensor or scratch buffer passes its device
// pointer, anything else is a scalar. `//` and `/* */` comments are ignored.
//
// Contract: ParseLaunchPlan never throws. Errors are InvalidArgumentError whose message starts
// with "<line>:<column>: " counted from `first_line` (so a plan inside a .cu file reports file
// lines), and says what was found and what was expected. A plan with no launch is an error.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/dtype.h"
#include "common/expression.h"

namespace kjudge {

struct ScratchDecl {
  std::string name;
  DType dtype = DType::kF32;
  Expr count;  // number of elements
  SourcePos pos;
};

struct TemplateArg {
  bool is_type = false;
  std::string type_name;  // when is_type
  Expr value;             // otherwise
};

struct Dim3Expr {
  Expr x, y, z;  // y and z default to the literal 1
};

struct Launch {
  std::string kernel;
  std::vector<TemplateArg> template_args;  // empty: not a template
  Dim3Expr grid;
  Dim3Expr block;
  Expr shared_bytes;                        // literal 0 when absent
  std::vector<Expr> args;
  SourcePos pos;

  // The C++ name expression NVRTC must instantiate for these bindings, e.g. "row_finish<256>"
  // or "relu" (integer template arguments evaluated; types verbatim).
  absl::StatusOr<std::string> NameExpression(const Bindings& bindings) const;
};

struct LaunchPlan {
  std::vector<ScratchDecl> scratch;
  std::vector<Launch> launches;
  std::string text;  // the source text it was parsed from
  int first_line = 1;
};

absl::StatusOr<LaunchPlan> ParseLaunchPlan(std::string_view text, int first_line = 1);
// Same, with `start` the file position of text[0] (for a plan that starts mid-line, e.g. inside
// a TOML string); lines after the first count columns from 1.
absl::StatusOr<LaunchPlan> ParseLaunchPlan(std::string_view text, SourcePos start);

}  // namespace kjudge
