// The server's speedup rule (server/speedup_rule.h): every value recomputed from the result's
// own timings and the baselines the server knows; what cannot be computed is dropped and said.
#include "server/speedup_rule.h"

#include <gtest/gtest.h>

namespace kjudge::server {
namespace {

v1::BaselineTiming Baseline(const std::string& shape, const std::string& name, double median_us) {
  v1::BaselineTiming b;
  b.set_shape(shape);
  b.set_name(name);
  b.mutable_timing()->set_median_us(median_us);
  return b;
}

void AddTiming(v1::JobResult* result, const std::string& shape, double median_us) {
  v1::ShapeTiming* t = result->add_timings();
  t->set_shape(shape);
  t->mutable_timing()->set_median_us(median_us);
}

void AddSpeedup(v1::JobResult* result, const std::string& shape, const std::string& baseline, double value) {
  v1::Speedup* s = result->add_speedups();
  s->set_shape(shape);
  s->set_baseline(baseline);
  s->set_speedup(value);
}

TEST(SpeedupRule, AFakeThousandfoldSpeedupWithoutTimingsIsDroppedAndSaid) {
  v1::JobResult result;
  result.set_verdict(v1::CORRECT);
  AddSpeedup(&result, "N=4096", "cublas", 1000.0);
  EXPECT_EQ(RecomputeSpeedups({Baseline("N=4096", "cublas", 50.0)}, &result), 1);
  EXPECT_EQ(result.speedups_size(), 0);
  ASSERT_EQ(result.flags_size(), 1);
  EXPECT_EQ(result.flags(0), "speedup_dropped: cublas at N=4096: the result has no timing at that shape");
}

TEST(SpeedupRule, ValuesAreTheServersOwnFromTimingsAndKnownBaselines) {
  v1::JobResult result;
  AddTiming(&result, "N=1024", 10.0);
  AddTiming(&result, "N=4096", 40.0);
  AddSpeedup(&result, "N=1024", "cublas", 99.0);       // claimed; the server's is 2
  AddSpeedup(&result, "N=4096", "torch_eager", 1.5);   // 120 / 40 = 3
  AddSpeedup(&result, "N=4096", "made_up", 7.0);       // no such baseline: dropped
  AddSpeedup(&result, "N=1024", "cublas", 2.0);        // a repeat: dropped
  const std::vector<v1::BaselineTiming> known = {Baseline("N=1024", "cublas", 20.0),
                                                 Baseline("N=4096", "torch_eager", 120.0),
                                                 Baseline("N=1024", "torch_eager", 0.0)};
  EXPECT_EQ(RecomputeSpeedups(known, &result), 2);
  ASSERT_EQ(result.speedups_size(), 2);
  EXPECT_EQ(result.speedups(0).baseline(), "cublas");
  EXPECT_DOUBLE_EQ(result.speedups(0).speedup(), 2.0);
  EXPECT_EQ(result.speedups(1).baseline(), "torch_eager");
  EXPECT_DOUBLE_EQ(result.speedups(1).speedup(), 3.0);
  ASSERT_EQ(result.flags_size(), 2);
  EXPECT_EQ(result.flags(0),
            "speedup_dropped: made_up at N=4096: no baseline of that name the server knows for this job at that shape");
  EXPECT_EQ(result.flags(1), "speedup_dropped: cublas at N=1024: listed twice");
}

TEST(SpeedupRule, ABaselineKnownOnlyAtAnotherShapeOrWithAZeroMedianIsNotUsed) {
  v1::JobResult result;
  AddTiming(&result, "N=1024", 10.0);
  AddSpeedup(&result, "N=1024", "torch_eager", 5.0);
  AddSpeedup(&result, "N=1024", "cublas", 5.0);
  EXPECT_EQ(RecomputeSpeedups({Baseline("N=4096", "torch_eager", 100.0), Baseline("N=1024", "cublas", 0.0)}, &result),
            2);
  EXPECT_EQ(result.speedups_size(), 0);
}

TEST(SpeedupRule, AFloodOfBogusSpeedupsLeavesABoundedNumberOfFlags) {
  v1::JobResult result;
  for (int i = 0; i < 1000; ++i) AddSpeedup(&result, "s" + std::to_string(i), std::string(10000, 'x'), 1e9);
  EXPECT_EQ(RecomputeSpeedups({}, &result), 1000);
  ASSERT_EQ(result.flags_size(), kMaxDropFlags + 1);
  EXPECT_EQ(result.flags(kMaxDropFlags), "speedup_dropped: 992 more");
  for (const std::string& flag : result.flags()) EXPECT_LT(flag.size(), 200u);
}

}  // namespace
}  // namespace kjudge::server
