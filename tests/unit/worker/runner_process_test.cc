// Spawns the real kjudge-runner binary with --compile-only (no GPU needed) and speaks the
// worker's line protocol to it: Hello first, then Progress lines and one Result per request.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include <google/protobuf/util/json_util.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kjudge/v1/runner.pb.h"
#include "tests/unit/worker/runner_spawn.h"
#include "tests/unit/worker/test_problem.h"
#include "worker/judge/runner_io.h"

namespace kjudge::runner {
namespace {

using ::testing::HasSubstr;
using testing::RequestLine;
using testing::Results;
using testing::RunOutcome;
using testing::RunRunner;

// The oracle's flags are part of the command line; with --no-oracle nothing is started.
TEST(RunnerProcess, OracleFlagsAreAccepted) {
  const RunOutcome o = RunRunner({"--compile-only", "--no-oracle", "--oracle-python",
                                  "/usr/bin/python3", "--oracle-timeout-ms", "5000"},
                                 "");
  EXPECT_EQ(o.exit_status, 0);
  ASSERT_GE(o.messages.size(), 1U);
  ASSERT_TRUE(o.messages[0].has_hello());
  EXPECT_EQ(o.messages[0].hello().gpu().torch_version(), "");
}

TEST(RunnerProcess, CompileOnlyHelloAndResult) {
  const RunOutcome o = RunRunner({"--compile-only", "--arch", "sm_90a"},
                                 RequestLine(testing::ReluRunSpec(testing::kReluCandidate, true)));
  EXPECT_EQ(o.exit_status, 0);
  ASSERT_GE(o.messages.size(), 2U);
  ASSERT_TRUE(o.messages[0].has_hello());
  EXPECT_TRUE(o.messages[0].hello().gpu().compile_only());
  EXPECT_EQ(o.messages[0].hello().gpu().arch(), "sm_90a");
  EXPECT_THAT(o.messages[0].hello().error(), HasSubstr("--compile-only"));
  EXPECT_EQ(o.messages[0].hello().gpu().torch_version(), "");  // no oracle when compile-only
  EXPECT_TRUE(o.messages[1].has_progress());
  EXPECT_EQ(o.messages[1].progress().stage(), v1::STAGE_COMPILING);
  const std::vector<v1::JobResult> results = Results(o);
  ASSERT_EQ(results.size(), 1U);
  EXPECT_EQ(results[0].verdict(), v1::COMPILED) << results[0].message();
  EXPECT_EQ(results[0].seed(), 42U);
  EXPECT_GT(results[0].compile_ms(), 0.0);
  EXPECT_TRUE(o.messages.back().has_result());
}

TEST(RunnerProcess, ServesManyRequestsAndSurvivesBadOnes) {
  v1::RunSpec broken = testing::ReluRunSpec("__global__ void relu() {\n  int x = ;\n}\n", true);
  broken.set_launch_plan("relu<<<1, 32>>>(X, Y, M * N);");
  v1::RunSpec bad_plan = testing::ReluRunSpec("__global__ void relu() {}\n", true);
  bad_plan.set_launch_plan("relu<<<1, 32>>>(X, Y, M * N)");
  const std::string input = RequestLine(broken) + "{not json\n" + RequestLine(bad_plan) +
                            RequestLine(testing::ReluRunSpec(testing::kReluCandidate, false));
  const RunOutcome o = RunRunner({"--compile-only"}, input);
  EXPECT_EQ(o.exit_status, 0);
  const std::vector<v1::JobResult> results = Results(o);
  ASSERT_EQ(results.size(), 4U);
  EXPECT_EQ(results[0].verdict(), v1::COMPILE_ERROR);
  EXPECT_THAT(results[0].compile_log(), HasSubstr("solution.cu(2): error"));
  EXPECT_EQ(results[1].verdict(), v1::REJECTED);
  EXPECT_EQ(results[2].verdict(), v1::REJECTED);
  EXPECT_THAT(results[2].message(), HasSubstr("solution.cu:1:"));
  // A full job on a runner without a GPU is compiled only.
  EXPECT_EQ(results[3].verdict(), v1::COMPILED);
}

TEST(RunnerProcess, BadCommandLineFails) {
  const RunOutcome o = RunRunner({"--no-such-flag"}, "");
  EXPECT_NE(o.exit_status, 0);
}

}  // namespace
}  // namespace kjudge::runner
