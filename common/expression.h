// Expression: integer (and float) arithmetic over named values, as written in launch plans and
// problem specs: `cdiv(N, 1024) * M`, `max(1, K / 4)`, `2.0 * alpha`.
//
// Grammar (usual precedence, left associative, C semantics for integers):
//   expr    := term (('+' | '-') term)*
//   term    := unary (('*' | '/' | '%') unary)*
//   unary   := '-' unary | primary
//   primary := INT | FLOAT | IDENT | IDENT '(' expr (',' expr)* ')' | '(' expr ')'
// Functions: cdiv(a, b) = ceil(a / b) for non-negative integers, min(a, b, ...), max(a, b, ...).
// INT accepts decimal and 0x hex; FLOAT has a '.' or an exponent (an 'f' suffix is allowed).
//
// Contract: parsing never throws; errors are absl::InvalidArgumentError whose message starts
// with "<line>:<column>: " (1-based, relative to the given start position) and says what was
// expected; unknown functions and wrong argument counts are already parse errors. Evaluate
// reports unknown names, division by zero, integer overflow (and non-finite float results) as
// InvalidArgumentError, naming the sub-expression's position and text. Integer arithmetic
// stays in int64; any float operand makes the result a double (cdiv and % need integers).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace kjudge {

struct SourcePos {
  int line = 1;
  int column = 1;
};

struct Value {
  bool is_float = false;
  int64_t i = 0;
  double f = 0.0;

  static Value Int(int64_t v) { return Value{false, v, static_cast<double>(v)}; }
  // `i` is the truncated value when it fits in int64 (0 otherwise: no UB on huge/NaN input).
  static Value Float(double v) {
    const bool fits = v > -9.2e18 && v < 9.2e18;
    return Value{true, fits ? static_cast<int64_t>(v) : 0, v};
  }
  double AsDouble() const { return is_float ? f : static_cast<double>(i); }
};

using Bindings = std::map<std::string, Value, std::less<>>;

// One occurrence of a name in an expression.
struct NameUse {
  std::string name;
  SourcePos pos;
};

struct ExprNode;  // defined in common/expr_node.h (internal)

// An immutable parsed expression; cheap to copy (shared tree).
class Expr {
 public:
  Expr() = default;
  absl::StatusOr<Value> Evaluate(const Bindings& bindings) const;
  // Evaluates and requires an integer result.
  absl::StatusOr<int64_t> EvaluateInt(const Bindings& bindings) const;
  // The names the expression refers to (not function names).
  std::set<std::string> Names() const;
  // Every occurrence of a name, in source order, with its position (for error messages).
  std::vector<NameUse> NameUses() const;
  // Canonical text, e.g. "cdiv(N, 1024) * M".
  std::string ToString() const;
  SourcePos pos() const;
  bool empty() const { return root_ == nullptr; }
  // A bare identifier: the expression is exactly one name (a tensor/scratch argument).
  bool IsIdentifier() const;
  std::string Identifier() const;  // "" unless IsIdentifier()
  // A literal integer expression (printed in decimal), e.g. the default `1` of a dim3.
  static Expr IntLiteral(int64_t value, SourcePos pos = {});

  explicit Expr(std::shared_ptr<const ExprNode> root) : root_(std::move(root)) {}

 private:
  std::shared_ptr<const ExprNode> root_;
};

// Parses a whole string as one expression. `start` is the position of text[0] in the
// enclosing file, so errors point at the right place.
absl::StatusOr<Expr> ParseExpression(std::string_view text, SourcePos start = {});

}  // namespace kjudge
