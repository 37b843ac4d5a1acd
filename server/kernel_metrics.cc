#include "server/kernel_metrics.h"

#include <cmath>
#include <iterator>

namespace kjudge::server {

double JobSpeedup(const v1::JobResult& result, const std::string& baseline) {
  double log_sum = 0.0;
  int shapes = 0;
  for (const v1::Speedup& speedup : result.speedups()) {
    if (speedup.baseline() != baseline || !(speedup.speedup() > 0.0)) continue;
    log_sum += std::log(speedup.speedup());
    ++shapes;
  }
  return shapes == 0 ? 0.0 : std::exp(log_sum / shapes);
}

v1::Stats ComputeStats(const std::vector<v1::JobResult>& results, const std::string& baseline) {
  v1::Stats stats;
  stats.set_baseline(baseline);
  stats.set_jobs(static_cast<int64_t>(results.size()));
  double log_sum = 0.0;
  for (const v1::JobResult& result : results) {
    (*stats.mutable_verdicts())[v1::Verdict_Name(result.verdict())] += 1;
    if (result.verdict() != v1::COMPILE_ERROR && result.verdict() != v1::REJECTED) {
      stats.set_compiled(stats.compiled() + 1);
    }
    if (result.verdict() != v1::CORRECT) continue;
    stats.set_correct(stats.correct() + 1);
    const double speedup = JobSpeedup(result, baseline);
    if (speedup > 0.0) {
      log_sum += std::log(speedup);
      stats.set_with_speedup(stats.with_speedup() + 1);
    }
  }
  const double n = static_cast<double>(results.size());
  stats.set_compile_rate(n > 0 ? static_cast<double>(stats.compiled()) / n : 0.0);
  stats.set_correctness_rate(n > 0 ? static_cast<double>(stats.correct()) / n : 0.0);
  stats.set_geomean_speedup(stats.with_speedup() > 0 ? std::exp(log_sum / static_cast<double>(stats.with_speedup())) : 0.0);
  const std::vector<double> ps(std::begin(kFastPThresholds), std::end(kFastPThresholds));
  for (v1::FastP& entry : FastPCurve(results, baseline, ps)) *stats.add_fast_p() = std::move(entry);
  return stats;
}

std::vector<v1::FastP> FastPCurve(const std::vector<v1::JobResult>& results, const std::string& baseline,
                                  const std::vector<double>& ps) {
  std::vector<double> speedups;  // of correct jobs; 0 when a correct job has none
  for (const v1::JobResult& result : results) {
    if (result.verdict() == v1::CORRECT) speedups.push_back(JobSpeedup(result, baseline));
  }
  const double n = static_cast<double>(results.size());
  std::vector<v1::FastP> curve;
  curve.reserve(ps.size());
  for (double p : ps) {
    int64_t fast = 0;
    for (double speedup : speedups) fast += speedup > p ? 1 : 0;
    v1::FastP& entry = curve.emplace_back();
    entry.set_p(p);
    entry.set_fraction(n > 0 ? static_cast<double>(fast) / n : 0.0);
  }
  return curve;
}

}  // namespace kjudge::server
