// The judge's report of a bench shape's timing (no GPU needed): the raw samples travel with
// the summary, at most kMaxReportedSamples of them, evenly spaced and in the order taken.
#include <gtest/gtest.h>

#include "worker/judge/verdict_protocol.h"
#include "worker/judge/verdict_protocol_internal.h"

namespace kjudge::runner::verdict_detail {
namespace {

TimingResult WithSamples(size_t n) {
  TimingResult t;
  for (size_t i = 0; i < n; ++i) t.samples.push_back(static_cast<double>(i));
  t.summary.median = static_cast<double>(n) / 2;
  return t;
}

TEST(TimingReport, ShortRunsSendEverySampleInOrder) {
  const v1::Timing p = TimingToProto(WithSamples(300), 0.0);
  ASSERT_EQ(p.samples_us_size(), 300);
  for (int i = 0; i < 300; ++i) EXPECT_EQ(p.samples_us(i), static_cast<float>(i));
  EXPECT_DOUBLE_EQ(p.median_us(), 150.0);
}

TEST(TimingReport, LongRunsAreThinnedEvenlyToTheCap) {
  const v1::Timing p = TimingToProto(WithSamples(2500), 0.0);
  ASSERT_EQ(static_cast<size_t>(p.samples_us_size()), kMaxReportedSamples);
  EXPECT_EQ(p.samples_us(0), 0.0F);
  EXPECT_EQ(p.samples_us(1), 2.0F);   // 1 * 2500 / 1000
  EXPECT_EQ(p.samples_us(2), 5.0F);   // 2 * 2500 / 1000
  EXPECT_EQ(p.samples_us(999), 2497.0F);
}

TEST(TimingReport, NoSamplesSendNone) { EXPECT_EQ(TimingToProto(WithSamples(0), 0.0).samples_us_size(), 0); }

}  // namespace
}  // namespace kjudge::runner::verdict_detail
