// Checked size arithmetic before any allocation: a plan or spec whose sizes overflow int64,
// divide by zero or go negative is rejected with its line:column, naming what went wrong, at
// validation time (server intake and the runner's job setup), never wrapped into a tiny buffer.
#include "common/byte_size.h"
#include "common/launch_plan.h"
#include "common/problem_spec.h"
#include "spec_fixture.h"
#include "test_util.h"

namespace kjudge {
namespace {

using ::kjudge::testing::kValidSpec;
using ::kjudge::testing::Message;
using ::kjudge::testing::SpecWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// The fixture: sizes M, N; test shapes M=1,N=1 and M=3,N=37; bench M=4096,N=393216.
ProblemSpec Spec() {
  absl::StatusOr<ProblemSpec> spec = ParseProblemSpec(kValidSpec, "p.toml");
  EXPECT_TRUE(spec.ok()) << spec.status();
  return spec.ok() ? *spec : ProblemSpec{};
}

absl::Status Validate(std::string_view plan_text) {
  absl::StatusOr<LaunchPlan> plan = ParseLaunchPlan(plan_text);
  if (!plan.ok()) return plan.status();
  return ValidatePlanAgainstSpec(*plan, Spec());
}

TEST(CheckedBufferBytes, MultipliesByTheDtypeSizeWithHeadroom) {
  EXPECT_EQ(*CheckedBufferBytes(1000, DType::kF32), 4000);
  EXPECT_EQ(*CheckedBufferBytes(0, DType::kF64), 0);
  // 2^62 floats are 2^64 bytes: 0 in 64-bit arithmetic, so it must be an error, not 0.
  absl::StatusOr<int64_t> wrapped = CheckedBufferBytes(int64_t{1} << 62, DType::kF32);
  EXPECT_THAT(Message(wrapped), StartsWith("size overflow: 4611686018427387904 elements x 4 bytes (f32)"));
  // Fits in int64 but not with the headroom the guards need.
  EXPECT_FALSE(CheckedBufferBytes(INT64_MAX - 10, DType::kU8).ok());
  EXPECT_THAT(Message(CheckedBufferBytes(-1, DType::kF32)), StartsWith("negative size"));
  EXPECT_THAT(Message(CheckedAddBytes(INT64_MAX / 2, INT64_MAX / 2)), StartsWith("size overflow"));
  EXPECT_EQ(*CheckedAddBytes(3, 4), 7);
}

TEST(PlanSizes, ValidPlanPasses) {
  EXPECT_TRUE(Validate("scratch p : f32[cdiv(N, 1024) * M];\n"
                       "k<<<dim3(cdiv(N, 1024), M), 256, 1024>>>(X, p, M * N);")
                  .ok());
}

TEST(PlanSizes, TwoToTheSixtyTwoFloatsOfScratchIsRejected) {
  const absl::Status st = Validate("k<<<1, 1>>>(X, Y, M);\nscratch big : f32[4611686018427387904];");
  EXPECT_THAT(Message(st), StartsWith("2:19: element count of scratch buffer 'big' "
                                      "'4611686018427387904': size overflow: "
                                      "4611686018427387904 elements x 4 bytes (f32)"));
  EXPECT_THAT(Message(st), HasSubstr("(at M=1,N=1)"));
  // 2^61 f64 (2^64 bytes) too; and the sum of two buffers that each fit.
  EXPECT_THAT(Message(Validate("scratch d : f64[2305843009213693952];\nk<<<1, 1>>>(X, Y, M);")),
              StartsWith("1:17: element count of scratch buffer 'd'"));
  EXPECT_THAT(Message(Validate("scratch a : u8[0x6000000000000000];\n"
                               "scratch b : u8[0x6000000000000000];\nk<<<1, 1>>>(X, a, b);")),
              AllOf(StartsWith("2:16: "), HasSubstr("scratch buffers together: size overflow")));
}

TEST(PlanSizes, ProductOverflowIsRejectedWithItsOperator) {
  // Fine at the test shapes, overflows at the bench shape (4096 * 393216 * 2^40 > 2^63).
  const absl::Status st =
      Validate("scratch s : f32[M * N * 1099511627776];\nk<<<1, 1>>>(X, s, M);");
  EXPECT_THAT(Message(st), StartsWith("1:23: integer overflow ("));
  EXPECT_THAT(Message(st), HasSubstr("does not fit in 64 bits) in 'M * N * 1099511627776'"));
  EXPECT_THAT(Message(st), HasSubstr("(at M=4096,N=393216)"));
  // In a scalar argument, too.
  EXPECT_THAT(Message(Validate("k<<<1, 1>>>(X, Y, M * N * 1099511627776);")),
              StartsWith("1:25: integer overflow"));
}

TEST(PlanSizes, CdivByZeroIsRejected) {
  EXPECT_THAT(Message(Validate("k<<<cdiv(N, M - M), 256>>>(X, Y, M);")),
              StartsWith("1:5: division by zero in 'cdiv(N, M - M)' (at M=1,N=1)"));
  EXPECT_THAT(Message(Validate("k<<<1, 32, N % (M - 1)>>>(X, Y, M);")),
              StartsWith("1:14: division by zero"));
}

TEST(PlanSizes, NegativeSizesAreRejected) {
  EXPECT_THAT(Message(Validate("scratch s : f32[M - 2];\nk<<<1, 1>>>(X, s, M);")),
              StartsWith("1:17: element count of scratch buffer 's' 'M - 2': negative size -1; "
                         "expected >= 0 (at M=1,N=1)"));
  EXPECT_THAT(Message(Validate("k<<<1, 32, 0 - N>>>(X, Y, M);")),
              StartsWith("1:12: shared memory size of 'k' '0 - N': negative size -1"));
  EXPECT_THAT(Message(Validate("k<<<M - 3, 32>>>(X, Y, M);")),
              StartsWith("1:5: grid size of 'k' 'M - 3': negative size -2"));
}

TEST(PlanSizes, GridOverflowIsRejected) {
  const absl::Status st =
      Validate("k<<<dim3(4294967296, 4294967296, N), 256>>>(X, Y, M);");
  EXPECT_THAT(Message(st), StartsWith("1:22: grid size of 'k' '4294967296': integer overflow: the product "
                                      "of the dimensions does not fit in 64 bits"));
  EXPECT_THAT(Message(Validate("k<<<1, dim3(N * 4294967296, 4294967296)>>>(X, Y, M);")),
              HasSubstr("block size of 'k'"));
}

TEST(PlanSizes, TemplateArgumentsEvaluate) {
  EXPECT_THAT(Message(Validate("k<N / (M - 1)><<<1, 1>>>(X, Y, M);")),
              StartsWith("1:5: division by zero"));
}

// Problem specs: the same checks on tensor shapes, with the TOML file's line:column.
TEST(SpecSizes, TensorShapeOverflowIsRejected) {
  // 393216 * 2^44 = 1.5 * 2^62 elements fit in int64; x 4 bytes do not.
  absl::StatusOr<ProblemSpec> spec = ParseProblemSpec(
      SpecWith(R"(shape = ["M", "N"])", R"(shape = ["N", "17592186044416"])"), "p.toml");
  EXPECT_THAT(Message(spec), StartsWith("p.toml:14:16: tensor[0].shape at M=4096,N=393216: size "
                                        "overflow: 6917529027641081856 elements x 4 bytes (f32)"));
  spec = ParseProblemSpec(SpecWith(R"(shape = ["M", "N"])", R"(shape = ["M", "N * 0x1000000000000"])"),
                          "p.toml");
  EXPECT_THAT(Message(spec), StartsWith("p.toml:14:"));
  EXPECT_THAT(Message(spec), HasSubstr("overflow"));
}

TEST(SpecSizes, NegativeTensorShapeIsRejected) {
  absl::StatusOr<ProblemSpec> spec =
      ParseProblemSpec(SpecWith(R"(shape = ["M", "N"])", R"(shape = ["M - 2", "N"])"), "p.toml");
  EXPECT_THAT(Message(spec), StartsWith("p.toml:14:11: tensor[0].shape at M=1,N=1: negative size"));
}

TEST(SpecSizes, ReferencePlanSizesAreCheckedToo) {
  absl::StatusOr<ProblemSpec> spec = ParseProblemSpec(
      SpecWith("scratch partial : f32[cdiv(N, 1024) * M];",
               "scratch partial : f32[cdiv(N, 1024) * M * 0x4000000000000000];"),
      "p.toml");
  EXPECT_THAT(Message(spec), StartsWith("p.toml:"));
  EXPECT_THAT(Message(spec), HasSubstr("reference.plan"));
  EXPECT_THAT(Message(spec), HasSubstr("overflow"));
}

}  // namespace
}  // namespace kjudge
