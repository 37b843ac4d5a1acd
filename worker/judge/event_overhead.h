// EventOverhead: the fixed time that the CUDA events around a timed plan add to it, beyond the
// device time of the plan's own work. Measured once at runner start-up and subtracted from
// every timing sample (TimingOptions::event_overhead_us), so that kjudge's medians agree with
// kernel durations as CUPTI or ncu report them, also for kernels of a few microseconds.
//
// Why a constant: on an H200 (driver 580, probe in docs/fidelity.md) the start/stop pair around
// one launch adds 2.43-2.56 us to the device durations whatever runs between them (1 MiB to
// 1 GiB copies, a kernel spinning 20 us, an empty kernel): the front end stamps the start event
// before it processes the launch and the stop event after the grid's completion is
// acknowledged. That is +65% on a 4 us copy and +2% on a 130 us one. Graph launches and a
// blocking kernel ahead of the events (nvbench's trick against host launch latency) measured
// the same: the gap is on the device, so only calibration removes it.
//
// Contract: CalibrateEventOverhead() times a 16 MiB device-to-device cudaMemcpyAsync with
// TimeRuns() itself (warm-up, L2 flush, events, device-idle check: exactly how plans are timed;
// options.event_overhead_us must be 0), kSamples samples, while CUPTI's Activity API records the
// same copies' device start/end; overhead = TimeRuns' median - the median CUPTI duration. It
// fails (the caller then subtracts nothing and says so in every result) when CUPTI cannot be
// loaded (cupti_library.h), its records do not pair one-to-one with the samples, or the result
// is outside [0, kMaxOverheadUs]. It registers CUPTI's activity callbacks and leaves activity
// collection disabled. Takes ~50 ms plus CUPTI's initialisation.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "absl/status/statusor.h"
#include "worker/gpu/timing.h"

namespace kjudge::runner {

struct EventOverhead {
  double us = 0.0;            // subtracted from every sample
  double event_median_us = 0.0;  // the calibration copy by events
  double device_median_us = 0.0; // the same copies by CUPTI
  int samples = 0;
};

inline constexpr int kEventOverheadSamples = 200;
inline constexpr double kMaxOverheadUs = 20.0;

absl::StatusOr<EventOverhead> CalibrateEventOverhead(cudaStream_t stream, L2Flusher& flusher);

}  // namespace kjudge::runner
