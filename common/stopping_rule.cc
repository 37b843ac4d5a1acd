#include "common/stopping_rule.h"

#include "common/sample_statistics.h"

namespace kjudge {

std::string_view StopReasonName(StopReason reason) {
  switch (reason) {
    case StopReason::kNotYet: return "not yet";
    case StopReason::kConverged: return "converged";
    case StopReason::kTimeBudget: return "time budget";
    case StopReason::kMaxSamples: return "max samples";
  }
  return "?";
}

void StoppingRule::AddSample(double value) {
  ++count_;
  const double delta = value - mean_;
  mean_ += delta / static_cast<double>(count_);
  m2_ += delta * (value - mean_);
}

double StoppingRule::RelStdError() const { return RelativeStdError(count_, mean_, m2_); }

bool StoppingRule::ShouldStop(double elapsed_ms) {
  if (count_ >= criteria_.max_samples) {
    reason_ = StopReason::kMaxSamples;
  } else if (count_ >= criteria_.min_samples && elapsed_ms >= criteria_.min_time_ms &&
             RelStdError() < criteria_.max_rel_std_error) {
    reason_ = StopReason::kConverged;
  } else if (count_ >= 1 && elapsed_ms >= criteria_.time_budget_ms) {
    reason_ = StopReason::kTimeBudget;
  } else {
    reason_ = StopReason::kNotYet;
  }
  return reason_ != StopReason::kNotYet;
}

}  // namespace kjudge
