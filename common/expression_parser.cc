#include "common/expression_parser.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/absl_compat.h"
#include "common/expr_node.h"
#include "common/status_macros.h"

namespace kjudge {
namespace {

constexpr int kMaxDepth = 100;

class Parser {
 public:
  explicit Parser(TokenCursor& cursor) : cur_(cursor) {}

  absl::StatusOr<ExprNodePtr> ParseSum() { return ParseBinary("+-", &Parser::ParseTerm); }

 private:
  using SubParser = absl::StatusOr<ExprNodePtr> (Parser::*)();

  absl::StatusOr<ExprNodePtr> ParseTerm() { return ParseBinary("*/%", &Parser::ParseUnary); }

  absl::StatusOr<ExprNodePtr> ParseBinary(std::string_view ops, SubParser operand) {
    absl::StatusOr<ExprNodePtr> left = (this->*operand)();
    if (!left.ok()) return left;
    while (cur_.Peek().kind == TokenKind::kPunct && cur_.Peek().text.size() == 1 &&
           ops.find(cur_.Peek().text[0]) != std::string_view::npos) {
      const Token& op = cur_.Next();
      absl::StatusOr<ExprNodePtr> right = (this->*operand)();
      if (!right.ok()) return right;
      auto node = std::make_shared<ExprNode>();
      node->kind = ExprNode::Kind::kBinary;
      node->pos = (*left)->pos;
      node->op_pos = op.pos;
      node->op = op.text[0];
      node->children = {std::move(*left), std::move(*right)};
      left = std::move(node);
    }
    return left;
  }

  absl::StatusOr<ExprNodePtr> ParseUnary() {
    if (!cur_.Peek().Is("-")) return ParsePrimary();
    const SourcePos pos = cur_.Next().pos;
    absl::StatusOr<ExprNodePtr> operand = Nested(&Parser::ParseUnary);
    if (!operand.ok()) return operand;
    auto node = std::make_shared<ExprNode>();
    node->kind = ExprNode::Kind::kNeg;
    node->pos = node->op_pos = pos;
    node->children = {std::move(*operand)};
    return node;
  }

  absl::StatusOr<ExprNodePtr> Nested(SubParser sub) {
    if (++depth_ > kMaxDepth) {
      return MakePosError(cur_.ErrorPos(), absl::StrCat("expression nested more than ", kMaxDepth,
                                                        " levels deep; expected a simpler one"));
    }
    absl::StatusOr<ExprNodePtr> result = (this->*sub)();
    --depth_;
    return result;
  }

  absl::StatusOr<ExprNodePtr> ParsePrimary() {
    const Token& token = cur_.Peek();
    switch (token.kind) {
      case TokenKind::kInt:
      case TokenKind::kFloat:
        return Literal(cur_.Next());
      case TokenKind::kIdent:
        return cur_.Peek(1).Is("(") ? ParseCall() : Name(cur_.Next());
      default:
        break;
    }
    if (!token.Is("(")) return cur_.Expected("an expression (a number, a name or '(')");
    cur_.Next();
    absl::StatusOr<ExprNodePtr> inner = Nested(&Parser::ParseSum);
    if (!inner.ok()) return inner;
    KJ_RETURN_IF_ERROR(cur_.Expect(")", "to close the parenthesis"));
    return inner;
  }

  static ExprNodePtr Literal(const Token& token) {
    auto node = std::make_shared<ExprNode>();
    node->kind = token.kind == TokenKind::kInt ? ExprNode::Kind::kInt : ExprNode::Kind::kFloat;
    node->pos = node->op_pos = token.pos;
    node->text = token.text;
    node->int_value = token.int_value;
    node->float_value = token.float_value;
    return node;
  }

  static ExprNodePtr Name(const Token& token) {
    auto node = std::make_shared<ExprNode>();
    node->kind = ExprNode::Kind::kName;
    node->pos = node->op_pos = token.pos;
    node->text = token.text;
    return node;
  }

  absl::StatusOr<ExprNodePtr> ParseCall() {
    const Token& name = cur_.Next();
    const ExprFunction* fn = FindExprFunction(name.text);
    if (fn == nullptr) {
      std::string message = absl::StrCat("unknown function '", name.text,
                                          "'; expected one of: ", ExprFunctionNames());
      if (name.text == "dim3") message += " (dim3(...) is only allowed as a grid or block size)";
      return MakePosError(name.pos, message);
    }
    auto node = std::make_shared<ExprNode>();
    node->kind = ExprNode::Kind::kCall;
    node->pos = node->op_pos = name.pos;
    node->text = name.text;
    cur_.Next();  // '('
    do {
      absl::StatusOr<ExprNodePtr> arg = Nested(&Parser::ParseSum);
      if (!arg.ok()) return arg;
      node->children.push_back(std::move(*arg));
    } while (cur_.Accept(","));
    if (absl::Status st = cur_.Expect(")", absl::StrCat("to close the call to ", ToAbsl(fn->name)));
        !st.ok()) {
      return st;
    }
    const size_t n = node->children.size();
    if (n < fn->min_args || n > fn->max_args) {
      const std::string expected =
          fn->min_args == fn->max_args ? absl::StrCat("exactly ", fn->min_args)
                                       : absl::StrCat("at least ", fn->min_args);
      return MakePosError(name.pos, absl::StrCat(ToAbsl(fn->name), " takes ", expected,
                                                 " arguments, found ", n));
    }
    return node;
  }

  TokenCursor& cur_;
  int depth_ = 0;
};

}  // namespace

absl::StatusOr<Expr> ParseExpressionAt(TokenCursor& cursor) {
  absl::StatusOr<ExprNodePtr> root = Parser(cursor).ParseSum();
  if (!root.ok()) return root.status();
  return Expr(std::move(*root));
}

absl::StatusOr<Expr> ParseExpression(std::string_view text, SourcePos start) {
  absl::StatusOr<std::vector<Token>> tokens = Tokenize(text, start);
  if (!tokens.ok()) return tokens.status();
  TokenCursor cursor(*tokens);
  absl::StatusOr<Expr> expr = ParseExpressionAt(cursor);
  if (!expr.ok()) return expr;
  if (!cursor.AtEnd()) return cursor.Expected("an operator or the end of the expression");
  return expr;
}

}  // namespace kjudge
