#include "common/stopping_rule.h"

#include <cmath>

#include <gtest/gtest.h>

namespace kjudge {
namespace {

TEST(StoppingRule, NeedsMinSamplesEvenWhenNoiseless) {
  StoppingRule rule(StoppingCriteria{});
  for (int i = 0; i < 9; ++i) {
    rule.AddSample(10.0);
    EXPECT_FALSE(rule.ShouldStop(100.0)) << i;
  }
  rule.AddSample(10.0);
  EXPECT_TRUE(rule.ShouldStop(100.0));
  EXPECT_EQ(rule.reason(), StopReason::kConverged);
}

TEST(StoppingRule, ConvergedNeedsMinTime) {
  StoppingRule rule(StoppingCriteria{10, 1000, 0.005, 2000.0, 30.0});
  for (int i = 0; i < 50; ++i) rule.AddSample(10.0);
  EXPECT_FALSE(rule.ShouldStop(29.9));
  EXPECT_EQ(rule.reason(), StopReason::kNotYet);
  EXPECT_TRUE(rule.ShouldStop(30.0));
  EXPECT_EQ(rule.reason(), StopReason::kConverged);
}

TEST(StoppingRule, MinTimeZeroStopsAtMinSamples) {
  StoppingRule rule(StoppingCriteria{10, 1000, 0.005, 2000.0, 0.0});
  for (int i = 0; i < 10; ++i) rule.AddSample(10.0);
  EXPECT_TRUE(rule.ShouldStop(0.0));
  EXPECT_EQ(rule.reason(), StopReason::kConverged);
}

TEST(StoppingRule, NoisySamplesRunToTheTimeBudget) {
  StoppingRule rule(StoppingCriteria{10, 1000, 0.005, 2000.0});
  for (int i = 0; i < 20; ++i) rule.AddSample(i % 2 == 0 ? 10.0 : 20.0);
  EXPECT_GT(rule.RelStdError(), 0.005);
  EXPECT_FALSE(rule.ShouldStop(1999.0));
  EXPECT_TRUE(rule.ShouldStop(2000.0));
  EXPECT_EQ(rule.reason(), StopReason::kTimeBudget);
}

TEST(StoppingRule, MaxSamplesWins) {
  StoppingRule rule(StoppingCriteria{10, 30, 0.0, 1e9});
  for (int i = 0; i < 30; ++i) rule.AddSample(i % 2 == 0 ? 1.0 : 3.0);
  EXPECT_TRUE(rule.ShouldStop(0.0));
  EXPECT_EQ(rule.reason(), StopReason::kMaxSamples);
}

TEST(StoppingRule, BudgetNeedsOneSample) {
  StoppingRule rule(StoppingCriteria{});
  EXPECT_FALSE(rule.ShouldStop(1e9));
  rule.AddSample(5.0);
  EXPECT_TRUE(rule.ShouldStop(1e9));
}

TEST(StoppingRule, WelfordMatchesTwoPass) {
  StoppingRule rule(StoppingCriteria{});
  const double v[] = {100.0, 102.0, 98.0, 101.0, 99.0};
  for (double x : v) rule.AddSample(x);
  EXPECT_DOUBLE_EQ(rule.mean(), 100.0);
  // sample std = sqrt(10 / 4); SEM / mean = sqrt(2.5) / sqrt(5) / 100.
  EXPECT_NEAR(rule.RelStdError(), std::sqrt(2.5) / std::sqrt(5.0) / 100.0, 1e-12);
}

}  // namespace
}  // namespace kjudge
