#include "worker/judge/event_overhead.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "worker/judge/cupti_library.h"
#include "worker/gpu/device_buffer.h"
#include "worker/gpu/runner_error.h"
#include "worker/gpu/str_util.h"

namespace kjudge::runner {
namespace {

constexpr size_t kCopyBytes = size_t{16} << 20U;
constexpr size_t kBufferBytes = size_t{1} << 20U;

// CUPTI delivers activity buffers through plain C callbacks (possibly on its own thread), so
// what they collect lives here.
struct Collected {
  std::mutex mu;
  const CuptiLibrary* cupti = nullptr;
  std::vector<DeviceInterval> memcpys;
};
Collected& State() {
  static Collected state;
  return state;
}

void RequestBuffer(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;
}

void CompleteBuffer(void* /*context*/, uint32_t /*stream_id*/, uint8_t* buffer, size_t /*size*/,
                    size_t valid_size) {
  Collected& state = State();
  {
    std::lock_guard lock(state.mu);
    if (state.cupti != nullptr) state.cupti->CollectMemcpys(buffer, valid_size, &state.memcpys);
  }
  std::free(buffer);  // NOLINT(cppcoreguidelines-no-malloc): CUPTI's buffers, from aligned_alloc
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// The copies' device durations, in us, once collection is stopped and flushed.
absl::StatusOr<std::vector<double>> StopAndCollect(const CuptiLibrary& cupti) {
  KJ_RETURN_IF_ERROR(cupti.EnableMemcpy(false));
  KJ_RETURN_IF_ERROR(cupti.FlushAll());
  Collected& state = State();
  std::lock_guard lock(state.mu);
  std::vector<double> us;
  us.reserve(state.memcpys.size());
  for (const DeviceInterval& d : state.memcpys) {
    if (d.end_ns > d.start_ns) us.push_back(static_cast<double>(d.end_ns - d.start_ns) / 1000.0);
  }
  state.memcpys.clear();
  state.cupti = nullptr;
  return us;
}

}  // namespace

absl::StatusOr<EventOverhead> CalibrateEventOverhead(cudaStream_t stream, L2Flusher& flusher) {
  KJ_ASSIGN_OR_RETURN(CuptiLibrary cupti, CuptiLibrary::Open());
  KJ_ASSIGN_OR_RETURN(DeviceBuffer src, DeviceBuffer::Allocate(kCopyBytes, "calibration copy"));
  KJ_ASSIGN_OR_RETURN(DeviceBuffer dst, DeviceBuffer::Allocate(kCopyBytes, "calibration copy"));
  KJ_RETURN_IF_ERROR(
      CudaStatus(cudaMemsetAsync(src.get(), 0x3f, kCopyBytes, stream), "calibration fill"));
  {
    Collected& state = State();
    std::lock_guard lock(state.mu);
    state.cupti = &cupti;
    state.memcpys.clear();
  }
  KJ_RETURN_IF_ERROR(cupti.RegisterCallbacks(RequestBuffer, CompleteBuffer));

  TimingOptions options;
  options.warmup_ms = 5.0;
  options.criteria.min_samples = kEventOverheadSamples;
  options.criteria.max_samples = kEventOverheadSamples;
  options.criteria.min_time_ms = 0.0;
  options.criteria.time_budget_ms = 10'000.0;
  bool enabled = false;
  SampleHooks hooks;
  // Collection starts with the first timed sample, so warm-up copies are not recorded.
  hooks.before = [&](size_t /*set*/) -> absl::Status {
    if (enabled) return absl::OkStatus();
    enabled = true;
    return cupti.EnableMemcpy(true);
  };
  const RunFn copy = [&](cudaStream_t s) {
    return CudaStatus(
        cudaMemcpyAsync(dst.get(), src.get(), kCopyBytes, cudaMemcpyDeviceToDevice, s),
        "calibration copy");
  };
  absl::StatusOr<TimingResult> timing =
      TimeRuns(std::span<const RunFn>(&copy, 1), stream, flusher, options, &hooks);
  absl::StatusOr<std::vector<double>> device = StopAndCollect(cupti);
  KJ_RETURN_IF_ERROR(timing.status());
  KJ_RETURN_IF_ERROR(device.status());
  if (static_cast<int64_t>(device->size()) != timing->summary.count) {
    return absl::InternalError(Cat("CUPTI recorded ", device->size(), " copies for ",
                                   timing->summary.count, " timed samples"));
  }
  EventOverhead overhead;
  overhead.samples = static_cast<int>(device->size());
  overhead.event_median_us = timing->summary.median;
  overhead.device_median_us = Median(*std::move(device));
  overhead.us = overhead.event_median_us - overhead.device_median_us;
  if (!(overhead.us >= 0.0 && overhead.us <= kMaxOverheadUs)) {
    return absl::InternalError(Cat("implausible event overhead ", overhead.us, " us (events ",
                                   overhead.event_median_us, " us, CUPTI ",
                                   overhead.device_median_us, " us)"));
  }
  return overhead;
}

}  // namespace kjudge::runner
