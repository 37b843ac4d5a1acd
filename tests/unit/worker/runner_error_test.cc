#include "worker/gpu/runner_error.h"

#include <gtest/gtest.h>

namespace kjudge::runner {
namespace {

TEST(RunnerError, VerdictAndCudaErrorSurviveContext) {
  const absl::Status s = WithContext(
      MakeRunnerError(v1::RUNTIME_ERROR, "launch 1 failed", "cudaErrorIllegalAddress: x", true),
      "test shape M=1");
  const ErrorInfo info = DescribeError(s);
  EXPECT_EQ(info.verdict, v1::RUNTIME_ERROR);
  EXPECT_EQ(info.message, "test shape M=1: launch 1 failed");
  EXPECT_EQ(info.cuda_error, "cudaErrorIllegalAddress: x");
  EXPECT_TRUE(info.sticky);
}

TEST(RunnerError, UntaggedIsInternal) {
  const ErrorInfo info = DescribeError(absl::InternalError("boom"));
  EXPECT_EQ(info.verdict, v1::INTERNAL_ERROR);
  EXPECT_FALSE(info.sticky);
}

TEST(RunnerError, StickyClassification) {
  EXPECT_TRUE(IsStickyCudaError(cudaErrorIllegalAddress));
  EXPECT_TRUE(IsStickyCudaError(cudaErrorLaunchFailure));
  EXPECT_TRUE(IsStickyCudaError(cudaErrorMisalignedAddress));
  EXPECT_TRUE(IsStickyCudaError(cudaErrorAssert));
  EXPECT_FALSE(IsStickyCudaError(cudaErrorInvalidConfiguration));
  EXPECT_FALSE(IsStickyCudaError(cudaErrorLaunchOutOfResources));
  const ErrorInfo launch =
      DescribeError(CudaStatus(cudaErrorInvalidConfiguration, "launch", v1::LAUNCH_ERROR));
  EXPECT_EQ(launch.verdict, v1::LAUNCH_ERROR);
  EXPECT_FALSE(launch.sticky);
  const ErrorInfo fault = DescribeError(CudaStatus(cudaErrorIllegalAddress, "sync"));
  EXPECT_EQ(fault.verdict, v1::RUNTIME_ERROR);
  EXPECT_TRUE(fault.sticky);
  EXPECT_NE(fault.cuda_error.find("cudaErrorIllegalAddress"), std::string::npos);
  EXPECT_TRUE(DescribeError(SyncStatus(cudaErrorInvalidValue, "sync")).sticky);
}

}  // namespace
}  // namespace kjudge::runner
