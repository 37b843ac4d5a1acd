#include "common/plan_block.h"

#include "common/launch_plan.h"
#include "test_util.h"

namespace kjudge {
namespace {

using ::kjudge::testing::Message;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(PlanBlockTest, NoBlockIsNullopt) {
  absl::StatusOr<std::optional<PlanBlock>> block =
      FindPlanBlock("#include <cuda_fp16.h>\n/* a comment */\n__global__ void k() {}\n");
  ASSERT_TRUE(block.ok()) << block.status();
  EXPECT_FALSE(block->has_value());
  EXPECT_FALSE(FindPlanBlock("").value().has_value());
}

TEST(PlanBlockTest, FindsBlockAndReportsFileLines) {
  const std::string source =
      "#include <cuda_fp16.h>\n"                                     // 1
      "__global__ void relu(const float* x, float* y, int n) {}\n"  // 2
      "/* kjudge-plan\n"                                            // 3
      "relu<<<cdiv(N, 256), 256>>>(X, Y, N);\n"                     // 4
      "*/\n";
  absl::StatusOr<std::optional<PlanBlock>> block = FindPlanBlock(source);
  ASSERT_TRUE(block.ok()) << block.status();
  ASSERT_TRUE(block->has_value());
  EXPECT_EQ((*block)->first_line, 4);
  EXPECT_EQ((*block)->text, "relu<<<cdiv(N, 256), 256>>>(X, Y, N);\n");
  absl::StatusOr<LaunchPlan> plan = ParseLaunchPlan((*block)->text, (*block)->first_line);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->launches[0].pos.line, 4);
}

TEST(PlanBlockTest, ErrorsInsideTheBlockUseFileLinesAndColumns) {
  const std::string source =
      "__global__ void k() {}\n"          // 1
      "   /* kjudge-plan  \n"             // 2
      "scratch p : f32[N];\n"             // 3
      "k<<<1, 256>>(p);\n"                // 4
      "*/\n";
  absl::StatusOr<std::optional<PlanBlock>> block = FindPlanBlock(source);
  ASSERT_TRUE(block.ok() && block->has_value());
  EXPECT_EQ(Message(ParseLaunchPlan((*block)->text, (*block)->first_line)),
            "4:11: expected '>>>' to close the launch configuration, found '>>'");
}

TEST(PlanBlockTest, PlanOnTheMarkerLineKeepsColumns) {
  const std::string source = "int x;\n/* kjudge-plan k<<<1 1>>>(X); */\n";
  absl::StatusOr<std::optional<PlanBlock>> block = FindPlanBlock(source);
  ASSERT_TRUE(block.ok() && block->has_value());
  EXPECT_EQ((*block)->first_line, 2);
  EXPECT_EQ(Message(ParseLaunchPlan((*block)->text, (*block)->first_line)),
            "2:22: expected ',' between the grid and block sizes, found number 1");
}

TEST(PlanBlockTest, IgnoresMarkersThatAreNotTheFirstToken) {
  const std::string source =
      "/* see the kjudge-plan below? no */\n"
      "// /* kjudge-plan in a line comment\n"
      "const char* s = \"/* kjudge-plan in a string */\";\n"
      "/* kjudge-planner */\n";
  absl::StatusOr<std::optional<PlanBlock>> block = FindPlanBlock(source);
  ASSERT_TRUE(block.ok()) << block.status();
  EXPECT_FALSE(block->has_value());
}

TEST(PlanBlockTest, TwoBlocksIsAnError) {
  const std::string source =
      "/* kjudge-plan\nk<<<1,1>>>(X);\n*/\n"
      "int x;\n"
      "  /* kjudge-plan\nk<<<1,1>>>(X);\n*/\n";
  absl::StatusOr<std::optional<PlanBlock>> block = FindPlanBlock(source);
  ASSERT_FALSE(block.ok());
  EXPECT_EQ(block.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(block), StartsWith("5:3: a second '/* kjudge-plan' block"));
  EXPECT_THAT(Message(block), HasSubstr("the first starts on line 1"));
}

TEST(PlanBlockTest, UnclosedBlockNamesItsStartLine) {
  const std::string source = "int x;\n\n/* kjudge-plan\nk<<<1,1>>>(X);\n";
  absl::StatusOr<std::optional<PlanBlock>> block = FindPlanBlock(source);
  ASSERT_FALSE(block.ok());
  EXPECT_THAT(Message(block), StartsWith("3:1: the '/* kjudge-plan' block starting on line 3"));
  EXPECT_THAT(Message(block), HasSubstr("expected '*/'"));
}

TEST(PlanBlockTest, UnclosedOrdinaryCommentIsNotOurs) {
  absl::StatusOr<std::optional<PlanBlock>> block = FindPlanBlock("int x; /* never closed");
  ASSERT_TRUE(block.ok());
  EXPECT_FALSE(block->has_value());
}

}  // namespace
}  // namespace kjudge
