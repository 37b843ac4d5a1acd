// NVRTC needs no GPU: these run in CI.
#include "worker/gpu/nvrtc_compiler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "worker/judge/device_utilities.h"

namespace kjudge::runner {
namespace {

using ::testing::HasSubstr;

CompileOutcome Compile(const std::string& source, std::vector<std::string> names) {
  CompileRequest request;
  request.source = source;
  request.program_name = "solution.cu";
  request.arch = "sm_90a";
  request.name_expressions = std::move(names);
  absl::StatusOr<CompileOutcome> outcome = CompileWithNvrtc(request);
  EXPECT_TRUE(outcome.ok()) << outcome.status();
  return outcome.ok() ? *outcome : CompileOutcome{};
}

TEST(NvrtcCompiler, OptionsHaveArchAndNoO3) {
  const std::vector<std::string> options = NvrtcOptions("sm_90a");
  EXPECT_THAT(options, ::testing::Contains("--gpu-architecture=sm_90a"));
  EXPECT_THAT(options, ::testing::Contains("-std=c++17"));
  EXPECT_THAT(options, ::testing::Contains("-lineinfo"));
  EXPECT_THAT(options, ::testing::Not(::testing::Contains("-O3")));
}

TEST(NvrtcCompiler, TemplateKernelLoweredNames) {
  const CompileOutcome out = Compile(R"(
template <int B, typename T>
__global__ void scale(T* x, long long n) { long long i = blockIdx.x * B + threadIdx.x; if (i < n) x[i] *= 2; }
extern "C" __global__ void plain(float* x) { x[0] = 1.0f; }
)",
                                     {"scale<128, float>", "scale<256, float>", "plain"});
  ASSERT_TRUE(out.success) << out.log;
  EXPECT_FALSE(out.program.cubin.empty());
  EXPECT_EQ(out.program.lowered_names.at("plain"), "plain");
  EXPECT_THAT(out.program.lowered_names.at("scale<128, float>"), HasSubstr("scale"));
  EXPECT_NE(out.program.lowered_names.at("scale<128, float>"),
            out.program.lowered_names.at("scale<256, float>"));
  EXPECT_GT(out.compile_ms, 0.0);
}

TEST(NvrtcCompiler, WgmmaNeedsSm90aAndCompiles) {
  const CompileOutcome out = Compile(R"(
__global__ void fence() { asm volatile("wgmma.fence.sync.aligned;"); }
)",
                                     {"fence"});
  EXPECT_TRUE(out.success) << out.log;
}

TEST(NvrtcCompiler, HeadersAreAvailable) {
  const CompileOutcome out = Compile(R"(
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(__half* h, __nv_bfloat16* b, __nv_fp8_e4m3* f) {
  cg::thread_block block = cg::this_thread_block();
  block.sync();
  h[0] = __float2half(1.0f); b[0] = __float2bfloat16(2.0f); f[0] = __nv_fp8_e4m3(3.0f);
}
)",
                                     {"k"});
  EXPECT_TRUE(out.success) << out.log;
}

TEST(NvrtcCompiler, BrokenKernelLogHasFileAndLine) {
  const CompileOutcome out = Compile("// line 1\n__global__ void k(float* x) {\n  x[0] = ;\n}\n",
                                     {"k"});
  EXPECT_FALSE(out.success);
  EXPECT_THAT(out.log, HasSubstr("solution.cu(3): error"));
  EXPECT_THAT(out.message, HasSubstr("solution.cu(3): error"));
  EXPECT_TRUE(out.program.cubin.empty());
}

TEST(NvrtcCompiler, MissingPlanKernelIsNamed) {
  const CompileOutcome out = Compile("__global__ void k(float* x) {}\n", {"k", "row_finish<256>"});
  EXPECT_FALSE(out.success);
  EXPECT_THAT(out.message, HasSubstr("kernel `row_finish<256>` named by the launch plan was not "
                                     "found in solution.cu"));
}

TEST(NvrtcCompiler, UtilityKernelsCompile) {
  const CompileOutcome out =
      Compile(std::string(DeviceUtilities::Source()), DeviceUtilities::KernelNames());
  EXPECT_TRUE(out.success) << out.log;
  EXPECT_EQ(out.program.lowered_names.size(), DeviceUtilities::KernelNames().size());
}

}  // namespace
}  // namespace kjudge::runner
