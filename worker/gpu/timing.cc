#include "worker/gpu/timing.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "worker/gpu/runner_error.h"

namespace kjudge::runner {
namespace {

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Runs in this process, rotating over `runs`.
class LocalRuns : public SampleSource {
 public:
  LocalRuns(std::span<const RunFn> runs, cudaStream_t stream, L2Flusher& flusher, Event start,
            Event stop)
      : runs_(runs), stream_(stream), flusher_(flusher), start_(std::move(start)),
        stop_(std::move(stop)) {}
  size_t sets() const override { return runs_.size(); }
  absl::Status WarmUp(size_t set) override {
    KJ_RETURN_IF_ERROR(runs_[set](stream_));
    return SyncStatus(cudaStreamSynchronize(stream_), "warm-up run");
  }
  absl::StatusOr<RawSample> Sample(size_t set) override {
    return TimeOneRun(runs_[set], stream_, flusher_, start_, stop_);
  }

 private:
  std::span<const RunFn> runs_;
  cudaStream_t stream_;
  L2Flusher& flusher_;
  Event start_;
  Event stop_;
};

absl::Status WarmUp(SampleSource& source, const TimingOptions& options) {
  const auto start = Clock::now();
  for (size_t i = 0; static_cast<int>(i) < options.min_warmup_runs ||
                     MsSince(start) < options.warmup_ms;
       ++i) {
    KJ_RETURN_IF_ERROR(source.WarmUp(i % source.sets()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<RawSample> TimeOneRun(const RunFn& run, cudaStream_t stream, L2Flusher& flusher,
                                     const Event& start, const Event& stop) {
  KJ_RETURN_IF_ERROR(flusher.Flush(stream));
  KJ_RETURN_IF_ERROR(CudaStatus(cudaEventRecord(start.get(), stream), "cudaEventRecord"));
  KJ_RETURN_IF_ERROR(run(stream));
  KJ_RETURN_IF_ERROR(CudaStatus(cudaEventRecord(stop.get(), stream), "cudaEventRecord"));
  KJ_RETURN_IF_ERROR(SyncStatus(cudaEventSynchronize(stop.get()), "timed run"));
  // Device-idle check: nothing of the plan may outlive its stop event.
  const auto idle_start = Clock::now();
  KJ_RETURN_IF_ERROR(SyncStatus(cudaDeviceSynchronize(), "device-wide check after a timed run"));
  RawSample s;
  s.busy_after_stop = MsSince(idle_start) > kBusyAfterStopMs;
  float ms = 0.0F;
  KJ_RETURN_IF_ERROR(
      CudaStatus(cudaEventElapsedTime(&ms, start.get(), stop.get()), "cudaEventElapsedTime"));
  s.elapsed_us = static_cast<double>(ms) * 1000.0;
  return s;
}

double SampleUs(double elapsed_us, double event_overhead_us) {
  return std::max(elapsed_us - event_overhead_us, kMinSampleFraction * elapsed_us);
}

absl::StatusOr<L2Flusher> L2Flusher::Create(size_t l2_bytes) {
  KJ_ASSIGN_OR_RETURN(DeviceBuffer buffer,
                      DeviceBuffer::Allocate(2 * std::max<size_t>(l2_bytes, 1 << 20),
                                             "L2 flush buffer"));
  return L2Flusher(std::move(buffer));
}

absl::Status L2Flusher::Flush(cudaStream_t stream) {
  ++value_;  // a different value each time, so the writes cannot be elided
  KJ_RETURN_IF_ERROR(
      CudaStatus(cudaMemsetAsync(buffer_.get(), value_, buffer_.size(), stream), "L2 flush"));
  const cudaError_t err = cudaCtxResetPersistingL2Cache();
  if (err != cudaSuccess) (void)cudaGetLastError();  // not supported everywhere; best effort
  return absl::OkStatus();
}

absl::StatusOr<TimingResult> TimeRuns(std::span<const RunFn> runs, cudaStream_t stream,
                                      L2Flusher& flusher, const TimingOptions& options,
                                      const SampleHooks* hooks) {
  if (runs.empty()) return MakeRunnerError(v1::INTERNAL_ERROR, "TimeRuns: nothing to run");
  KJ_ASSIGN_OR_RETURN(Event start, Event::Create());
  KJ_ASSIGN_OR_RETURN(Event stop, Event::Create());
  LocalRuns source(runs, stream, flusher, std::move(start), std::move(stop));
  return TimeSamples(source, options, hooks);
}

absl::StatusOr<TimingResult> TimeSamples(SampleSource& source, const TimingOptions& options,
                                         const SampleHooks* hooks) {
  if (source.sets() == 0) return MakeRunnerError(v1::INTERNAL_ERROR, "TimeSamples: nothing to run");
  const auto warmup_start = Clock::now();
  KJ_RETURN_IF_ERROR(WarmUp(source, options));
  const double warmup_ms = MsSince(warmup_start);
  const ClockMonitor* clock =
      options.clock != nullptr && options.clock->available() ? options.clock : nullptr;
  const double min_mhz =
      clock != nullptr ? options.throttle_threshold * clock->max_sm_clock_mhz() : 0.0;
  StoppingRule rule(options.criteria);
  std::vector<double> kept;
  std::vector<double> throttled;
  double clock_sum = 0.0;
  TimingResult result;
  result.input_sets = static_cast<int>(source.sets());
  result.event_overhead_us = options.event_overhead_us;
  result.warmup_ms = warmup_ms;
  const auto begin = Clock::now();
  for (int64_t i = 0;; ++i) {
    const size_t set = static_cast<size_t>(i) % source.sets();
    auto step = Clock::now();
    if (hooks != nullptr && hooks->before) KJ_RETURN_IF_ERROR(hooks->before(set));
    result.before_ms += MsSince(step);
    step = Clock::now();
    KJ_ASSIGN_OR_RETURN(RawSample raw, source.Sample(set));
    result.sample_ms += MsSince(step);
    const double sample_us = SampleUs(raw.elapsed_us, options.event_overhead_us);
    const int mhz = clock != nullptr ? clock->SmClockMhz() : 0;
    if (raw.busy_after_stop) ++result.busy_after_stop;
    if (hooks != nullptr && hooks->after) {
      ++result.checked;
      step = Clock::now();
      KJ_ASSIGN_OR_RETURN(bool ok, hooks->after(set, i));
      result.after_ms += MsSince(step);
      if (!ok) {
        result.aborted = true;
        break;
      }
    }
    if (clock != nullptr && mhz > 0 && mhz < min_mhz) {
      throttled.push_back(sample_us);
      ++result.throttled;
      if (MsSince(begin) >= options.criteria.time_budget_ms ||
          static_cast<int64_t>(throttled.size()) >= options.criteria.max_samples) {
        result.reason = StopReason::kTimeBudget;
        break;
      }
      std::this_thread::sleep_for(
          std::chrono::duration<double, std::milli>(options.throttle_recovery_ms));
      continue;
    }
    kept.push_back(sample_us);
    clock_sum += mhz;
    rule.AddSample(sample_us);
    if (rule.ShouldStop(MsSince(begin))) {
      result.reason = rule.reason();
      break;
    }
  }
  result.all_throttled = kept.empty() && !throttled.empty();
  result.summary = Summarize(result.all_throttled ? throttled : kept);
  if (clock != nullptr && !kept.empty()) {
    result.mean_sm_clock_mhz = clock_sum / static_cast<double>(kept.size());
  }
  result.samples = result.all_throttled ? std::move(throttled) : std::move(kept);
  return result;
}

absl::StatusOr<TimingResult> TimeRuns(const RunFn& run, cudaStream_t stream, L2Flusher& flusher,
                                      const TimingOptions& options) {
  return TimeRuns(std::span<const RunFn>(&run, 1), stream, flusher, options, nullptr);
}

}  // namespace kjudge::runner
