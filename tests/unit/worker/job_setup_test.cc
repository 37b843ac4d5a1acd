#include "worker/gpu/job_setup.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/unit/worker/test_problem.h"
#include "worker/gpu/runner_error.h"

namespace kjudge::runner {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(JobSetup, PlanFromSourceBlockAndNameExpressions) {
  absl::StatusOr<JobSetup> setup = SetUpJob(testing::ReluRunSpec(testing::kReluCandidate, true));
  ASSERT_TRUE(setup.ok()) << setup.status();
  EXPECT_EQ(setup->program_name, "solution.cu");
  EXPECT_THAT(setup->candidate_names, ElementsAre("relu<256>"));
  EXPECT_THAT(setup->reference_names, ElementsAre("relu_ref"));
  ASSERT_EQ(setup->candidate_plan.launches.size(), 1U);
  EXPECT_EQ(setup->candidate_plan.launches[0].pos.line, 3);
}

TEST(JobSetup, PlanParseErrorIsRejectedWithLineAndColumn) {
  v1::RunSpec spec = testing::ReluRunSpec("__global__ void k() {}", true);
  spec.set_launch_plan("k<<<1, 32>>>(X, Y)");  // missing ';'
  spec.set_plan_first_line(10);
  absl::StatusOr<JobSetup> setup = SetUpJob(spec);
  ASSERT_FALSE(setup.ok());
  const ErrorInfo info = DescribeError(setup.status());
  EXPECT_EQ(info.verdict, v1::REJECTED);
  EXPECT_THAT(info.message, StartsWith("solution.cu:10:"));
}

TEST(JobSetup, UnknownNameInPlanIsRejected) {
  v1::RunSpec spec = testing::ReluRunSpec("__global__ void k() {}", true);
  spec.set_launch_plan("k<<<1, 32>>>(X, Z);");
  const ErrorInfo info = DescribeError(SetUpJob(spec).status());
  EXPECT_EQ(info.verdict, v1::REJECTED);
  EXPECT_THAT(info.message, HasSubstr("Z"));
}

TEST(JobSetup, MissingPlanIsRejected) {
  const ErrorInfo info =
      DescribeError(SetUpJob(testing::ReluRunSpec("__global__ void k() {}", true)).status());
  EXPECT_EQ(info.verdict, v1::REJECTED);
  EXPECT_THAT(info.message, HasSubstr("no launch plan"));
}

TEST(JobSetup, BadSpecIsInternal) {
  v1::RunSpec spec = testing::ReluRunSpec(testing::kReluCandidate, true);
  spec.set_spec_toml("name = 3");
  EXPECT_EQ(DescribeError(SetUpJob(spec).status()).verdict, v1::INTERNAL_ERROR);
}

}  // namespace
}  // namespace kjudge::runner
