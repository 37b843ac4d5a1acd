#include "common/launch_plan.h"

#include "test_util.h"

namespace kjudge {
namespace {

using ::kjudge::testing::Message;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr std::string_view kSpecExample =
    "scratch partial : f32[cdiv(N, 1024) * M];\n"
    "row_partial<<<dim3(cdiv(N, 1024), M), 256>>>(X, partial, M, N);\n"
    "row_finish<256><<<M, 256, 0>>>(partial, Y, M, cdiv(N, 1024));\n";

const Bindings kSizes = {{"M", Value::Int(4)}, {"N", Value::Int(5000)}};

int64_t Int(const Expr& e, const Bindings& b = kSizes) {
  absl::StatusOr<int64_t> v = e.EvaluateInt(b);
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : -999;
}

TEST(LaunchPlanTest, ParsesTheSpecExample) {
  absl::StatusOr<LaunchPlan> plan = ParseLaunchPlan(kSpecExample);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->text, kSpecExample);
  EXPECT_EQ(plan->first_line, 1);

  ASSERT_EQ(plan->scratch.size(), 1u);
  EXPECT_EQ(plan->scratch[0].name, "partial");
  EXPECT_EQ(plan->scratch[0].dtype, DType::kF32);
  EXPECT_EQ(plan->scratch[0].count.ToString(), "cdiv(N, 1024) * M");
  EXPECT_EQ(Int(plan->scratch[0].count), 20);
  EXPECT_EQ(plan->scratch[0].pos.line, 1);
  EXPECT_EQ(plan->scratch[0].pos.column, 1);

  ASSERT_EQ(plan->launches.size(), 2u);
  const Launch& partial = plan->launches[0];
  EXPECT_EQ(partial.kernel, "row_partial");
  EXPECT_TRUE(partial.template_args.empty());
  EXPECT_EQ(Int(partial.grid.x), 5);
  EXPECT_EQ(Int(partial.grid.y), 4);
  EXPECT_EQ(Int(partial.grid.z), 1);
  EXPECT_EQ(Int(partial.block.x), 256);
  EXPECT_EQ(Int(partial.block.y), 1);
  EXPECT_EQ(Int(partial.block.z), 1);
  EXPECT_EQ(Int(partial.shared_bytes), 0);
  ASSERT_EQ(partial.args.size(), 4u);
  EXPECT_EQ(partial.args[0].Identifier(), "X");
  EXPECT_EQ(partial.args[1].Identifier(), "partial");
  EXPECT_EQ(partial.pos.line, 2);
  EXPECT_EQ(partial.pos.column, 1);
  EXPECT_EQ(partial.NameExpression(kSizes).value(), "row_partial");

  const Launch& finish = plan->launches[1];
  EXPECT_EQ(finish.kernel, "row_finish");
  ASSERT_EQ(finish.template_args.size(), 1u);
  EXPECT_FALSE(finish.template_args[0].is_type);
  EXPECT_EQ(finish.NameExpression(kSizes).value(), "row_finish<256>");
  EXPECT_EQ(Int(finish.grid.x), 4);
  EXPECT_EQ(Int(finish.shared_bytes), 0);
  ASSERT_EQ(finish.args.size(), 4u);
  EXPECT_FALSE(finish.args[3].IsIdentifier());
  EXPECT_EQ(Int(finish.args[3]), 5);
}

TEST(LaunchPlanTest, TemplateArguments) {
  absl::StatusOr<LaunchPlan> plan = ParseLaunchPlan(
      "k<float, 4><<<1, 32>>>(X);\n"
      "k<BLOCK * 2><<<1, 32>>>(X);\n"
      "k<__half, cdiv(N, 1024), unsigned int><<<1, 32>>>(X);\n"
      "k<cute::half_t>  <<<1, 32>>>(X);\n");
  ASSERT_TRUE(plan.ok()) << plan.status();
  const Bindings b = {{"BLOCK", Value::Int(128)}, {"N", Value::Int(5000)}};
  EXPECT_EQ(plan->launches[0].NameExpression(b).value(), "k<float, 4>");
  EXPECT_TRUE(plan->launches[0].template_args[0].is_type);
  EXPECT_EQ(plan->launches[0].template_args[0].type_name, "float");
  EXPECT_EQ(plan->launches[1].NameExpression(b).value(), "k<256>");
  EXPECT_EQ(plan->launches[2].NameExpression(b).value(), "k<__half, 5, unsigned int>");
  EXPECT_EQ(plan->launches[3].NameExpression(b).value(), "k<cute::half_t>");
  // An unbound size in a template argument is reported by NameExpression.
  EXPECT_THAT(Message(plan->launches[1].NameExpression({})), HasSubstr("unknown name 'BLOCK'"));
  // A float template argument is not an integer.
  absl::StatusOr<LaunchPlan> f = ParseLaunchPlan("k<1.5><<<1, 1>>>(X);");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_THAT(Message(f->launches[0].NameExpression({})), HasSubstr("expected an integer"));
}

TEST(LaunchPlanTest, SharedMemoryAboveFortyEightKilobytes) {
  absl::StatusOr<LaunchPlan> plan =
      ParseLaunchPlan("gemm<<<dim3(cdiv(N, 128), cdiv(M, 128)), dim3(128, 2), 2 * 98304>>>(A, B, C);");
  ASSERT_TRUE(plan.ok()) << plan.status();
  const Launch& l = plan->launches[0];
  EXPECT_EQ(Int(l.shared_bytes), 196608);
  EXPECT_EQ(Int(l.grid.x), 40);
  EXPECT_EQ(Int(l.grid.y), 1);
  EXPECT_EQ(Int(l.block.x), 128);
  EXPECT_EQ(Int(l.block.y), 2);
  EXPECT_EQ(Int(l.block.z), 1);
}

TEST(LaunchPlanTest, Dim3WithThreeComponents) {
  absl::StatusOr<LaunchPlan> plan = ParseLaunchPlan("k<<<dim3(1, 2, 3), dim3(32)>>>(X);");
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(Int(plan->launches[0].grid.z), 3);
  EXPECT_EQ(Int(plan->launches[0].block.x), 32);
  EXPECT_EQ(Int(plan->launches[0].block.y), 1);
  EXPECT_THAT(Message(ParseLaunchPlan("k<<<dim3(1, 2, 3, 4), 1>>>(X);")),
              StartsWith("1:19: expected ')' after at most 3 dim3 components, found number 4"));
}

TEST(LaunchPlanTest, CommentsAndLayout) {
  absl::StatusOr<LaunchPlan> plan = ParseLaunchPlan(
      "// leading comment\n"
      "/* block\n comment */ relu<<<cdiv(M * N, 256), // grid\n"
      "   256>>>(X, Y,\n M * N);  // trailing\n");
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->launches.size(), 1u);
  EXPECT_EQ(plan->launches[0].pos.line, 3);
  EXPECT_EQ(plan->launches[0].pos.column, 13);
  EXPECT_EQ(plan->launches[0].args.size(), 3u);
}

TEST(LaunchPlanTest, ScalarAndEmptyArguments) {
  absl::StatusOr<LaunchPlan> plan = ParseLaunchPlan("init<<<1, 1>>>();\nk<<<1, 1>>>(X, 0.01f, -1);");
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->launches[0].args.empty());
  EXPECT_EQ(plan->launches[1].args[1].ToString(), "0.01f");
  EXPECT_EQ(Int(plan->launches[1].args[2]), -1);
}

TEST(LaunchPlanTest, ErrorsPointAtLineAndColumn) {
  EXPECT_EQ(Message(ParseLaunchPlan("\n\nrelu<<<M, 256>>(X, Y);")),
            "3:14: expected '>>>' to close the launch configuration, found '>>'");
  EXPECT_EQ(Message(ParseLaunchPlan("relu<<<M>>>(X);")),
            "1:9: expected ',' between the grid and block sizes, found '>>>'");
  EXPECT_EQ(Message(ParseLaunchPlan("relu<<M, 1>>>(X);")),
            "1:5: expected '<<<' to open the launch configuration, found '<<'");
  EXPECT_EQ(Message(ParseLaunchPlan("relu<<<1, 1>>>(X, Y;")),
            "1:20: expected ')' to close the kernel arguments, found ';'");
  EXPECT_EQ(Message(ParseLaunchPlan("relu<<<1, 1>>>(X) relu")),
            "1:19: expected ';' to end the kernel launch, found identifier 'relu'");
  EXPECT_EQ(Message(ParseLaunchPlan("k<256<<<1, 1>>>(X);")),
            "1:6: expected '>' to close the template arguments, found '<<<'");
  EXPECT_EQ(Message(ParseLaunchPlan("k<<<1, 1, 0, stream>>>(X);")),
            "1:12: CUDA streams are not supported; expected '>>>' after the dynamic shared memory size");
  EXPECT_EQ(Message(ParseLaunchPlan("relu<<<1, 1>>>(X, @);")),
            "1:19: unexpected character '@'; expected a name, a number or an operator");
}

TEST(LaunchPlanTest, MissingSemicolonAtEndPointsAtEnd) {
  // The error points just past the last token, not at trailing whitespace.
  EXPECT_EQ(Message(ParseLaunchPlan("relu<<<1, 256>>>(X, Y)\n\n  ")),
            "1:23: expected ';' to end the kernel launch, found end of input");
  EXPECT_EQ(Message(ParseLaunchPlan("scratch t : f32[N]\nk<<<1, 1>>>(t);")),
            "2:1: expected ';' to end the scratch declaration, found identifier 'k'");
  EXPECT_EQ(Message(ParseLaunchPlan("scratch t : f32[N]")),
            "1:19: expected ';' to end the scratch declaration, found end of input");
}

TEST(LaunchPlanTest, ScratchErrors) {
  EXPECT_EQ(Message(ParseLaunchPlan("scratch t : float[N];\nk<<<1, 1>>>(t);")),
            "1:13: unknown dtype 'float'; expected one of f32, f16, bf16, f64, i32, i64, u8, i8, "
            "fp8_e4m3, fp8_e5m2");
  EXPECT_EQ(Message(ParseLaunchPlan("scratch t f32[N];")),
            "1:11: expected ':' after the scratch buffer name, found identifier 'f32'");
  EXPECT_EQ(Message(ParseLaunchPlan("scratch t : f32[N];\nscratch t : i32[M];\nk<<<1,1>>>(t);")),
            "2:9: scratch buffer 't' is already declared at 1:9; expected a new name");
  EXPECT_EQ(Message(ParseLaunchPlan("scratch t : f32(N);")),
            "1:16: expected '[' before the element count, found '('");
}

TEST(LaunchPlanTest, PlanWithoutLaunchIsAnError) {
  EXPECT_THAT(Message(ParseLaunchPlan("")), HasSubstr("has no kernel launch"));
  EXPECT_THAT(Message(ParseLaunchPlan("// only a comment\n")), HasSubstr("has no kernel launch"));
  EXPECT_THAT(Message(ParseLaunchPlan("scratch t : f32[4];")), HasSubstr("has no kernel launch"));
}

TEST(LaunchPlanTest, FirstLineOffsetsPositions) {
  absl::StatusOr<LaunchPlan> plan = ParseLaunchPlan("\n  relu<<<1, 1>>>(X);", 41);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->first_line, 41);
  EXPECT_EQ(plan->launches[0].pos.line, 42);
  EXPECT_EQ(plan->launches[0].pos.column, 3);
  EXPECT_EQ(Message(ParseLaunchPlan("relu<<<1, 1>>>(X);\nrelu<<<1 1>>>(X);", 10)),
            "11:10: expected ',' between the grid and block sizes, found number 1");
  // A start column applies to the first line only.
  EXPECT_EQ(Message(ParseLaunchPlan("relu<<<1 1>>>(X);", SourcePos{5, 20})),
            "5:29: expected ',' between the grid and block sizes, found number 1");
}

TEST(LaunchPlanTest, KernelNamedScratch) {
  absl::StatusOr<LaunchPlan> plan = ParseLaunchPlan("scratch<<<1, 1>>>(X);");
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->launches[0].kernel, "scratch");
  EXPECT_TRUE(plan->scratch.empty());
}

}  // namespace
}  // namespace kjudge
