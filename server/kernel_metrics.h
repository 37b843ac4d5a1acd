// KernelMetrics: KernelBench's aggregate metrics over a set of judged jobs, and THE rule that
// picks the denominator of a speedup when none is asked for. Nothing else computes either:
// GetStats, the default denominator stored with every job result, and (through those) the CLI,
// the Python client and the dashboard all come from here. docs/metrics.md states the rules.
//
// Per job (Stats' own fields), over N judged jobs (finished, not compile-only, not cancelled)
// and C compile-only jobs:
//   compile_rate     = jobs whose source compiled (any verdict but COMPILE_ERROR / REJECTED),
//                      judged or compile-only, / (N + C)
//   correctness_rate = CORRECT jobs / N
//   fast_p           = CORRECT jobs whose speedup over the denominator is > p, / N
//   geomean_speedup  = geometric mean of the speedups of CORRECT jobs that have one.
// Per problem (Stats.per_problem, KernelBench's "one result per problem"), over the run's
// problem set P (given, or the problems with a judged job); problem i has n_i judged jobs,
// c_i CORRECT, f_i(p) CORRECT with speedup > p; a problem with n_i = 0 contributes 0:
//   correctness      = mean_i c_i / n_i                       (= pass@1)
//   fast_p (@1)      = mean_i f_i(p) / n_i                    (one job each: KernelBench's fast_p)
//   pass@k           = mean_i 1 - C(n_i - c_i, k) / C(n_i, k) (Chen et al. 2021), for k in
//                      {1, 5, 10} where every problem with a judged job has n_i >= k
//   fast_p@k         = the same with f_i(p) for c_i
//   geomean_speedup  = geometric mean over problems of g_i, the geomean of problem i's CORRECT
//                      jobs' speedups (problems without one are left out: with_speedup says how many)
// "n/a" is absence: an unset optional or an empty list where nothing was measured (no judged
// job: no correctness, fast_p, geomean or per_problem; no job at all: no compile_rate).
// A job's speedup over a baseline with several benchmark shapes is the geometric mean of its
// per-shape speedups.
//
// The default denominator ("strongest"), chosen per problem and GPU over that group's results:
//   1. The shapes of the choice are every shape at which a job of the group was timed and has
//      at least one speedup.
//   2. A baseline's time at a shape is speedup x the candidate's median there (exactly the
//      baseline median the job was compared with); over several jobs, the median of those.
//   3. Eligible: the problem's library baselines ([[baseline]] names) and both PyTorch eager
//      baselines ("torch_eager", KernelBench's; "torch_eager_fp32", strict fp32). One
//      that was not timed on every shape of the choice is not comparable and is left out.
//   4. The strongest is the eligible baseline with the lowest geometric-mean time over the
//      shapes (ties: library before eager, then by name). None: "reference" if it covers the
//      shapes (kind REFERENCE_ONLY, and the note says so), else no denominator at all.
// torch_compile is not eligible: it is a separate comparison, one flag away (--baseline).
// Contract: pure functions, no I/O.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/oracle_baselines.h"
#include "kjudge/v1/kjudge.pb.h"

namespace kjudge::server {

inline constexpr double kFastPThresholds[] = {0.0, 0.5, 0.8, 1.0, 1.5, 2.0};
inline constexpr int kPassAtK[] = {1, 5, 10};
// Stats.per_problem.unsubmitted_problems lists at most this many names (the count is exact).
inline constexpr int kMaxUnsubmittedListed = 100;
inline constexpr char kReferenceBaseline[] = "reference";
// The oracle's baselines (torch_eager, torch_eager_fp32, torch_compile) are named once, in
// common/oracle_baselines.h.
using ::kjudge::kTorchEagerBaseline;
// PyTorch's torch.compile of the problem's module: shown, never the default denominator.
using ::kjudge::kTorchCompileBaseline;
using ::kjudge::kTorchEagerFp32Baseline;
// Stats.baseline when each problem used its own strongest baseline.
inline constexpr char kStrongestBaseline[] = "strongest";

// Library baseline names ([[baseline]] of problem.toml) per problem, from the catalog.
using LibraryNames = std::map<std::string, std::vector<std::string>>;

// What `name` is for a problem whose library baselines are `library`. "reference" is
// REFERENCE (ChooseDenominator turns it into REFERENCE_ONLY when it is the fallback).
v1::BaselineKind ClassifyBaseline(const std::string& name, const std::vector<std::string>& library);

// The default denominator of these results of one problem on one GPU (rule above).
v1::Denominator ChooseDenominator(const std::vector<const v1::JobResult*>& results,
                                  const std::vector<std::string>& library);

// The same description for a baseline asked for by name (is_default false); its note says
// when it covers no shape of these results.
v1::Denominator DescribeDenominator(const std::vector<const v1::JobResult*>& results,
                                    const std::vector<std::string>& library, const std::string& baseline);

// The speedup of one result against `baseline`, or a value <= 0 when it has none.
double JobSpeedup(const v1::JobResult& result, const std::string& baseline);

// One finished job: its problem (for the per-problem denominator) and its result. A
// compile-only job counts in compile_rate (and verdicts) only.
struct JudgedResult {
  std::string problem;
  v1::JobResult result;
  bool compile_only = false;
};

// Stats against `baseline`, or with "" each problem's (and GPU's) default denominator; one
// Stats.problems row per problem and GPU either way.
// `problem_set` (sorted or not, duplicates ignored): the run's problems. Non-empty: results of
// other problems are left out, and each problem of the set with no job at all gets a row
// marked unsubmitted; per_problem counts every problem of the set. Empty: the set is the
// problems with a judged job.
// With `curve`, also per-problem fast_p (@1) at each p of `curve_ps` over the same
// denominators (FastPCurve's numbers, without a second pass over the results).
v1::Stats ComputeStats(const std::vector<JudgedResult>& results, const std::string& baseline,
                       const LibraryNames& library, const std::vector<double>& curve_ps = {},
                       std::vector<v1::FastP>* curve = nullptr, const std::vector<std::string>& problem_set = {});

// Per-problem fast_p (@1) at each p of `ps` (see the definitions above), in order, with the
// denominators ComputeStats uses for the same arguments (baseline "": each problem's
// default). Empty when no job was judged (n/a, not zeros). The dashboard draws it as a curve.
std::vector<v1::FastP> FastPCurve(const std::vector<JudgedResult>& results, const std::string& baseline,
                                  const LibraryNames& library, const std::vector<double>& ps,
                                  const std::vector<std::string>& problem_set = {});

// Chen et al.'s unbiased pass@k estimator for one problem: 1 - C(n-c, k) / C(n, k), computed
// as a product (no overflow). Requires 0 <= c <= n and 1 <= k <= n.
double PassAtKEstimate(int64_t n, int64_t c, int k);

}  // namespace kjudge::server
