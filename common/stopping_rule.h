// StoppingRule: when to stop taking timing samples (nvbench style: the criterion is its own
// small object, fed one sample at a time). Pure C++, no CUDA.
//
// Contract: ShouldStop(elapsed_ms) is true once
//   * count >= max_samples                                   (reason kMaxSamples), or
//   * count >= min_samples and relative standard error of the mean < target
//                                                            (reason kConverged), or
//   * count >= 1 and elapsed_ms >= time_budget_ms            (reason kTimeBudget).
// Checked in that order. Statistics are kept with Welford's running algorithm.
#pragma once

#include <cstdint>
#include <string_view>

namespace kjudge {

struct StoppingCriteria {
  int64_t min_samples = 10;
  int64_t max_samples = 1000;
  double max_rel_std_error = 0.005;
  double time_budget_ms = 2000.0;
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
