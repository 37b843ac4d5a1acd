// Timing: the runner's measurement protocol for one runnable thing (a plan, a library call)
// on one shape (SPEC §5, step 5).
//
// Contract: TimeRuns() warms up (at least `min_warmup_runs` runs and at least `warmup_ms`
// of wall time), then takes samples until the StoppingRule says stop. Each sample: flush L2
// (cudaMemsetAsync over a buffer of 2x the L2 size, then cudaCtxResetPersistingL2Cache),
// record the start event, run, record the stop event, wait for the stop event, check for a
// device error (any error is sticky: RUNTIME_ERROR), and take the elapsed time in us.
// The stopping rule's wall-time budget covers flushes and synchronisation too.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>

#include "absl/status/statusor.h"
#include "common/sample_statistics.h"
#include "common/stopping_rule.h"
#include "worker/runner/device_buffer.h"

namespace kjudge::runner {

struct TimingOptions {
  double warmup_ms = 50.0;
  int min_warmup_runs = 3;
  StoppingCriteria criteria;
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

using RunFn = std::function<absl::Status(cudaStream_t)>;

struct TimingResult {
  SampleSummary summary;
  StopReason reason = StopReason::kNotYet;
};

absl::StatusOr<TimingResult> TimeRuns(const RunFn& run, cudaStream_t stream, L2Flusher& flusher,
                                      const TimingOptions& options);

}  // namespace kjudge::runner
