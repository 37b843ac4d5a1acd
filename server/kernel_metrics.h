// KernelMetrics: KernelBench's aggregate metrics over a set of judged jobs.
//
// Definitions (KernelBench, "fast_p"): over N counted jobs,
//   compile_rate     = jobs whose source compiled (any verdict but COMPILE_ERROR / REJECTED) / N
//   correctness_rate = CORRECT jobs / N
//   fast_p           = CORRECT jobs whose speedup over the baseline is > p, / N
//                      (fast_0 = correctness_rate when every correct job has a speedup)
//   geomean_speedup  = geometric mean of the speedups of CORRECT jobs that have one.
// A job's speedup over a baseline with several benchmark shapes is the geometric mean of its
// per-shape speedups. Contract: pure function, no I/O; N = 0 gives all-zero rates.
#pragma once

#include <string>
#include <vector>

#include "kjudge/v1/kjudge.pb.h"

namespace kjudge::server {

inline constexpr double kFastPThresholds[] = {0.0, 0.5, 0.8, 1.0, 1.5, 2.0};

// The speedup of one result against `baseline`, or a value <= 0 when it has none.
double JobSpeedup(const v1::JobResult& result, const std::string& baseline);

// fast_p at each p of `ps` (see the definitions above), in order: the fraction of `results` that
// are CORRECT with a speedup over `baseline` above p. The dashboard draws it as a curve.
std::vector<v1::FastP> FastPCurve(const std::vector<v1::JobResult>& results, const std::string& baseline,
                                  const std::vector<double>& ps);

v1::Stats ComputeStats(const std::vector<v1::JobResult>& results, const std::string& baseline);

}  // namespace kjudge::server
