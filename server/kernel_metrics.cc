#include "server/kernel_metrics.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kjudge::server {
namespace {

// Each baseline's times per shape, derived from the results' speedups and timings.
struct BaselineTimes {
  std::set<std::string> shapes;  // the shapes of the choice (rule step 1)
  std::map<std::string, std::map<std::string, std::vector<double>>> times;  // name -> shape -> us
};

BaselineTimes CollectTimes(const std::vector<const v1::JobResult*>& results) {
  BaselineTimes out;
  for (const v1::JobResult* result : results) {
    for (const v1::ShapeTiming& timing : result->timings()) {
      const double median = timing.timing().median_us();
      if (!(median > 0.0)) continue;
      for (const v1::Speedup& speedup : result->speedups()) {
        if (speedup.shape() != timing.shape() || !(speedup.speedup() > 0.0)) continue;
        out.shapes.insert(timing.shape());
        out.times[speedup.baseline()][timing.shape()].push_back(speedup.speedup() * median);
      }
    }
  }
  return out;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2.0;
}

bool IsEligible(v1::BaselineKind kind) {
  return kind == v1::BASELINE_KIND_LIBRARY || kind == v1::BASELINE_KIND_PYTORCH_EAGER;
}

// Every baseline seen, strongest first: covering and eligible ones by geometric-mean time.
std::vector<v1::BaselineStrength> Strengths(const BaselineTimes& collected, const std::vector<std::string>& library) {
  std::vector<v1::BaselineStrength> out;
  for (const auto& [name, per_shape] : collected.times) {
    v1::BaselineStrength strength;
    strength.set_baseline(name);
    strength.set_kind(ClassifyBaseline(name, library));
    strength.set_eligible(IsEligible(strength.kind()));
    strength.set_covers_all_shapes(per_shape.size() == collected.shapes.size());
    double log_sum = 0.0;
    for (const auto& [shape, times] : per_shape) log_sum += std::log(Median(times));
    strength.set_geomean_us(std::exp(log_sum / static_cast<double>(per_shape.size())));
    out.push_back(std::move(strength));
  }
  auto rank = [](const v1::BaselineStrength& s) {
    // Comparable candidates first, then the fastest; library before eager on a tie.
    return std::make_tuple(!(s.eligible() && s.covers_all_shapes()), s.geomean_us(),
                           s.kind() != v1::BASELINE_KIND_LIBRARY, s.baseline());
  };
  std::sort(out.begin(), out.end(), [&](const auto& a, const auto& b) { return rank(a) < rank(b); });
  return out;
}

const v1::BaselineStrength* FindStrength(const v1::Denominator& d, const std::string& name) {
  for (const v1::BaselineStrength& s : d.considered()) {
    if (s.baseline() == name) return &s;
  }
  return nullptr;
}

std::string KindWords(v1::BaselineKind kind) {
  switch (kind) {
    case v1::BASELINE_KIND_LIBRARY: return "library";
    case v1::BASELINE_KIND_PYTORCH_EAGER: return "PyTorch eager, KernelBench's definition";
    case v1::BASELINE_KIND_REFERENCE_ONLY:
    case v1::BASELINE_KIND_REFERENCE: return "catalog kernel";
    case v1::BASELINE_KIND_PYTORCH_COMPILE: return "torch.compile";
    case v1::BASELINE_KIND_OTHER: return "imported";
    default: return "none";
  }
}

// Shared by both denominators: the shapes and every baseline seen.
v1::Denominator Describe(const std::vector<const v1::JobResult*>& results, const std::vector<std::string>& library) {
  const BaselineTimes collected = CollectTimes(results);
  v1::Denominator d;
  for (const std::string& shape : collected.shapes) d.add_shapes(shape);
  for (v1::BaselineStrength& s : Strengths(collected, library)) *d.add_considered() = std::move(s);
  return d;
}

void Take(const v1::BaselineStrength& chosen, v1::Denominator* d) {
  d->set_baseline(chosen.baseline());
  d->set_kind(chosen.kind());
  d->set_geomean_us(chosen.geomean_us());
}

}  // namespace

v1::BaselineKind ClassifyBaseline(const std::string& name, const std::vector<std::string>& library) {
  if (name == kReferenceBaseline) return v1::BASELINE_KIND_REFERENCE;
  if (IsTorchEagerBaseline(name)) return v1::BASELINE_KIND_PYTORCH_EAGER;
  if (std::find(library.begin(), library.end(), name) != library.end()) return v1::BASELINE_KIND_LIBRARY;
  if (name.rfind("torch_", 0) == 0) return v1::BASELINE_KIND_PYTORCH_COMPILE;
  return v1::BASELINE_KIND_OTHER;
}

v1::Denominator ChooseDenominator(const std::vector<const v1::JobResult*>& results,
                                  const std::vector<std::string>& library) {
  v1::Denominator d = Describe(results, library);
  d.set_is_default(true);
  const v1::BaselineStrength* best = d.considered().empty() ? nullptr : &d.considered(0);
  if (best != nullptr && best->eligible() && best->covers_all_shapes()) {
    int comparable = 0;
    for (const v1::BaselineStrength& s : d.considered()) comparable += s.eligible() && s.covers_all_shapes() ? 1 : 0;
    Take(*best, &d);
    d.set_note(absl::StrCat("vs ", best->baseline(), " (", KindWords(best->kind()), "; ",
                            comparable == 1 ? std::string("the only")
                                            : absl::StrCat("the strongest of ", comparable),
                            comparable == 1 ? " library or PyTorch eager baseline" : " library/PyTorch eager baselines",
                            " timed on every shape)"));
    return d;
  }
  const v1::BaselineStrength* reference = FindStrength(d, kReferenceBaseline);
  bool partial = false;  // an eligible baseline exists but misses a shape
  for (const v1::BaselineStrength& s : d.considered()) partial = partial || s.eligible();
  if (reference != nullptr && reference->covers_all_shapes()) {
    Take(*reference, &d);
    d.set_kind(v1::BASELINE_KIND_REFERENCE_ONLY);
    d.set_note(partial ? "vs reference (catalog kernel; no library or PyTorch baseline timed on every shape)"
                       : "vs reference (catalog kernel; no library or PyTorch baseline measured)");
    return d;
  }
  d.set_note(d.shapes().empty() ? "no speedups (no timed job with a baseline)"
                                 : "no speedups (no baseline timed on every shape)");
  return d;
}

v1::Denominator DescribeDenominator(const std::vector<const v1::JobResult*>& results,
                                    const std::vector<std::string>& library, const std::string& baseline) {
  v1::Denominator d = Describe(results, library);
  d.set_baseline(baseline);
  d.set_kind(ClassifyBaseline(baseline, library));
  const v1::BaselineStrength* found = FindStrength(d, baseline);
  if (found == nullptr) {
    d.set_note(absl::StrCat("vs ", baseline, " (asked for; no job here has a ", baseline, " time)"));
    return d;
  }
  d.set_geomean_us(found->geomean_us());
  d.set_note(absl::StrCat("vs ", baseline, " (", KindWords(d.kind()), "; asked for",
                          found->covers_all_shapes() ? "" : "; not timed on every shape", ")"));
  return d;
}

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

double PassAtKEstimate(int64_t n, int64_t c, int k) {
  if (n - c < k) return 1.0;  // every draw of k holds a correct one
  double none = 1.0;          // C(n-c, k) / C(n, k) = prod_{j=n-c+1}^{n} (1 - k/j)
  for (int64_t j = n - c + 1; j <= n; ++j) none *= 1.0 - static_cast<double>(k) / static_cast<double>(j);
  return 1.0 - none;
}

namespace {

// Counts over a set of jobs, each with its speedup against its own denominator.
struct Tally {
  int64_t jobs = 0, compile_only = 0, compiled = 0, correct = 0, with_speedup = 0;
  double log_sum = 0.0;
  std::vector<double> speedups;  // of correct jobs; 0 when a correct job has none
  std::map<std::string, int64_t> verdicts;

  void Add(const JudgedResult& judged, const std::string& baseline) {
    const v1::JobResult& result = judged.result;
    verdicts[v1::Verdict_Name(result.verdict())] += 1;
    if (result.verdict() != v1::COMPILE_ERROR && result.verdict() != v1::REJECTED) ++compiled;
    if (judged.compile_only) {
      ++compile_only;
      return;
    }
    ++jobs;
    if (result.verdict() != v1::CORRECT) return;
    ++correct;
    const double speedup = baseline.empty() ? 0.0 : JobSpeedup(result, baseline);
    speedups.push_back(speedup);
    if (speedup > 0.0) {
      log_sum += std::log(speedup);
      ++with_speedup;
    }
  }
  int64_t Faster(double p) const {
    int64_t fast = 0;
    for (double speedup : speedups) fast += speedup > p ? 1 : 0;
    return fast;
  }
  double Geomean() const { return with_speedup > 0 ? std::exp(log_sum / static_cast<double>(with_speedup)) : 0.0; }
  // Per job: fast_p at each p (empty when no job was judged: n/a).
  std::vector<v1::FastP> Curve(const std::vector<double>& ps) const {
    std::vector<v1::FastP> curve;
    if (jobs == 0) return curve;
    for (double p : ps) {
      v1::FastP& entry = curve.emplace_back();
      entry.set_p(p);
      entry.set_fraction(static_cast<double>(Faster(p)) / static_cast<double>(jobs));
    }
    return curve;
  }
};

const std::vector<double>& Thresholds() {
  static const std::vector<double> kPs(std::begin(kFastPThresholds), std::end(kFastPThresholds));
  return kPs;
}

void Append(std::vector<v1::FastP> entries, google::protobuf::RepeatedPtrField<v1::FastP>* out) {
  for (v1::FastP& entry : entries) *out->Add() = std::move(entry);
}

// The tallies of the run's problems (by name) and the problem set they are counted over.
struct PerProblem {
  std::map<std::string, Tally> tallies;
  std::set<std::string> set;
};

// mean over the set of `score(tally)`, 0 for a problem with no judged job.
template <typename Score>
double MeanOverSet(const PerProblem& per, Score score) {
  double sum = 0.0;
  for (const std::string& problem : per.set) {
    auto it = per.tallies.find(problem);
    if (it != per.tallies.end() && it->second.jobs > 0) sum += score(it->second);
  }
  return per.set.empty() ? 0.0 : sum / static_cast<double>(per.set.size());
}

// fast_p@1 at each p: each problem's fraction of judged jobs correct and faster than p.
std::vector<v1::FastP> ProblemCurve(const PerProblem& per, const std::vector<double>& ps) {
  std::vector<v1::FastP> curve;
  for (double p : ps) {
    v1::FastP& entry = curve.emplace_back();
    entry.set_p(p);
    entry.set_fraction(MeanOverSet(per, [p](const Tally& t) {
      return static_cast<double>(t.Faster(p)) / static_cast<double>(t.jobs);
    }));
  }
  return curve;
}

// pass@k and fast_p@k where every problem with a judged job has at least k of them.
void FillPassAtK(const PerProblem& per, v1::ProblemSetStats* out) {
  for (int k : kPassAtK) {
    bool defined = true;
    for (const auto& [problem, t] : per.tallies) defined = defined && (t.jobs == 0 || t.jobs >= k);
    if (!defined) continue;
    v1::PassAtK* entry = out->add_pass_at_k();
    entry->set_k(k);
    entry->set_fraction(MeanOverSet(per, [k](const Tally& t) { return PassAtKEstimate(t.jobs, t.correct, k); }));
    for (double p : kFastPThresholds) {
      v1::FastP* fast = entry->add_fast_p();
      fast->set_p(p);
      fast->set_fraction(MeanOverSet(per, [k, p](const Tally& t) { return PassAtKEstimate(t.jobs, t.Faster(p), k); }));
    }
  }
}

// Stats.per_problem; unset (n/a) when no job of the set was judged.
void FillPerProblem(const PerProblem& per, v1::Stats* stats) {
  int64_t judged = 0, with_speedup = 0;
  double log_sum = 0.0;
  v1::ProblemSetStats out;
  for (const std::string& problem : per.set) {
    auto it = per.tallies.find(problem);
    if (it == per.tallies.end() || it->second.jobs == 0) {
      if (out.unsubmitted_problems_size() < kMaxUnsubmittedListed) out.add_unsubmitted_problems(problem);
      continue;
    }
    ++judged;
    if (it->second.with_speedup > 0) {
      log_sum += std::log(it->second.Geomean());
      ++with_speedup;
    }
  }
  if (judged == 0) return;
  out.set_problems(static_cast<int64_t>(per.set.size()));
  out.set_judged(judged);
  out.set_unsubmitted(static_cast<int64_t>(per.set.size()) - judged);
  out.set_correctness(MeanOverSet(per, [](const Tally& t) {
    return static_cast<double>(t.correct) / static_cast<double>(t.jobs);
  }));
  Append(ProblemCurve(per, Thresholds()), out.mutable_fast_p());
  out.set_with_speedup(with_speedup);
  if (with_speedup > 0) out.set_geomean_speedup(std::exp(log_sum / static_cast<double>(with_speedup)));
  FillPassAtK(per, &out);
  *stats->mutable_per_problem() = std::move(out);
}

struct Row {
  std::string problem, gpu;
  std::vector<const JudgedResult*> results;
};

// One row per problem; a problem judged on several GPUs gets one per GPU (and one for its
// jobs judged on none, e.g. rejected at intake); with one GPU those join its row. With a
// problem set, only its problems, each of them with a row (empty when it has no job).
std::vector<Row> GroupRows(const std::vector<JudgedResult>& results, const std::set<std::string>& set) {
  std::map<std::string, std::map<std::string, std::vector<const JudgedResult*>>> by_problem;
  for (const std::string& problem : set) by_problem[problem];
  for (const JudgedResult& judged : results) {
    if (!set.empty() && !set.contains(judged.problem)) continue;
    by_problem[judged.problem][judged.result.gpu()].push_back(&judged);
  }
  std::vector<Row> rows;
  for (auto& [problem, by_gpu] : by_problem) {
    const size_t gpus = by_gpu.size() - (by_gpu.contains("") ? 1 : 0);
    if (gpus <= 1) {
      Row row{problem, "", {}};
      for (auto& [gpu, list] : by_gpu) {
        if (!gpu.empty()) row.gpu = gpu;
        row.results.insert(row.results.end(), list.begin(), list.end());
      }
      rows.push_back(std::move(row));
      continue;
    }
    for (auto& [gpu, list] : by_gpu) rows.push_back(Row{problem, gpu, std::move(list)});
  }
  return rows;
}

const std::vector<std::string>& LibraryOf(const LibraryNames& library, const std::string& problem) {
  static const std::vector<std::string> kNone;
  auto it = library.find(problem);
  return it == library.end() ? kNone : it->second;
}

// The results a row's denominator is chosen over: its judged jobs.
std::vector<const v1::JobResult*> JudgedOf(const Row& row) {
  std::vector<const v1::JobResult*> out;
  for (const JudgedResult* judged : row.results) {
    if (!judged->compile_only) out.push_back(&judged->result);
  }
  return out;
}

// One Stats.problems row: its denominator and counts; adds its jobs to `total` and `per`.
// Returns whether any of its jobs has a torch_eager speedup.
bool FillRow(const Row& row, const std::string& baseline, const LibraryNames& library, v1::ProblemStats* out,
             Tally* total, PerProblem* per) {
  const std::vector<std::string>& names = LibraryOf(library, row.problem);
  const std::vector<const v1::JobResult*> judged = JudgedOf(row);
  out->set_problem(row.problem);
  out->set_gpu(row.gpu);
  *out->mutable_denominator() =
      baseline.empty() ? ChooseDenominator(judged, names) : DescribeDenominator(judged, names, baseline);
  if (row.results.empty()) {
    out->set_unsubmitted(true);
    out->mutable_denominator()->set_note("not submitted: counts as a failure (the problem set names it)");
  }
  Tally tally, eager;
  Tally& problem = per->tallies[row.problem];
  for (const JudgedResult* result : row.results) {
    tally.Add(*result, out->denominator().baseline());
    total->Add(*result, out->denominator().baseline());
    problem.Add(*result, out->denominator().baseline());
    eager.Add(*result, kTorchEagerBaseline);
  }
  out->set_jobs(tally.jobs);
  out->set_compile_only_jobs(tally.compile_only);
  out->set_compiled(tally.compiled);
  out->set_correct(tally.correct);
  out->set_with_speedup(tally.with_speedup);
  out->set_geomean_speedup(tally.Geomean());
  Append(tally.Curve(Thresholds()), out->mutable_fast_p());
  out->set_torch_eager_geomean_speedup(eager.Geomean());
  out->set_torch_eager_with_speedup(eager.with_speedup);
  return eager.with_speedup > 0;
}

void FillTotals(const Tally& total, v1::Stats* stats) {
  const int64_t all = total.jobs + total.compile_only;
  stats->set_jobs(total.jobs);
  stats->set_compile_only_jobs(total.compile_only);
  stats->set_compiled(total.compiled);
  stats->set_correct(total.correct);
  stats->set_with_speedup(total.with_speedup);
  if (all > 0) stats->set_compile_rate(static_cast<double>(total.compiled) / static_cast<double>(all));
  if (total.jobs > 0) stats->set_correctness_rate(static_cast<double>(total.correct) / static_cast<double>(total.jobs));
  if (total.with_speedup > 0) stats->set_geomean_speedup(total.Geomean());
  Append(total.Curve(Thresholds()), stats->mutable_fast_p());
  for (const auto& [verdict, count] : total.verdicts) (*stats->mutable_verdicts())[verdict] = count;
}

}  // namespace

v1::Stats ComputeStats(const std::vector<JudgedResult>& results, const std::string& baseline,
                       const LibraryNames& library, const std::vector<double>& curve_ps,
                       std::vector<v1::FastP>* curve, const std::vector<std::string>& problem_set) {
  v1::Stats stats;
  stats.set_baseline(baseline.empty() ? kStrongestBaseline : baseline);
  stats.set_default_baseline(baseline.empty());
  Tally total;
  PerProblem per;
  per.set.insert(problem_set.begin(), problem_set.end());
  bool any_eager = false;
  for (const Row& row : GroupRows(results, per.set)) {
    any_eager = FillRow(row, baseline, library, stats.add_problems(), &total, &per) || any_eager;
  }
  if (problem_set.empty()) {
    for (const auto& [problem, tally] : per.tallies) {
      if (tally.jobs > 0) per.set.insert(problem);
    }
  }
  FillTotals(total, &stats);
  FillPerProblem(per, &stats);
  if (curve != nullptr) *curve = stats.has_per_problem() ? ProblemCurve(per, curve_ps) : std::vector<v1::FastP>{};
  if (baseline.empty() && any_eager) {
    *stats.mutable_kernelbench() = ComputeStats(results, kTorchEagerBaseline, library, {}, nullptr, problem_set);
    stats.mutable_kernelbench()->clear_problems();  // the rows carry their eager numbers already
  }
  return stats;
}

std::vector<v1::FastP> FastPCurve(const std::vector<JudgedResult>& results, const std::string& baseline,
                                  const LibraryNames& library, const std::vector<double>& ps,
                                  const std::vector<std::string>& problem_set) {
  std::vector<v1::FastP> curve;
  ComputeStats(results, baseline, library, ps, &curve, problem_set);
  return curve;
}

}  // namespace kjudge::server
