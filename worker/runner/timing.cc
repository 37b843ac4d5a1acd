#include "worker/runner/timing.h"

#include <chrono>
#include <vector>

#include "worker/runner/runner_error.h"

namespace kjudge::runner {
namespace {

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

absl::Status WarmUp(const RunFn& run, cudaStream_t stream, const TimingOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < options.min_warmup_runs || MsSince(start) < options.warmup_ms; ++i) {
    KJ_RETURN_IF_ERROR(run(stream));
    KJ_RETURN_IF_ERROR(SyncStatus(cudaStreamSynchronize(stream), "warm-up run"));
  }
  return absl::OkStatus();
}

absl::StatusOr<double> OneSample(const RunFn& run, cudaStream_t stream, L2Flusher& flusher,
                                 const Event& start, const Event& stop) {
  KJ_RETURN_IF_ERROR(flusher.Flush(stream));
  KJ_RETURN_IF_ERROR(CudaStatus(cudaEventRecord(start.get(), stream), "cudaEventRecord"));
  KJ_RETURN_IF_ERROR(run(stream));
  KJ_RETURN_IF_ERROR(CudaStatus(cudaEventRecord(stop.get(), stream), "cudaEventRecord"));
  KJ_RETURN_IF_ERROR(SyncStatus(cudaEventSynchronize(stop.get()), "timed run"));
  KJ_RETURN_IF_ERROR(SyncStatus(cudaDeviceSynchronize(), "device-wide check after a timed run"));
  float ms = 0.0F;
  KJ_RETURN_IF_ERROR(
      CudaStatus(cudaEventElapsedTime(&ms, start.get(), stop.get()), "cudaEventElapsedTime"));
  return static_cast<double>(ms) * 1000.0;
}

}  // namespace

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

absl::StatusOr<TimingResult> TimeRuns(const RunFn& run, cudaStream_t stream, L2Flusher& flusher,
                                      const TimingOptions& options) {
  KJ_RETURN_IF_ERROR(WarmUp(run, stream, options));
  KJ_ASSIGN_OR_RETURN(Event start, Event::Create());
  KJ_ASSIGN_OR_RETURN(Event stop, Event::Create());
  StoppingRule rule(options.criteria);
  std::vector<double> samples;
  const auto begin = std::chrono::steady_clock::now();
  do {
    KJ_ASSIGN_OR_RETURN(double us, OneSample(run, stream, flusher, start, stop));
    samples.push_back(us);
    rule.AddSample(us);
  } while (!rule.ShouldStop(MsSince(begin)));
  TimingResult result;
  result.summary = Summarize(samples);
  result.reason = rule.reason();
  return result;
}

}  // namespace kjudge::runner
