#include "common/sample_statistics.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace kjudge {
namespace {

TEST(SampleStatistics, EmptyIsZero) {
  const SampleSummary s = Summarize({});
  EXPECT_EQ(s.count, 0);
  EXPECT_EQ(s.median, 0.0);
}

TEST(SampleStatistics, OddCountMedianIsMiddle) {
  const std::vector<double> v = {5.0, 1.0, 3.0};
  const SampleSummary s = Summarize(v);
  EXPECT_EQ(s.count, 3);
  EXPECT_EQ(s.median, 3.0);
  EXPECT_EQ(s.min, 1.0);
  EXPECT_EQ(s.max, 5.0);
  EXPECT_DOUBLE_EQ(s.mean, 3.0);
  EXPECT_DOUBLE_EQ(s.std, 2.0);  // sample std: sqrt((4 + 0 + 4) / 2)
}

TEST(SampleStatistics, EvenCountMedianIsMeanOfMiddleTwo) {
  const std::vector<double> v = {4.0, 1.0, 3.0, 2.0};
  EXPECT_DOUBLE_EQ(Summarize(v).median, 2.5);
}

TEST(SampleStatistics, P95InterpolatesLikeNumpy) {
  std::vector<double> v;
  for (int i = 1; i <= 20; ++i) v.push_back(i);  // numpy.percentile(1..20, 95) = 19.05
  EXPECT_NEAR(Summarize(v).p95, 19.05, 1e-12);
  EXPECT_DOUBLE_EQ(PercentileOfSorted(std::vector<double>{7.0}, 95), 7.0);
}

TEST(SampleStatistics, P99InterpolatesLikeNumpy) {
  std::vector<double> v;
  for (int i = 1; i <= 200; ++i) v.push_back(i);  // numpy.percentile(1..200, 99) = 198.01
  const SampleSummary s = Summarize(v);
  EXPECT_NEAR(s.p99, 198.01, 1e-9);
  EXPECT_NEAR(s.p95, 190.05, 1e-9);
  EXPECT_DOUBLE_EQ(s.median, PercentileOfSorted(std::vector<double>(v.begin(), v.end()), 50));
  // Ten samples: rank 0.99 * 9 = 8.91 between the two largest.
  const std::vector<double> ten = {1, 2, 3, 4, 5, 6, 7, 8, 9, 100};
  EXPECT_NEAR(Summarize(ten).p99, 9.0 + 0.91 * 91.0, 1e-9);
}

TEST(SampleStatistics, RecordedSamples) {
  // Ten recorded event timings (us) of one kernel.
  const std::vector<double> v = {101.2, 100.8, 100.9, 101.0, 100.7,
                                 101.1, 100.9, 109.5, 100.8, 101.0};
  const SampleSummary s = Summarize(v);
  EXPECT_DOUBLE_EQ(s.median, 100.95);
  EXPECT_NEAR(s.mean, 101.79, 1e-9);
  EXPECT_NEAR(s.std, 2.7131163, 1e-6);
  EXPECT_NEAR(s.p95, 105.765, 1e-9);
  EXPECT_NEAR(s.p99, 108.753, 1e-9);  // numpy.percentile(v, 99)
  EXPECT_NEAR(s.rel_std_error, 2.7131163 / std::sqrt(10.0) / 101.79, 1e-8);
  EXPECT_EQ(s.min, 100.7);
  EXPECT_EQ(s.max, 109.5);
}

TEST(SampleStatistics, SingleSampleHasNoSpread) {
  const SampleSummary s = Summarize(std::vector<double>{42.0});
  EXPECT_EQ(s.std, 0.0);
  EXPECT_EQ(s.rel_std_error, 0.0);
  EXPECT_EQ(s.p95, 42.0);
  EXPECT_EQ(s.p99, 42.0);
}

}  // namespace
}  // namespace kjudge
