// SampleStatistics: summary statistics of timing samples (microseconds), as reported in a
// Timing message. Pure C++, no CUDA.
//
// Contract: Summarize() of an empty span is all zeros. median is the middle sample (mean of
// the two middle ones for an even count, = p50); p95 and p99 interpolate linearly between
// closest ranks (numpy's default); std is the sample standard deviation (n - 1; 0 for one sample);
// rel_std_error = (std / sqrt(n)) / mean (0 when mean is 0).
#pragma once

#include <cstdint>
#include <span>

namespace kjudge {

struct SampleSummary {
  int64_t count = 0;
  double median = 0.0;
  double mean = 0.0;
  double std = 0.0;
  double min = 0.0;
  double max = 0.0;
  double p95 = 0.0;
  double p99 = 0.0;
  double rel_std_error = 0.0;
};

SampleSummary Summarize(std::span<const double> samples);

// Percentile p in [0, 100] of already sorted samples, linear interpolation between ranks.
double PercentileOfSorted(std::span<const double> sorted, double p);

// Relative standard error of the mean from running sums (used by the stopping rule too).
double RelativeStdError(int64_t count, double mean, double sum_sq_dev);

}  // namespace kjudge
