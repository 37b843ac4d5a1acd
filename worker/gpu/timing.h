// Timing: the runner's measurement protocol for one runnable thing (a plan, a library call)
// on one shape (docs/architecture.md, "The verdict protocol", step 4).
//
// Contract: TimeRuns() takes one run function per input set (the same plan bound to different
// buffers holding different data) and rotates among them: warm-up run i and sample i use set
// i % runs.size(). It warms up (at least `min_warmup_runs` runs and at least `warmup_ms` of
// wall time), then takes samples until the StoppingRule says stop. Each sample:
//   1. hooks->before(set) (not timed; e.g. poison the set's outputs);
//   2. flush L2 (cudaMemsetAsync over a buffer of 2x the L2 size, then
//      cudaCtxResetPersistingL2Cache);
//   3. record the start event, run, record the stop event, wait for the stop event; the
//      sample is the elapsed time minus options.event_overhead_us (event_overhead.h: the fixed
//      time the event pair adds beyond the plan's device time), but never under
//      kMinSampleFraction of the elapsed time (a calibration error cannot make a sample ~0);
//   4. device-idle check: a device-wide synchronize right after the stop event must return at
//      once (wall time > kBusyAfterStopMs counts the sample in busy_after_stop: work that
//      outlived the plan's stop event); any error is sticky: RUNTIME_ERROR;
//   5. the SM clock (options.clock, NVML): a sample taken under throttle_threshold x the
//      maximum SM clock is discarded (counted in `throttled`, kept out of the statistics and the
//      stopping rule) and the runner sleeps throttle_recovery_ms before the next one;
//   6. hooks->after(set, sample) (not timed; e.g. check the outputs): false stops at once with
//      aborted = true (the caller recorded why).
// The stopping rule's wall-time budget covers everything above. When every sample was
// throttled, the statistics are over the throttled samples (all_throttled = true).
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "common/sample_statistics.h"
#include "common/stopping_rule.h"
#include "worker/gpu/clock_monitor.h"
#include "worker/gpu/device_buffer.h"

namespace kjudge::runner {

inline constexpr double kBusyAfterStopMs = 1.0;
inline constexpr double kMinSampleFraction = 0.05;

struct TimingOptions {
  double warmup_ms = 50.0;
  int min_warmup_runs = 3;
  StoppingCriteria criteria;
  const ClockMonitor* clock = nullptr;  // null or unavailable: no throttling detection
  double throttle_threshold = 0.75;
  double throttle_recovery_ms = 50.0;
  double event_overhead_us = 0.0;  // subtracted from every sample (event_overhead.h)
};

class L2Flusher {
 public:
  static absl::StatusOr<L2Flusher> Create(size_t l2_bytes);
  absl::Status Flush(cudaStream_t stream);
  size_t bytes() const { return buffer_.size(); }

 private:
  explicit L2Flusher(DeviceBuffer buffer) : buffer_(std::move(buffer)) {}
  DeviceBuffer buffer_;
  unsigned char value_ = 0;
};

// One sample from the events' elapsed time: minus the calibrated overhead, never under
// kMinSampleFraction of the elapsed time.
double SampleUs(double elapsed_us, double event_overhead_us);

using RunFn = std::function<absl::Status(cudaStream_t)>;

struct SampleHooks {
  std::function<absl::Status(size_t set)> before;
  std::function<absl::StatusOr<bool>(size_t set, int64_t sample)> after;
};

struct TimingResult {
  SampleSummary summary;
  std::vector<double> samples;  // what `summary` summarises, in the order taken
  StopReason reason = StopReason::kNotYet;
  int64_t throttled = 0;         // samples discarded for a low SM clock
  bool all_throttled = false;
  double mean_sm_clock_mhz = 0;  // over the kept samples; 0 when not monitored
  int64_t busy_after_stop = 0;   // samples after which the device was still busy
  int64_t checked = 0;           // samples that hooks->after saw
  bool aborted = false;          // hooks->after said stop
  int input_sets = 1;
  double event_overhead_us = 0.0;  // what was subtracted from each sample
  // Where the wall-clock time went (for the judge's phase log): warm-up runs, hooks->before,
  // the timed samples themselves (round trip included), hooks->after.
  double warmup_ms = 0.0;
  double before_ms = 0.0;
  double sample_ms = 0.0;
  double after_ms = 0.0;
};

// One timed run as a SampleSource makes it: the events' elapsed time (nothing subtracted) and
// whether the device was still busy after the stop event.
struct RawSample {
  double elapsed_us = 0.0;
  bool busy_after_stop = false;
};

// Steps 2-4 above for one run in this process: flush L2, events around `run`, device-idle
// check. The candidate process times each sample of a submitted plan with this.
absl::StatusOr<RawSample> TimeOneRun(const RunFn& run, cudaStream_t stream, L2Flusher& flusher,
                                     const Event& start, const Event& stop);

// Where samples come from: runs in this process (library baselines, the reference, the
// calibration) or a candidate process that times a submitted plan (candidate_process.h).
class SampleSource {
 public:
  virtual ~SampleSource() = default;
  virtual size_t sets() const = 0;
  // One untimed run on input set `set`, waited for.
  virtual absl::Status WarmUp(size_t set) = 0;
  // One timed sample on input set `set` (TimeOneRun's steps).
  virtual absl::StatusOr<RawSample> Sample(size_t set) = 0;
};

// The protocol above over any SampleSource: warm-up, then samples with the hooks, throttling
// and the stopping rule; options.event_overhead_us is subtracted here (SampleUs).
absl::StatusOr<TimingResult> TimeSamples(SampleSource& source, const TimingOptions& options,
                                         const SampleHooks* hooks);

absl::StatusOr<TimingResult> TimeRuns(std::span<const RunFn> runs, cudaStream_t stream,
                                      L2Flusher& flusher, const TimingOptions& options,
                                      const SampleHooks* hooks);
// One input set, no hooks (library baselines).
absl::StatusOr<TimingResult> TimeRuns(const RunFn& run, cudaStream_t stream, L2Flusher& flusher,
                                      const TimingOptions& options);

}  // namespace kjudge::runner
