// Ceilings and the physical floor (no GPU needed), and the NVML clock monitor's failure path.
#include "worker/judge/ceilings.h"

#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tests/unit/worker/test_problem.h"
#include "worker/gpu/clock_monitor.h"

namespace kjudge::runner {
namespace {

Shape ShapeOf(int64_t m, int64_t n) {
  Shape s;
  s.sizes = {{"M", m}, {"N", n}};
  s.order = {"M", "N"};
  return s;
}

// Every rate the same: the floor does not depend on which one is picked.
Ceilings Uniform(double copy_gbs, double tflops) {
  return Ceilings{copy_gbs, tflops, tflops, tflops, tflops};
}

// Distinct rates, so the pick is visible: SGEMM 50, TF32 400, FP16 800, BF16 700 TFLOP/s.
Ceilings Hopperish() { return Ceilings{4000.0, 50.0, 400.0, 800.0, 700.0}; }

absl::StatusOr<ProblemSpec> ReluWithDtypes(const std::string& x, const std::string& y) {
  std::string toml = testing::kReluSpec;
  const std::vector<std::pair<std::string, std::string>> dtypes = {{"X", x}, {"Y", y}};
  for (const auto& [name, dtype] : dtypes) {
    const std::string from = "name = \"" + name + "\"\ndtype = \"f32\"";
    const size_t at = toml.find(from);
    if (at == std::string::npos) return absl::InternalError("test spec changed");
    toml.replace(at, from.size(), "name = \"" + name + "\"\ndtype = \"" + dtype + "\"");
  }
  return ParseProblemSpec(toml, "relu_" + x + "_" + y + ".toml");
}

TEST(Ceilings, FloorIsTheSlowerOfComputeAndMemory) {
  absl::StatusOr<ProblemSpec> spec = ParseProblemSpec(testing::kReluSpec, "relu.toml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  // ReLU at 1000 x 1000: 8e6 bytes at 1000 GB/s = 8 us; 1e6 flops at 1 TFLOP/s = 1 us.
  EXPECT_NEAR(FloorUs(*spec, ShapeOf(1000, 1000), Uniform(1000.0, 1.0)), 8.0, 1e-9);
  // A slow ALU makes compute the bound: 1e6 flops at 0.01 TFLOP/s = 100 us.
  EXPECT_NEAR(FloorUs(*spec, ShapeOf(1000, 1000), Uniform(1000.0, 0.01)), 100.0, 1e-9);
  // Unknown ceilings: no floor.
  EXPECT_EQ(FloorUs(*spec, ShapeOf(1000, 1000), Ceilings{}), 0.0);
  EXPECT_NEAR(FloorUs(*spec, ShapeOf(1000, 1000), Uniform(0.0, 1.0)), 1.0, 1e-9);
  const PhysicalFloor f = FloorOf(*spec, ShapeOf(1000, 1000), Uniform(1000.0, 0.01));
  EXPECT_NEAR(f.memory_us, 8.0, 1e-9);
  EXPECT_NEAR(f.compute_us, 100.0, 1e-9);
}

TEST(Ceilings, F32IsHeldToTheFasterOfSgemmAndTf32) {
  absl::StatusOr<ProblemSpec> spec = ParseProblemSpec(testing::kReluSpec, "relu.toml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  spec->tolerance.rel_l2 = kTf32MinRelL2;  // loose enough for 1xTF32 (see the split test)
  // 1e12 flops (1e6 x 1e6 ReLU) at 400 TFLOP/s (TF32, not SGEMM's 50) = 2.5 ms.
  const PhysicalFloor f = FloorOf(*spec, ShapeOf(1000000, 1000000), Hopperish());
  EXPECT_EQ(f.rate.name, "TF32 tensor-core GEMM");
  EXPECT_EQ(f.rate.tflops, 400.0);
  EXPECT_NEAR(f.compute_us, 2500.0, 1e-6);
  // On a GPU where SGEMM were the faster, SGEMM.
  const ComputeRate simt = ComputeRateFor(std::vector<DType>{DType::kF32},
                                          Ceilings{1000.0, 20.0, 10.0, 0.0, 0.0});
  EXPECT_EQ(simt.name, "SGEMM");
  EXPECT_EQ(simt.tflops, 20.0);
}

TEST(Ceilings, RatePerDtypeMix) {
  const Ceilings c = Hopperish();
  auto rate = [&](std::vector<DType> dtypes) { return ComputeRateFor(dtypes, c); };
  EXPECT_EQ(rate({DType::kF16}).tflops, 800.0);
  EXPECT_EQ(rate({DType::kF16}).name, "FP16 tensor-core GEMM");
  EXPECT_EQ(rate({DType::kBF16}).tflops, 700.0);
  EXPECT_EQ(rate({DType::kBF16}).name, "BF16 tensor-core GEMM");
  // Mixed float dtypes: the fastest of their rates.
  EXPECT_EQ(rate({DType::kF32, DType::kBF16}).tflops, 700.0);
  EXPECT_EQ(rate({DType::kBF16, DType::kF16, DType::kF32}).tflops, 800.0);
  // f64 and 32/64-bit integers add no path: indices with f32 data keep the f32 rate.
  EXPECT_EQ(rate({DType::kF32, DType::kI64, DType::kF64, DType::kI32}).tflops, 400.0);
  // No f32 / f16 / bf16: no compute floor.
  EXPECT_EQ(rate({DType::kI32, DType::kI64}).tflops, 0.0);
  EXPECT_EQ(rate({DType::kF64}).tflops, 0.0);
  EXPECT_EQ(rate({}).tflops, 0.0);
  // 8-bit dtypes have faster tensor-core paths than any rate measured: no compute floor.
  EXPECT_EQ(rate({DType::kF16, DType::kI8}).tflops, 0.0);
  EXPECT_EQ(rate({DType::kU8}).tflops, 0.0);
  EXPECT_EQ(rate({DType::kBF16, DType::kFP8E4M3}).tflops, 0.0);
  EXPECT_EQ(rate({DType::kFP8E5M2, DType::kF32}).tflops, 0.0);
  EXPECT_NE(rate({DType::kFP8E5M2}).name.find("fp8_e5m2"), std::string::npos);
}

TEST(Ceilings, AnUnmeasuredNeededRateMeansNoComputeFloor) {
  // TF32 not measured: SGEMM alone could be too strict for an f32 problem.
  const ComputeRate r =
      ComputeRateFor(std::vector<DType>{DType::kF32}, Ceilings{1000.0, 50.0, 0.0, 800.0, 700.0});
  EXPECT_EQ(r.tflops, 0.0);
  EXPECT_NE(r.name.find("TF32"), std::string::npos);
  // A rate the problem does not need may be missing.
  EXPECT_EQ(ComputeRateFor(std::vector<DType>{DType::kF16}, Ceilings{1000.0, 0.0, 0.0, 800.0, 0.0})
                .tflops,
            800.0);
}

TEST(Ceilings, FloorUsesTheProblemsDtypes) {
  // ReLU 1000 x 1000: 8e6 bytes at 1000 GB/s = 8 us; 1e6 flops at 0.01 TFLOP/s = 100 us.
  absl::StatusOr<ProblemSpec> f16 = ReluWithDtypes("f32", "f16");
  ASSERT_TRUE(f16.ok()) << f16.status();
  // f32 + f16 at FP16 = 0.01, TF32 = 0.001: the faster (FP16) bounds it: 100 us.
  EXPECT_NEAR(FloorUs(*f16, ShapeOf(1000, 1000), Ceilings{1000.0, 0.001, 0.001, 0.01, 0.0}),
              100.0, 1e-9);
  absl::StatusOr<ProblemSpec> bf16 = ReluWithDtypes("bf16", "bf16");
  ASSERT_TRUE(bf16.ok()) << bf16.status();
  EXPECT_NEAR(FloorUs(*bf16, ShapeOf(1000, 1000), Ceilings{1000.0, 1.0, 1.0, 1.0, 0.01}), 100.0,
              1e-9);
  // int8 in: bytes only.
  absl::StatusOr<ProblemSpec> i8 = ReluWithDtypes("i8", "f32");
  ASSERT_TRUE(i8.ok()) << i8.status();
  const PhysicalFloor f = FloorOf(*i8, ShapeOf(1000, 1000), Uniform(1000.0, 0.01));
  EXPECT_NEAR(f.us, 8.0, 1e-9);
  EXPECT_EQ(f.compute_us, 0.0);
  EXPECT_EQ(f.rate.tflops, 0.0);
}

// The SUSPICIOUS floor keeps the compute term only for problems that declare their flops a
// lower bound for every correct algorithm; SOL% (FloorOf) always has both terms.
TEST(Ceilings, ImpossibleFloorIgnoresFlopsUnlessDeclared) {
  absl::StatusOr<ProblemSpec> spec = ParseProblemSpec(testing::kReluSpec, "relu.toml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_FALSE(spec->cost.flops_lower_bound);
  // Compute-bound ceilings: 100 us of flops, 8 us of bytes.
  const Ceilings slow_alu = Uniform(1000.0, 0.01);
  const PhysicalFloor report = FloorOf(*spec, ShapeOf(1000, 1000), slow_alu);
  EXPECT_NEAR(report.us, 100.0, 1e-9);
  const PhysicalFloor impossible = ImpossibleFloorOf(*spec, ShapeOf(1000, 1000), slow_alu);
  EXPECT_NEAR(impossible.us, 8.0, 1e-9);
  EXPECT_NEAR(impossible.memory_us, 8.0, 1e-9);
  EXPECT_EQ(impossible.compute_us, 0.0);
  EXPECT_EQ(impossible.rate.tflops, 0.0);
  EXPECT_NE(impossible.rate.name.find("flops_lower_bound"), std::string::npos);

  std::string toml = testing::kReluSpec;
  const std::string bytes_line = "bytes = \"8 * M * N\"";
  const size_t at = toml.find(bytes_line);
  ASSERT_NE(at, std::string::npos);
  toml.insert(at + bytes_line.size(), "\nflops_lower_bound = true");
  absl::StatusOr<ProblemSpec> declared = ParseProblemSpec(toml, "relu_bound.toml");
  ASSERT_TRUE(declared.ok()) << declared.status();
  EXPECT_TRUE(declared->cost.flops_lower_bound);
  const PhysicalFloor both = ImpossibleFloorOf(*declared, ShapeOf(1000, 1000), slow_alu);
  EXPECT_NEAR(both.us, 100.0, 1e-9);
  EXPECT_NEAR(both.compute_us, 100.0, 1e-9);
  // Memory-bound ceilings: the same either way.
  EXPECT_NEAR(ImpossibleFloorOf(*spec, ShapeOf(1000, 1000), Uniform(1000.0, 1.0)).us, 8.0, 1e-9);
  // Unknown ceilings: no floor.
  EXPECT_EQ(ImpossibleFloorOf(*declared, ShapeOf(1000, 1000), Ceilings{}).us, 0.0);
}

TEST(ClockMonitor, NeverFailsAndSaysWhyWhenUnavailable) {
  std::unique_ptr<ClockMonitor> m = ClockMonitor::Open(12345);  // no such device anywhere
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(m->available());
  EXPECT_FALSE(m->reason().empty());
  EXPECT_EQ(m->SmClockMhz(), 0);
}

TEST(Ceilings, AnF32ToleranceUnder1xTf32sErrorHoldsToSplitPrecision) {
  const Ceilings c = Hopperish();  // SGEMM 50, TF32 400, BF16 700
  const std::vector<DType> f32 = {DType::kF32};
  EXPECT_EQ(ComputeRateFor(f32, c, kTf32MinRelL2).name, "TF32 tensor-core GEMM");
  const ComputeRate split = ComputeRateFor(f32, c, 1e-5);
  EXPECT_NEAR(split.tflops, 700.0 / 3.0, 1e-9);  // the faster of TF32 and BF16, three passes
  EXPECT_NE(split.name.find("split precision"), std::string::npos);
  // Split precision slower than SIMT: SIMT.
  EXPECT_EQ(ComputeRateFor(f32, Ceilings{1000.0, 50.0, 90.0, 0.0, 100.0}, 1e-5).tflops, 50.0);
  // TF32 unmeasured: no compute floor, even with BF16.
  EXPECT_EQ(ComputeRateFor(f32, Ceilings{1000.0, 50.0, 0.0, 0.0, 700.0}, 1e-5).tflops, 0.0);
}

TEST(Ceilings, MinFlopsIsTheComputeTermOfTheImpossibleFloor) {
  // A GEMM-like cost: 2e9 flops, min_flops 7/8 of them, 8e6 bytes; tolerance under 1xTF32's.
  std::string toml = testing::kReluSpec;
  const std::string bytes_line = "bytes = \"8 * M * N\"";
  const size_t at = toml.find(bytes_line);
  ASSERT_NE(at, std::string::npos);
  toml.insert(at + bytes_line.size(), "\nmin_flops = \"7 * M * N / 4\"");
  absl::StatusOr<ProblemSpec> spec = ParseProblemSpec(toml, "relu/problem.toml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_TRUE(spec->cost.min_flops.has_value());
  spec->tolerance.rel_l2 = 1e-5;
  const Ceilings slow_alu{1000.0, 0.001, 0.003, 0.0, 0.0};  // TF32 / 3 = 0.001 TFLOP/s
  const PhysicalFloor f = ImpossibleFloorOf(*spec, ShapeOf(1000, 1000), slow_alu);
  // min_flops 1.75e6 at 1e9 flop/s = 1750 us (not flops' 2000 us); bytes 8 us.
  EXPECT_NEAR(f.compute_us, 1750.0, 1e-6);
  EXPECT_NEAR(f.us, 1750.0, 1e-6);
  // Both declared: refused with a message naming the key.
  toml.insert(toml.find("min_flops"), "flops_lower_bound = true\n");
  EXPECT_FALSE(ParseProblemSpec(toml, "relu/problem.toml").ok());
}

}  // namespace
}  // namespace kjudge::runner
