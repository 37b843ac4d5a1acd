// StoppingRule: when to stop taking timing samples (nvbench style: the criterion is its own
// small object, fed one sample at a time). Pure C++, no CUDA.
//
// Contract: ShouldStop(elapsed_ms) is true once
//   * count >= max_samples                                   (reason kMaxSamples), or
//   * count >= min_samples, elapsed_ms >= min_time_ms and relative standard error of the
//     mean < target                                          (reason kConverged), or
//   * count >= 1 and elapsed_ms >= time_budget_ms            (reason kTimeBudget).
// Checked in that order. Statistics are kept with Welford's running algorithm.
// Why min_time_ms: ten samples of a short kernel converge in a millisecond, but their median
// still moves by ~1% from one job to the next (measured: 256 MiB copy, 1.2% spread over five
// jobs of 10 samples). Sampling for at least min_time_ms costs little (a sample of a 100 us
// kernel takes ~0.3 ms with the L2 flush and checks) and steadies the median; long kernels
// reach it within their first ten samples anyway.
#pragma once

#include <cstdint>
#include <string_view>

namespace kjudge {

struct StoppingCriteria {
  int64_t min_samples = 10;
  int64_t max_samples = 1000;
  double max_rel_std_error = 0.005;
  double time_budget_ms = 2000.0;
  double min_time_ms = 30.0;
};

enum class StopReason { kNotYet, kConverged, kTimeBudget, kMaxSamples };
std::string_view StopReasonName(StopReason reason);

class StoppingRule {
 public:
  explicit StoppingRule(StoppingCriteria criteria) : criteria_(criteria) {}

  void AddSample(double value);
  bool ShouldStop(double elapsed_ms);
  StopReason reason() const { return reason_; }
  int64_t count() const { return count_; }
  double mean() const { return mean_; }
  double RelStdError() const;

 private:
  StoppingCriteria criteria_;
  int64_t count_ = 0;
  double mean_ = 0.0;
  double m2_ = 0.0;
  StopReason reason_ = StopReason::kNotYet;
};

}  // namespace kjudge
