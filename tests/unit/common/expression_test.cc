#include "common/expression.h"

#include <limits>

#include "test_util.h"

namespace kjudge {
namespace {

using ::kjudge::testing::Message;
using ::testing::HasSubstr;
using ::testing::StartsWith;

Bindings Sizes() { return {{"M", Value::Int(3)}, {"N", Value::Int(37)}, {"alpha", Value::Float(0.5)}}; }

absl::StatusOr<Value> Eval(std::string_view text, const Bindings& bindings = Sizes()) {
  absl::StatusOr<Expr> expr = ParseExpression(text);
  if (!expr.ok()) return expr.status();
  return expr->Evaluate(bindings);
}

int64_t EvalInt(std::string_view text, const Bindings& bindings = Sizes()) {
  absl::StatusOr<Expr> expr = ParseExpression(text);
  EXPECT_TRUE(expr.ok()) << text << ": " << expr.status();
  if (!expr.ok()) return -999;
  absl::StatusOr<int64_t> v = expr->EvaluateInt(bindings);
  EXPECT_TRUE(v.ok()) << text << ": " << v.status();
  return v.ok() ? *v : -999;
}

TEST(ExpressionTest, PrecedenceAndAssociativity) {
  EXPECT_EQ(EvalInt("1 + 2 * 3"), 7);
  EXPECT_EQ(EvalInt("(1 + 2) * 3"), 9);
  EXPECT_EQ(EvalInt("10 - 4 - 3"), 3);     // left associative
  EXPECT_EQ(EvalInt("100 / 10 / 5"), 2);   // left associative
  EXPECT_EQ(EvalInt("2 * 3 % 4"), 2);      // (2 * 3) % 4
  EXPECT_EQ(EvalInt("M * N + 1"), 112);
  EXPECT_EQ(EvalInt("-M + N"), 34);
  EXPECT_EQ(EvalInt("-(M + N)"), -40);
  EXPECT_EQ(EvalInt("--M"), 3);
  EXPECT_EQ(EvalInt("2 * -3"), -6);
}

TEST(ExpressionTest, CSemanticsForIntegerDivision) {
  EXPECT_EQ(EvalInt("7 / 2"), 3);
  EXPECT_EQ(EvalInt("-7 / 2"), -3);  // truncates toward zero
  EXPECT_EQ(EvalInt("-7 % 3"), -1);
  EXPECT_EQ(EvalInt("N % 32"), 5);
}

TEST(ExpressionTest, Functions) {
  EXPECT_EQ(EvalInt("cdiv(N, 32)"), 2);
  EXPECT_EQ(EvalInt("cdiv(64, 32)"), 2);
  EXPECT_EQ(EvalInt("cdiv(0, 32)"), 0);
  EXPECT_EQ(EvalInt("cdiv(1, 1024)"), 1);
  EXPECT_EQ(EvalInt("cdiv(N, 1024) * M"), 3);
  EXPECT_EQ(EvalInt("min(M, N)"), 3);
  EXPECT_EQ(EvalInt("max(M, N, 100, 4)"), 100);
  EXPECT_EQ(EvalInt("max(1, N / 4)"), 9);
  EXPECT_EQ(EvalInt("min(max(M, 8), cdiv(N, 2))"), 8);
}

TEST(ExpressionTest, HexIntegers) {
  EXPECT_EQ(EvalInt("0x10"), 16);
  EXPECT_EQ(EvalInt("0xFF + 1"), 256);
  EXPECT_EQ(EvalInt("0x7fffffffffffffff"), std::numeric_limits<int64_t>::max());
}

TEST(ExpressionTest, FloatsMakeDoubles) {
  absl::StatusOr<Value> v = Eval("2.0 * alpha");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_TRUE(v->is_float);
  EXPECT_DOUBLE_EQ(v->f, 1.0);

  v = Eval("M / 2.0");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_TRUE(v->is_float);
  EXPECT_DOUBLE_EQ(v->f, 1.5);

  v = Eval("1e3 + 0.5f");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_DOUBLE_EQ(v->f, 1000.5);

  v = Eval("max(M, 2.5)");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_TRUE(v->is_float);
  EXPECT_DOUBLE_EQ(v->f, 3.0);

  v = Eval(".25 * 4");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_DOUBLE_EQ(v->f, 1.0);
}

TEST(ExpressionTest, EvaluateIntRejectsFloats) {
  absl::StatusOr<Expr> expr = ParseExpression("M * 1.5");
  ASSERT_TRUE(expr.ok());
  absl::StatusOr<int64_t> v = expr->EvaluateInt(Sizes());
  ASSERT_FALSE(v.ok());
  EXPECT_THAT(Message(v), StartsWith("1:1: expected an integer"));
  EXPECT_THAT(Message(v), HasSubstr("4.5"));
}

TEST(ExpressionTest, DivisionByZeroPointsAtOperator) {
  absl::StatusOr<Value> v = Eval("N / (M - 3)");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Message(v), "1:3: division by zero in 'N / (M - 3)'");

  EXPECT_THAT(Message(Eval("N % 0")), StartsWith("1:3: division by zero"));
  EXPECT_THAT(Message(Eval("cdiv(N, 0)")), StartsWith("1:1: division by zero"));
  EXPECT_THAT(Message(Eval("alpha / 0")), StartsWith("1:7: division by zero"));
}

TEST(ExpressionTest, IntegerOverflowIsAnError) {
  const Bindings big = {{"N", Value::Int(std::numeric_limits<int64_t>::max())}};
  EXPECT_THAT(Message(Eval("N + 1", big)), StartsWith("1:3: integer overflow"));
  EXPECT_THAT(Message(Eval("2 * N", big)), StartsWith("1:3: integer overflow"));
  EXPECT_THAT(Message(Eval("-N - 2", big)), StartsWith("1:4: integer overflow"));
  EXPECT_THAT(Message(Eval("0x100000000 * 0x100000000", big)), HasSubstr("integer overflow"));
  const Bindings min = {{"N", Value::Int(std::numeric_limits<int64_t>::min())}};
  EXPECT_THAT(Message(Eval("-N", min)), StartsWith("1:1: integer overflow"));
  EXPECT_THAT(Message(Eval("N / -1", min)), StartsWith("1:3: integer overflow"));
  EXPECT_EQ(EvalInt("N % -1", min), 0);
  EXPECT_EQ(EvalInt("N - 1", big), std::numeric_limits<int64_t>::max() - 1);
}

TEST(ExpressionTest, CdivNeedsNonNegativeIntegers) {
  EXPECT_THAT(Message(Eval("cdiv(-1, 4)")), HasSubstr("non-negative"));
  EXPECT_THAT(Message(Eval("cdiv(alpha, 4)")), HasSubstr("cdiv needs integer arguments"));
  EXPECT_THAT(Message(Eval("alpha % 2")), HasSubstr("'%' needs integer operands"));
}

TEST(ExpressionTest, UnknownNameListsKnownNames) {
  absl::StatusOr<Value> v = Eval("M * K");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(Message(v), "1:5: unknown name 'K'; expected one of: M, N, alpha");

  Bindings many;
  for (int i = 0; i < 20; ++i) many["n" + std::to_string(i)] = Value::Int(i);
  EXPECT_EQ(Message(Eval("zz", many)), "1:1: unknown name 'zz' (20 names are defined)");
  EXPECT_THAT(Message(Eval("zz", {})), HasSubstr("no names are defined"));
}

TEST(ExpressionTest, ParseErrorsHaveLineAndColumn) {
  EXPECT_EQ(Message(ParseExpression("M +")),
            "1:4: expected an expression (a number, a name or '('), found end of input");
  EXPECT_EQ(Message(ParseExpression("(M + N")),
            "1:7: expected ')' to close the parenthesis, found end of input");
  EXPECT_EQ(Message(ParseExpression("M N")),
            "1:3: expected an operator or the end of the expression, found identifier 'N'");
  EXPECT_EQ(Message(ParseExpression("M\n  * $")),
            "2:5: unexpected character '$'; expected a name, a number or an operator");
  EXPECT_THAT(Message(ParseExpression("12abc")), StartsWith("1:3: unexpected 'a' after the number"));
  EXPECT_THAT(Message(ParseExpression("99999999999999999999")),
              StartsWith("1:1: integer literal 99999999999999999999 does not fit"));
  EXPECT_THAT(Message(ParseExpression("0x")), StartsWith("1:1: expected hex digits"));
  EXPECT_THAT(Message(ParseExpression("M < N")), StartsWith("1:3: expected an operator"));
}

TEST(ExpressionTest, StartPositionOffsetsErrors) {
  EXPECT_THAT(Message(ParseExpression("M + )", SourcePos{7, 10})), StartsWith("7:14: expected"));
  // Lines after the first count columns from 1.
  EXPECT_THAT(Message(ParseExpression("M +\n )", SourcePos{7, 10})), StartsWith("8:2: expected"));
  absl::StatusOr<Expr> expr = ParseExpression("N / 0", SourcePos{3, 5});
  ASSERT_TRUE(expr.ok());
  EXPECT_EQ(expr->pos().line, 3);
  EXPECT_EQ(expr->pos().column, 5);
  EXPECT_THAT(Message(expr->Evaluate(Sizes())), StartsWith("3:7: division by zero"));
}

TEST(ExpressionTest, FunctionErrorsAtParseTime) {
  EXPECT_EQ(Message(ParseExpression("M + ceil(N, 2)")),
            "1:5: unknown function 'ceil'; expected one of: cdiv, min, max");
  EXPECT_EQ(Message(ParseExpression("cdiv(N)")), "1:1: cdiv takes exactly 2 arguments, found 1");
  EXPECT_EQ(Message(ParseExpression("min(N)")), "1:1: min takes at least 2 arguments, found 1");
  EXPECT_THAT(Message(ParseExpression("dim3(1, 2)")), HasSubstr("only allowed as a grid or block"));
  EXPECT_THAT(Message(ParseExpression("max(M,")), StartsWith("1:7: expected an expression"));
}

TEST(ExpressionTest, CommentsAreIgnored) {
  EXPECT_EQ(EvalInt("M /* rows */ * N // columns"), 111);
  EXPECT_THAT(Message(ParseExpression("M /* open")), StartsWith("1:3: unterminated '/*' comment"));
}

TEST(ExpressionTest, ToStringIsCanonical) {
  auto canon = [](std::string_view text) {
    absl::StatusOr<Expr> e = ParseExpression(text);
    return e.ok() ? e->ToString() : Message(e);
  };
  EXPECT_EQ(canon("cdiv( N,1024 )*M"), "cdiv(N, 1024) * M");
  EXPECT_EQ(canon("((M + N))"), "M + N");
  EXPECT_EQ(canon("(M + N) * 2"), "(M + N) * 2");
  EXPECT_EQ(canon("M - (N - 1)"), "M - (N - 1)");
  EXPECT_EQ(canon("(M - N) - 1"), "M - N - 1");
  EXPECT_EQ(canon("M / (N * 2)"), "M / (N * 2)");
  EXPECT_EQ(canon("-(M + 1)"), "-(M + 1)");
  EXPECT_EQ(canon("- - M"), "- -M");
  EXPECT_EQ(canon("2.0f*alpha"), "2.0f * alpha");
  EXPECT_EQ(canon("0x10"), "0x10");
  // The canonical text re-parses to the same value.
  for (std::string_view text : {"M - (N - 1) * -(2 + M) % 5", "max(1, N / 4) - -M"}) {
    absl::StatusOr<Expr> a = ParseExpression(text);
    ASSERT_TRUE(a.ok());
    absl::StatusOr<Expr> b = ParseExpression(a->ToString());
    ASSERT_TRUE(b.ok()) << a->ToString();
    EXPECT_EQ(b->EvaluateInt(Sizes()).value(), a->EvaluateInt(Sizes()).value()) << text;
  }
}

TEST(ExpressionTest, NamesAndIdentifiers) {
  absl::StatusOr<Expr> expr = ParseExpression("cdiv(N, BLOCK) * M + N");
  ASSERT_TRUE(expr.ok());
  EXPECT_EQ(expr->Names(), (std::set<std::string>{"BLOCK", "M", "N"}));
  EXPECT_FALSE(expr->IsIdentifier());
  EXPECT_EQ(expr->Identifier(), "");
  const std::vector<NameUse> uses = expr->NameUses();
  ASSERT_EQ(uses.size(), 4u);
  EXPECT_EQ(uses[1].name, "BLOCK");
  EXPECT_EQ(uses[1].pos.column, 9);

  absl::StatusOr<Expr> ident = ParseExpression("  X ");
  ASSERT_TRUE(ident.ok());
  EXPECT_TRUE(ident->IsIdentifier());
  EXPECT_EQ(ident->Identifier(), "X");
  EXPECT_EQ(ident->pos().column, 3);
}

TEST(ExpressionTest, EmptyAndLiteralExpressions) {
  Expr empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_FALSE(empty.Evaluate({}).ok());
  EXPECT_EQ(empty.ToString(), "");
  EXPECT_EQ(Expr::IntLiteral(42).EvaluateInt({}).value(), 42);
  EXPECT_EQ(Expr::IntLiteral(-5).EvaluateInt({}).value(), -5);
  EXPECT_EQ(Expr::IntLiteral(-5).ToString(), "-5");
  EXPECT_FALSE(Expr::IntLiteral(1).empty());
}

TEST(ExpressionTest, DeepNestingIsAnErrorNotACrash) {
  const std::string deep = std::string(500, '(') + "1" + std::string(500, ')');
  EXPECT_THAT(Message(ParseExpression(deep)), HasSubstr("nested more than"));
  const std::string ok = std::string(50, '(') + "1" + std::string(50, ')');
  EXPECT_TRUE(ParseExpression(ok).ok());
}

TEST(ExpressionTest, FloatOverflowIsAnError) {
  EXPECT_THAT(Message(Eval("1e300 * 1e300")), HasSubstr("float overflow"));
  EXPECT_THAT(Message(ParseExpression("1e999")), HasSubstr("out of range"));
}

TEST(ValueTest, FloatOfHugeValueHasNoUndefinedIntPart) {
  EXPECT_EQ(Value::Float(1e300).i, 0);
  EXPECT_EQ(Value::Float(2.9).i, 2);
  EXPECT_EQ(Value::Int(7).AsDouble(), 7.0);
}

}  // namespace
}  // namespace kjudge
