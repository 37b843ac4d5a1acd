#include "common/sample_statistics.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace kjudge {

double PercentileOfSorted(std::span<const double> sorted, double p) {
  if (sorted.empty()) return 0.0;
  const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(rank));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = rank - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

double RelativeStdError(int64_t count, double mean, double sum_sq_dev) {
  if (count < 2 || mean == 0.0) return 0.0;
  const auto n = static_cast<double>(count);
  const double std_dev = std::sqrt(sum_sq_dev / (n - 1.0));
  return std_dev / std::sqrt(n) / std::fabs(mean);
}

SampleSummary Summarize(std::span<const double> samples) {
  SampleSummary s;
  if (samples.empty()) return s;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  s.count = static_cast<int64_t>(sorted.size());
  s.min = sorted.front();
  s.max = sorted.back();
  s.median = PercentileOfSorted(sorted, 50.0);
  s.p95 = PercentileOfSorted(sorted, 95.0);
  s.p99 = PercentileOfSorted(sorted, 99.0);
  double sum = 0.0;
  for (double v : sorted) sum += v;
  s.mean = sum / static_cast<double>(s.count);
  double sq = 0.0;
  for (double v : sorted) sq += (v - s.mean) * (v - s.mean);
  s.std = s.count > 1 ? std::sqrt(sq / static_cast<double>(s.count - 1)) : 0.0;
  s.rel_std_error = RelativeStdError(s.count, s.mean, sq);
  return s;
}

}  // namespace kjudge
