// CuptiTracer: an independent clock for the fidelity benchmark. Collects the device-side
// durations of kernels, memcpys and memsets with the CUPTI Activity API
// (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, MEMCPY, MEMSET) and attributes each one to the "run"
// (one call of a timed RunFn) whose host thread issued it.
//
// Attribution: while a run is open (BeginRun .. EndRun), a CUPTI callback subscriber on the
// runtime and driver API domains records the correlation id of every API call the thread makes;
// an activity record whose correlationId is one of them belongs to that run. Work issued outside
// any run (the L2-flush memset of kjudge's timing loop, input generation, ...) is counted apart
// and never enters a run's sum; flush memsets are recognised by their byte count as a sanity
// check (one per sample is expected).
//
// Contract: at most one tracer per process (CUPTI allows one subscriber; buffer callbacks are
// process-wide). Start() enables the activity kinds and the API callbacks and clears previous
// state; Stop() disables them, force-flushes CUPTI's buffers and returns the per-run totals.
// Between Stop() and the next Start() CUPTI collects nothing (the "CUPTI off" condition).
// Errors are absl::InternalError naming the CUPTI call and cuptiGetResultString's text.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"

namespace kjudge::bench {

struct RunActivity {
  int kernels = 0;
  int memcpys = 0;
  int memsets = 0;
  uint64_t busy_ns = 0;      // sum of (end - start) over the run's device activities
  uint64_t first_start = 0;  // earliest start (0 when the run had no activity)
  uint64_t last_end = 0;     // latest end
  int activities() const { return kernels + memcpys + memsets; }
  double busy_us() const { return static_cast<double>(busy_ns) / 1000.0; }
  // First start to last end: includes the gaps between the run's launches.
  double span_us() const {
    return last_end > first_start ? static_cast<double>(last_end - first_start) / 1000.0 : 0.0;
  }
};

struct Trace {
  std::vector<RunActivity> runs;  // indexed by run number (0 = first BeginRun after Start)
  int64_t flush_memsets = 0;      // uncorrelated memsets of exactly flush_bytes
  int64_t other_uncorrelated = 0; // any other device activity outside every run
  int64_t bad_timestamps = 0;     // records with start == 0 or end < start (skipped)
  uint64_t dropped_records = 0;   // as reported by cuptiActivityGetNumDroppedRecords
  std::set<std::string> kernel_names;  // kernels seen inside runs (mangled)
};

class CuptiTracer {
 public:
  // Registers the buffer callbacks and subscribes to API callbacks (both domains disabled until
  // Start()). Fails when CUPTI cannot be initialised (e.g. the library is unusable here).
  static absl::StatusOr<std::unique_ptr<CuptiTracer>> Create();
  ~CuptiTracer();
  CuptiTracer(const CuptiTracer&) = delete;
  CuptiTracer& operator=(const CuptiTracer&) = delete;

  absl::Status Start(uint64_t flush_bytes);
  absl::StatusOr<Trace> Stop();

  void BeginRun() { current_run_ = next_run_++; }
  void EndRun() { current_run_ = -1; }
  int runs_begun() const { return next_run_; }

  // CUPTI entry points (C callbacks forward here).
  void OnApiEnter(uint32_t correlation_id);
  void OnBufferCompleted(const uint8_t* buffer, size_t valid_size);

 private:
  CuptiTracer() = default;

  struct Raw {
    enum class Kind : uint8_t { kKernel, kMemcpy, kMemset } kind = Kind::kKernel;
    uint32_t correlation_id = 0;
    uint64_t start = 0;
    uint64_t end = 0;
    uint64_t bytes = 0;
    std::string name;  // kernels only
  };

  void* subscriber_ = nullptr;  // CUpti_SubscriberHandle
  bool active_ = false;
  uint64_t flush_bytes_ = 0;
  int current_run_ = -1;
  int next_run_ = 0;
  std::unordered_map<uint32_t, int> run_of_correlation_;  // main thread only

  std::mutex mu_;  // guards raw_ (buffers may complete on a CUPTI thread)
  std::vector<Raw> raw_;
};

}  // namespace kjudge::bench
