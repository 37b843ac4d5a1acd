// ExprNode (internal to kjudge_common): the shared, immutable tree behind kjudge::Expr.
// Built by the expression parser (expression_parser.cc), read by expression.cc.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/expression.h"

namespace kjudge {

struct ExprNode {
  enum class Kind { kInt, kFloat, kName, kCall, kNeg, kBinary };

  Kind kind = Kind::kInt;
  SourcePos pos;     // first character of the sub-expression
  SourcePos op_pos;  // kBinary: the operator; otherwise == pos
  std::string text;  // literal spelling, name, or function name
  char op = 0;       // kBinary: one of + - * / %
  int64_t int_value = 0;
  double float_value = 0.0;
  std::vector<std::shared_ptr<const ExprNode>> children;
};

using ExprNodePtr = std::shared_ptr<const ExprNode>;

// The functions expressions may call, with their argument counts.
struct ExprFunction {
  std::string_view name;
  size_t min_args;
  size_t max_args;
};
const ExprFunction* FindExprFunction(std::string_view name);
// "cdiv, min, max"
std::string ExprFunctionNames();

}  // namespace kjudge
