// TimeRuns' event-overhead correction (worker/gpu/timing.h, event_overhead.h). The pure
// arithmetic runs everywhere; the calibration and a corrected timing need a GPU (skipped
// visibly without one) and CUPTI (skipped visibly without it).
#include <cuda_runtime_api.h>

#include <gtest/gtest.h>

#include "worker/gpu/device_buffer.h"
#include "worker/judge/event_overhead.h"
#include "worker/gpu/timing.h"

namespace kjudge::runner {
namespace {

TEST(SampleUs, SubtractsTheOverhead) {
  EXPECT_DOUBLE_EQ(SampleUs(130.0, 2.5), 127.5);
  EXPECT_DOUBLE_EQ(SampleUs(6.0, 2.5), 3.5);
}

TEST(SampleUs, ZeroOverheadKeepsTheEventTime) { EXPECT_DOUBLE_EQ(SampleUs(42.0, 0.0), 42.0); }

TEST(SampleUs, NeverBelowAFractionOfTheEventTime) {
  // An overhead larger than the measurement (a bad calibration) cannot make a sample ~0.
  EXPECT_DOUBLE_EQ(SampleUs(2.0, 2.5), kMinSampleFraction * 2.0);
  EXPECT_GT(SampleUs(2.0, 100.0), 0.0);
}

bool HaveGpu() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return n > 0;
}

#define REQUIRE_GPU() \
  if (!HaveGpu()) GTEST_SKIP() << "no CUDA device: GPU timing tests skipped"

TEST(EventOverheadGpu, CalibrationIsPlausible) {
  REQUIRE_GPU();
  absl::StatusOr<Stream> stream = Stream::Create();
  ASSERT_TRUE(stream.ok()) << stream.status();
  cudaDeviceProp props{};
  ASSERT_EQ(cudaGetDeviceProperties(&props, 0), cudaSuccess);
  absl::StatusOr<L2Flusher> flusher = L2Flusher::Create(static_cast<size_t>(props.l2CacheSize));
  ASSERT_TRUE(flusher.ok()) << flusher.status();
  absl::StatusOr<EventOverhead> overhead = CalibrateEventOverhead(stream->get(), *flusher);
  if (absl::IsUnavailable(overhead.status())) {
    GTEST_SKIP() << "CUPTI not available: " << overhead.status();
  }
  ASSERT_TRUE(overhead.ok()) << overhead.status();
  EXPECT_EQ(overhead->samples, kEventOverheadSamples);
  EXPECT_GT(overhead->us, 0.0);
  EXPECT_LT(overhead->us, kMaxOverheadUs);
  EXPECT_NEAR(overhead->event_median_us - overhead->device_median_us, overhead->us, 1e-9);
  // A 16 MiB copy takes microseconds on any GPU kjudge targets.
  EXPECT_GT(overhead->device_median_us, 1.0);
  std::cout << "event overhead " << overhead->us << " us (events " << overhead->event_median_us
            << " us, CUPTI " << overhead->device_median_us << " us)\n";
}

TEST(EventOverheadGpu, TimeRunsSubtractsTheOverheadFromEverySample) {
  REQUIRE_GPU();
  absl::StatusOr<Stream> stream = Stream::Create();
  ASSERT_TRUE(stream.ok()) << stream.status();
  absl::StatusOr<L2Flusher> flusher = L2Flusher::Create(size_t{64} << 20U);
  ASSERT_TRUE(flusher.ok()) << flusher.status();
  constexpr size_t kBytes = size_t{64} << 20U;
  absl::StatusOr<DeviceBuffer> src = DeviceBuffer::Allocate(kBytes, "src");
  absl::StatusOr<DeviceBuffer> dst = DeviceBuffer::Allocate(kBytes, "dst");
  ASSERT_TRUE(src.ok() && dst.ok());
  ASSERT_EQ(cudaMemset(src->get(), 0x5a, kBytes), cudaSuccess);
  const RunFn copy = [&](cudaStream_t s) {
    return cudaMemcpyAsync(dst->get(), src->get(), kBytes, cudaMemcpyDeviceToDevice, s) ==
                   cudaSuccess
               ? absl::OkStatus()
               : absl::InternalError("copy");
  };
  TimingOptions raw;
  raw.criteria.min_samples = 50;
  TimingOptions corrected = raw;
  corrected.event_overhead_us = 2.0;
  absl::StatusOr<TimingResult> a = TimeRuns(copy, stream->get(), *flusher, raw);
  absl::StatusOr<TimingResult> b = TimeRuns(copy, stream->get(), *flusher, corrected);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_DOUBLE_EQ(a->event_overhead_us, 0.0);
  EXPECT_DOUBLE_EQ(b->event_overhead_us, 2.0);
  // Same copy, two sessions: the medians differ by the 2 us subtracted, within the jitter of
  // a ~30 us copy's median over >= 50 samples.
  EXPECT_NEAR(a->summary.median - b->summary.median, 2.0, 1.0)
      << a->summary.median << " vs " << b->summary.median;
}

}  // namespace
}  // namespace kjudge::runner
