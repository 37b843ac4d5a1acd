// Ceilings and the physical floor (no GPU needed), and the NVML clock monitor's failure path.
#include "worker/runner/ceilings.h"

#include <gtest/gtest.h>

#include "tests/unit/worker/test_problem.h"
#include "worker/runner/clock_monitor.h"

namespace kjudge::runner {
namespace {

Shape ShapeOf(int64_t m, int64_t n) {
  Shape s;
  s.sizes = {{"M", m}, {"N", n}};
  s.order = {"M", "N"};
  return s;
}

TEST(Ceilings, FloorIsTheSlowerOfComputeAndMemory) {
  absl::StatusOr<ProblemSpec> spec = ParseProblemSpec(testing::kReluSpec, "relu.toml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  // ReLU at 1000 x 1000: 8e6 bytes at 1000 GB/s = 8 us; 1e6 flops at 1 TFLOP/s = 1 us.
  EXPECT_NEAR(FloorUs(*spec, ShapeOf(1000, 1000), Ceilings{1000.0, 1.0}), 8.0, 1e-9);
  // A slow ALU makes compute the bound: 1e6 flops at 0.01 TFLOP/s = 100 us.
  EXPECT_NEAR(FloorUs(*spec, ShapeOf(1000, 1000), Ceilings{1000.0, 0.01}), 100.0, 1e-9);
  // Unknown ceilings: no floor.
  EXPECT_EQ(FloorUs(*spec, ShapeOf(1000, 1000), Ceilings{}), 0.0);
  EXPECT_NEAR(FloorUs(*spec, ShapeOf(1000, 1000), Ceilings{0.0, 1.0}), 1.0, 1e-9);
}

TEST(Ceilings, FlopsBoundOnlyForAllF32Problems) {
  std::string toml = testing::kReluSpec;
  const std::string from = "name = \"Y\"\ndtype = \"f32\"";
  const size_t at = toml.find(from);
  ASSERT_NE(at, std::string::npos);
  toml.replace(at, from.size(), "name = \"Y\"\ndtype = \"f16\"");
  absl::StatusOr<ProblemSpec> spec = ParseProblemSpec(toml, "relu16.toml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  // Tensor cores make the SGEMM rate no ceiling for f16: only the bytes count.
  EXPECT_NEAR(FloorUs(*spec, ShapeOf(1000, 1000), Ceilings{1000.0, 0.01}), 8.0, 1e-9);
}

TEST(ClockMonitor, NeverFailsAndSaysWhyWhenUnavailable) {
  std::unique_ptr<ClockMonitor> m = ClockMonitor::Open(12345);  // no such device anywhere
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(m->available());
  EXPECT_FALSE(m->reason().empty());
  EXPECT_EQ(m->SmClockMhz(), 0);
}

}  // namespace
}  // namespace kjudge::runner
