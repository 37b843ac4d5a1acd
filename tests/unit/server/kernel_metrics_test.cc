#include "server/kernel_metrics.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kjudge::server {
namespace {

v1::JobResult Result(v1::Verdict verdict, std::vector<std::pair<std::string, double>> speedups = {}) {
  v1::JobResult result;
  result.set_verdict(verdict);
  for (const auto& [baseline, value] : speedups) {
    v1::Speedup* speedup = result.add_speedups();
    speedup->set_baseline(baseline);
    speedup->set_shape("N=4096");
    speedup->set_speedup(value);
  }
  return result;
}

double FastP(const v1::Stats& stats, double p) {
  for (const v1::FastP& entry : stats.fast_p()) {
    if (entry.p() == p) return entry.fraction();
  }
  ADD_FAILURE() << "no fast_" << p;
  return -1;
}

TEST(KernelMetrics, KernelBenchDefinitionsOnRecordedResults) {
  std::vector<v1::JobResult> results = {
      Result(v1::CORRECT, {{"reference", 2.5}, {"cublas", 0.5}}),
      Result(v1::CORRECT, {{"reference", 0.9}}),
      Result(v1::CORRECT, {{"reference", 1.2}}),
      Result(v1::WRONG_ANSWER),
      Result(v1::COMPILE_ERROR),
  };
  v1::Stats stats = ComputeStats(results, "reference");
  EXPECT_EQ(stats.jobs(), 5);
  EXPECT_EQ(stats.compiled(), 4);
  EXPECT_EQ(stats.correct(), 3);
  EXPECT_DOUBLE_EQ(stats.compile_rate(), 0.8);
  EXPECT_DOUBLE_EQ(stats.correctness_rate(), 0.6);
  EXPECT_DOUBLE_EQ(FastP(stats, 0.0), 0.6);
  EXPECT_DOUBLE_EQ(FastP(stats, 0.5), 0.6);
  EXPECT_DOUBLE_EQ(FastP(stats, 0.8), 0.6);
  EXPECT_DOUBLE_EQ(FastP(stats, 1.0), 0.4);
  EXPECT_DOUBLE_EQ(FastP(stats, 1.5), 0.2);
  EXPECT_DOUBLE_EQ(FastP(stats, 2.0), 0.2);
  EXPECT_NEAR(stats.geomean_speedup(), std::cbrt(2.5 * 0.9 * 1.2), 1e-12);
  EXPECT_EQ(stats.verdicts().at("CORRECT"), 3);
  EXPECT_EQ(stats.verdicts().at("COMPILE_ERROR"), 1);
}

TEST(KernelMetrics, OtherBaselineAndMissingSpeedups) {
  std::vector<v1::JobResult> results = {
      Result(v1::CORRECT, {{"reference", 2.5}, {"cublas", 0.5}}),
      Result(v1::CORRECT, {{"reference", 0.9}}),
  };
  v1::Stats stats = ComputeStats(results, "cublas");
  EXPECT_EQ(stats.with_speedup(), 1);
  EXPECT_DOUBLE_EQ(stats.geomean_speedup(), 0.5);
  EXPECT_DOUBLE_EQ(FastP(stats, 0.0), 0.5);  // the job with no cuBLAS speedup is not fast
}

TEST(KernelMetrics, SeveralShapesAreCombinedGeometrically) {
  v1::JobResult result = Result(v1::CORRECT, {{"reference", 4.0}, {"reference", 1.0}});
  EXPECT_DOUBLE_EQ(JobSpeedup(result, "reference"), 2.0);
  EXPECT_DOUBLE_EQ(JobSpeedup(result, "cublas"), 0.0);
}

TEST(KernelMetrics, NoJobsGivesZeros) {
  v1::Stats stats = ComputeStats({}, "reference");
  EXPECT_EQ(stats.jobs(), 0);
  EXPECT_EQ(stats.compile_rate(), 0.0);
  EXPECT_EQ(stats.fast_p_size(), 6);
}

}  // namespace
}  // namespace kjudge::server

namespace kjudge::server {
namespace {

TEST(KernelMetrics, FastPCurveIsAStepFunctionThatAgreesWithComputeStats) {
  std::vector<v1::JobResult> results = {Result(v1::CORRECT, {{"reference", 1.5}}), Result(v1::CORRECT, {{"reference", 0.5}}),
                                        Result(v1::WRONG_ANSWER, {{"reference", 9.0}}), Result(v1::CORRECT)};
  const std::vector<double> ps = {0.0, 0.25, 0.5, 1.0, 1.49, 1.5, 2.0};
  std::vector<v1::FastP> curve = FastPCurve(results, "reference", ps);
  ASSERT_EQ(curve.size(), ps.size());
  // Speedups of correct jobs: 1.5, 0.5 and none (0); the wrong answer's 9x never counts.
  const double expected[] = {0.5, 0.5, 0.25, 0.25, 0.25, 0.0, 0.0};
  for (size_t i = 0; i < ps.size(); ++i) {
    EXPECT_EQ(curve[i].p(), ps[i]);
    EXPECT_DOUBLE_EQ(curve[i].fraction(), expected[i]) << "p = " << ps[i];
  }
  v1::Stats stats = ComputeStats(results, "reference");
  for (const v1::FastP& entry : stats.fast_p()) {
    EXPECT_DOUBLE_EQ(FastPCurve(results, "reference", {entry.p()})[0].fraction(), entry.fraction());
  }
}

}  // namespace
}  // namespace kjudge::server
