#include "common/expression.h"

#include <array>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/absl_compat.h"
#include "common/expr_node.h"
#include "common/lexer.h"

namespace kjudge {
namespace {

constexpr std::array<ExprFunction, 3> kFunctions = {{
    {"cdiv", 2, 2},
    {"min", 2, std::numeric_limits<size_t>::max()},
    {"max", 2, std::numeric_limits<size_t>::max()},
}};

constexpr size_t kMaxListedNames = 12;

// ---- Printing -------------------------------------------------------------------------------

int Precedence(const ExprNode& node) {
  switch (node.kind) {
    case ExprNode::Kind::kBinary:
      return (node.op == '+' || node.op == '-') ? 1 : 2;
    case ExprNode::Kind::kNeg:
      return 3;
    default:
      return 4;
  }
}

void Print(const ExprNode& node, std::string& out);

void PrintChild(const ExprNode& child, bool parenthesize, std::string& out) {
  if (parenthesize) out += '(';
  Print(child, out);
  if (parenthesize) out += ')';
}

void Print(const ExprNode& node, std::string& out) {
  switch (node.kind) {
    case ExprNode::Kind::kInt:
    case ExprNode::Kind::kFloat:
    case ExprNode::Kind::kName:
      out += node.text;
      return;
    case ExprNode::Kind::kCall:
      out += node.text;
      out += '(';
      for (size_t i = 0; i < node.children.size(); ++i) {
        if (i > 0) out += ", ";
        Print(*node.children[i], out);
      }
      out += ')';
      return;
    case ExprNode::Kind::kNeg:
      out += '-';
      // "- -x" (not "-(-x)", whose parentheses would double the nesting depth the parser
      // allows, so a printed expression might not parse again); "-(a + b)" keeps its own.
      if (node.children[0]->kind == ExprNode::Kind::kNeg) out += ' ';
      PrintChild(*node.children[0], Precedence(*node.children[0]) < 3, out);
      return;
    case ExprNode::Kind::kBinary: {
      const int prec = Precedence(node);
      PrintChild(*node.children[0], Precedence(*node.children[0]) < prec, out);
      absl::StrAppend(&out, " ", std::string(1, node.op), " ");
      PrintChild(*node.children[1], Precedence(*node.children[1]) <= prec, out);
      return;
    }
  }
}

std::string NodeText(const ExprNode& node) {
  std::string out;
  Print(node, out);
  return out;
}

// ---- Evaluation -----------------------------------------------------------------------------

absl::Status EvalError(SourcePos pos, absl::string_view what, const ExprNode& node) {
  return MakePosError(pos, absl::StrCat(what, " in '", NodeText(node), "'"));
}

std::string FormatValue(const Value& v) { return v.is_float ? absl::StrCat(v.f) : absl::StrCat(v.i); }

absl::StatusOr<Value> Eval(const ExprNode& node, const Bindings& bindings);

absl::StatusOr<Value> CheckedFloat(double result, const ExprNode& node) {
  if (!std::isfinite(result)) return EvalError(node.op_pos, "float overflow", node);
  return Value::Float(result);
}

absl::StatusOr<Value> EvalName(const ExprNode& node, const Bindings& bindings) {
  const auto it = bindings.find(node.text);
  if (it != bindings.end()) return it->second;
  std::string message = absl::StrCat("unknown name '", node.text, "'");
  if (bindings.empty()) {
    absl::StrAppend(&message, "; no names are defined here");
  } else if (bindings.size() <= kMaxListedNames) {
    std::vector<std::string> names;
    for (const auto& [name, value] : bindings) names.emplace_back(name);
    absl::StrAppend(&message, "; expected one of: ", absl::StrJoin(names, ", "));
  } else {
    absl::StrAppend(&message, " (", bindings.size(), " names are defined)");
  }
  return MakePosError(node.pos, message);
}

absl::StatusOr<Value> EvalNeg(const ExprNode& node, const Bindings& bindings) {
  absl::StatusOr<Value> v = Eval(*node.children[0], bindings);
  if (!v.ok()) return v;
  if (v->is_float) return Value::Float(-v->f);
  if (v->i == std::numeric_limits<int64_t>::min()) {
    return EvalError(node.pos, "integer overflow", node);
  }
  return Value::Int(-v->i);
}

absl::StatusOr<Value> FloatBinary(const ExprNode& node, double a, double b) {
  switch (node.op) {
    case '+':
      return CheckedFloat(a + b, node);
    case '-':
      return CheckedFloat(a - b, node);
    case '*':
      return CheckedFloat(a * b, node);
    case '/':
      if (b == 0.0) return EvalError(node.op_pos, "division by zero", node);
      return CheckedFloat(a / b, node);
    default:
      return EvalError(node.op_pos, "'%' needs integer operands, got a float", node);
  }
}

absl::StatusOr<Value> IntBinary(const ExprNode& node, int64_t a, int64_t b) {
  int64_t r = 0;
  bool overflow = false;
  switch (node.op) {
    case '+':
      overflow = __builtin_add_overflow(a, b, &r);
      break;
    case '-':
      overflow = __builtin_sub_overflow(a, b, &r);
      break;
    case '*':
      overflow = __builtin_mul_overflow(a, b, &r);
      break;
    default:  // '/' and '%'
      if (b == 0) return EvalError(node.op_pos, "division by zero", node);
      if (a == std::numeric_limits<int64_t>::min() && b == -1) {
        overflow = node.op == '/';
        r = 0;
      } else {
        r = node.op == '/' ? a / b : a % b;
      }
  }
  if (overflow) {
    return EvalError(node.op_pos,
                     absl::StrCat("integer overflow (", a, " ", std::string(1, node.op), " ", b,
                                  " does not fit in 64 bits)"),
                     node);
  }
  return Value::Int(r);
}

absl::StatusOr<Value> EvalBinary(const ExprNode& node, const Bindings& bindings) {
  absl::StatusOr<Value> a = Eval(*node.children[0], bindings);
  if (!a.ok()) return a;
  absl::StatusOr<Value> b = Eval(*node.children[1], bindings);
  if (!b.ok()) return b;
  if (a->is_float || b->is_float) return FloatBinary(node, a->AsDouble(), b->AsDouble());
  return IntBinary(node, a->i, b->i);
}

absl::StatusOr<Value> EvalCdiv(const ExprNode& node, const std::vector<Value>& args) {
  if (args[0].is_float || args[1].is_float) {
    return EvalError(node.pos, "cdiv needs integer arguments, got a float", node);
  }
  const int64_t a = args[0].i;
  const int64_t b = args[1].i;
  if (b == 0) return EvalError(node.pos, "division by zero", node);
  if (a < 0 || b < 0) {
    return EvalError(node.pos,
                     absl::StrCat("cdiv needs non-negative arguments, got cdiv(", a, ", ", b, ")"),
                     node);
  }
  return Value::Int(a / b + (a % b != 0 ? 1 : 0));
}

Value EvalMinMax(bool is_min, const std::vector<Value>& args) {
  bool any_float = false;
  for (const Value& v : args) any_float = any_float || v.is_float;
  Value best = args[0];
  for (const Value& v : args) {
    const bool better = any_float ? (is_min ? v.AsDouble() < best.AsDouble()
                                            : v.AsDouble() > best.AsDouble())
                                  : (is_min ? v.i < best.i : v.i > best.i);
    if (better) best = v;
  }
  return any_float ? Value::Float(best.AsDouble()) : best;
}

absl::StatusOr<Value> EvalCall(const ExprNode& node, const Bindings& bindings) {
  const ExprFunction* fn = FindExprFunction(node.text);
  if (fn == nullptr) {
    return MakePosError(node.pos, absl::StrCat("unknown function '", node.text,
                                               "'; expected one of: ", ExprFunctionNames()));
  }
  if (node.children.size() < fn->min_args || node.children.size() > fn->max_args) {
    return EvalError(node.pos, absl::StrCat("wrong number of arguments to ", ToAbsl(fn->name)), node);
  }
  std::vector<Value> args;
  for (const ExprNodePtr& child : node.children) {
    absl::StatusOr<Value> v = Eval(*child, bindings);
    if (!v.ok()) return v;
    args.push_back(*v);
  }
  if (fn->name == "cdiv") return EvalCdiv(node, args);
  return EvalMinMax(fn->name == "min", args);
}

absl::StatusOr<Value> Eval(const ExprNode& node, const Bindings& bindings) {
  switch (node.kind) {
    case ExprNode::Kind::kInt:
      return Value::Int(node.int_value);
    case ExprNode::Kind::kFloat:
      return Value::Float(node.float_value);
    case ExprNode::Kind::kName:
      return EvalName(node, bindings);
    case ExprNode::Kind::kNeg:
      return EvalNeg(node, bindings);
    case ExprNode::Kind::kBinary:
      return EvalBinary(node, bindings);
    case ExprNode::Kind::kCall:
      return EvalCall(node, bindings);
  }
  return absl::InternalError("corrupt expression node");
}

void CollectNames(const ExprNode& node, std::set<std::string>& names) {
  if (node.kind == ExprNode::Kind::kName) names.insert(node.text);
  for (const ExprNodePtr& child : node.children) CollectNames(*child, names);
}

void CollectNameUses(const ExprNode& node, std::vector<NameUse>& uses) {
  if (node.kind == ExprNode::Kind::kName) uses.push_back({node.text, node.pos});
  for (const ExprNodePtr& child : node.children) CollectNameUses(*child, uses);
}

}  // namespace

const ExprFunction* FindExprFunction(std::string_view name) {
  for (const ExprFunction& fn : kFunctions) {
    if (fn.name == name) return &fn;
  }
  return nullptr;
}

std::string ExprFunctionNames() {
  std::vector<std::string> names;
  names.reserve(kFunctions.size());
  for (const ExprFunction& fn : kFunctions) names.emplace_back(fn.name);
  return absl::StrJoin(names, ", ");
}

absl::StatusOr<Value> Expr::Evaluate(const Bindings& bindings) const {
  if (root_ == nullptr) return absl::InvalidArgumentError("cannot evaluate an empty expression");
  return Eval(*root_, bindings);
}

absl::StatusOr<int64_t> Expr::EvaluateInt(const Bindings& bindings) const {
  absl::StatusOr<Value> v = Evaluate(bindings);
  if (!v.ok()) return v.status();
  if (v->is_float) {
    return MakePosError(pos(), absl::StrCat("expected an integer, but '", ToString(),
                                            "' is the float ", FormatValue(*v)));
  }
  return v->i;
}

std::set<std::string> Expr::Names() const {
  std::set<std::string> names;
  if (root_ != nullptr) CollectNames(*root_, names);
  return names;
}

std::vector<NameUse> Expr::NameUses() const {
  std::vector<NameUse> uses;
  if (root_ != nullptr) CollectNameUses(*root_, uses);
  return uses;
}

std::string Expr::ToString() const { return root_ == nullptr ? "" : NodeText(*root_); }

SourcePos Expr::pos() const { return root_ == nullptr ? SourcePos{} : root_->pos; }

bool Expr::IsIdentifier() const {
  return root_ != nullptr && root_->kind == ExprNode::Kind::kName;
}

std::string Expr::Identifier() const { return IsIdentifier() ? root_->text : ""; }

Expr Expr::IntLiteral(int64_t value, SourcePos pos) {
  auto node = std::make_shared<ExprNode>();
  node->pos = node->op_pos = pos;
  if (value < 0 && value != std::numeric_limits<int64_t>::min()) {
    // Literals are non-negative in the grammar; keep the tree printable and re-parsable.
    auto inner = std::make_shared<ExprNode>();
    inner->pos = inner->op_pos = pos;
    inner->int_value = -value;
    inner->text = absl::StrCat(-value);
    node->kind = ExprNode::Kind::kNeg;
    node->children.push_back(std::move(inner));
    return Expr(std::move(node));
  }
  node->int_value = value;
  node->text = absl::StrCat(value);
  return Expr(std::move(node));
}

}  // namespace kjudge
