// libFuzzer target: the expression parser and evaluator. Besides not crashing, it checks a
// property: an accepted expression printed with ToString() parses again to the same value.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "common/expression.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<kjudge::Expr> expr = kjudge::ParseExpression(text);
  if (!expr.ok()) return 0;
  const kjudge::Bindings bindings = {{"M", kjudge::Value::Int(7)}, {"N", kjudge::Value::Int(-3)},
                                     {"K", kjudge::Value::Int(1LL << 40)}, {"x", kjudge::Value::Float(1.5)}};
  absl::StatusOr<kjudge::Value> value = expr->Evaluate(bindings);
  absl::StatusOr<kjudge::Expr> again = kjudge::ParseExpression(expr->ToString());
  if (!again.ok()) std::abort();  // ToString must print something the parser accepts
  absl::StatusOr<kjudge::Value> value_again = again->Evaluate(bindings);
  if (value.ok() != value_again.ok()) std::abort();
  if (value.ok()) {
    if (value->is_float != value_again->is_float) std::abort();
    if (!value->is_float && value->i != value_again->i) std::abort();
    if (value->is_float && !(value->f == value_again->f || (std::isnan(value->f) && std::isnan(value_again->f)))) {
      std::abort();
    }
  }
  return 0;
}
