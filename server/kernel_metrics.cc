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
  if (name == kTorchEagerBaseline) return v1::BASELINE_KIND_PYTORCH_EAGER;
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

namespace {

// Counts over a set of jobs, each with its speedup against its own denominator.
struct Tally {
  int64_t jobs = 0, compiled = 0, correct = 0, with_speedup = 0;
  double log_sum = 0.0;
  std::vector<double> speedups;  // of correct jobs; 0 when a correct job has none
  std::map<std::string, int64_t> verdicts;

  void Add(const v1::JobResult& result, const std::string& baseline) {
    ++jobs;
    verdicts[v1::Verdict_Name(result.verdict())] += 1;
    if (result.verdict() != v1::COMPILE_ERROR && result.verdict() != v1::REJECTED) ++compiled;
    if (result.verdict() != v1::CORRECT) return;
    ++correct;
    const double speedup = baseline.empty() ? 0.0 : JobSpeedup(result, baseline);
    speedups.push_back(speedup);
    if (speedup > 0.0) {
      log_sum += std::log(speedup);
      ++with_speedup;
    }
  }
  double Geomean() const { return with_speedup > 0 ? std::exp(log_sum / static_cast<double>(with_speedup)) : 0.0; }
  std::vector<v1::FastP> Curve(const std::vector<double>& ps) const {
    const double n = static_cast<double>(jobs);
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
  void FillFastP(google::protobuf::RepeatedPtrField<v1::FastP>* out) const {
    for (v1::FastP& entry : Curve({std::begin(kFastPThresholds), std::end(kFastPThresholds)})) {
      *out->Add() = std::move(entry);
    }
  }
};

struct Row {
  std::string problem, gpu;
  std::vector<const v1::JobResult*> results;
};

// One row per problem; a problem judged on several GPUs gets one per GPU (and one for its
// jobs judged on none, e.g. rejected at intake); with one GPU those join its row.
std::vector<Row> GroupRows(const std::vector<JudgedResult>& results) {
  std::map<std::string, std::map<std::string, std::vector<const v1::JobResult*>>> by_problem;
  for (const JudgedResult& judged : results) by_problem[judged.problem][judged.result.gpu()].push_back(&judged.result);
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

}  // namespace

v1::Stats ComputeStats(const std::vector<JudgedResult>& results, const std::string& baseline,
                       const LibraryNames& library, const std::vector<double>& curve_ps,
                       std::vector<v1::FastP>* curve) {
  v1::Stats stats;
  stats.set_baseline(baseline.empty() ? kStrongestBaseline : baseline);
  stats.set_default_baseline(baseline.empty());
  Tally total;
  bool any_eager = false;
  for (const Row& row : GroupRows(results)) {
    const std::vector<std::string>& names = LibraryOf(library, row.problem);
    v1::ProblemStats* out = stats.add_problems();
    out->set_problem(row.problem);
    out->set_gpu(row.gpu);
    *out->mutable_denominator() = baseline.empty() ? ChooseDenominator(row.results, names)
                                                   : DescribeDenominator(row.results, names, baseline);
    Tally tally, eager;
    for (const v1::JobResult* result : row.results) {
      tally.Add(*result, out->denominator().baseline());
      total.Add(*result, out->denominator().baseline());
      eager.Add(*result, kTorchEagerBaseline);
    }
    out->set_jobs(tally.jobs);
    out->set_correct(tally.correct);
    out->set_with_speedup(tally.with_speedup);
    out->set_geomean_speedup(tally.Geomean());
    tally.FillFastP(out->mutable_fast_p());
    out->set_torch_eager_geomean_speedup(eager.Geomean());
    out->set_torch_eager_with_speedup(eager.with_speedup);
    any_eager = any_eager || eager.with_speedup > 0;
  }
  const double n = static_cast<double>(total.jobs);
  stats.set_jobs(total.jobs);
  stats.set_compiled(total.compiled);
  stats.set_correct(total.correct);
  stats.set_with_speedup(total.with_speedup);
  stats.set_compile_rate(n > 0 ? static_cast<double>(total.compiled) / n : 0.0);
  stats.set_correctness_rate(n > 0 ? static_cast<double>(total.correct) / n : 0.0);
  stats.set_geomean_speedup(total.Geomean());
  total.FillFastP(stats.mutable_fast_p());
  if (curve != nullptr) *curve = total.Curve(curve_ps);
  for (const auto& [verdict, count] : total.verdicts) (*stats.mutable_verdicts())[verdict] = count;
  if (baseline.empty() && any_eager) {
    *stats.mutable_kernelbench() = ComputeStats(results, kTorchEagerBaseline, library);
    stats.mutable_kernelbench()->clear_problems();  // the rows carry their eager numbers already
  }
  return stats;
}

std::vector<v1::FastP> FastPCurve(const std::vector<JudgedResult>& results, const std::string& baseline,
                                  const LibraryNames& library, const std::vector<double>& ps) {
  std::vector<v1::FastP> curve;
  ComputeStats(results, baseline, library, ps, &curve);
  return curve;
}

}  // namespace kjudge::server
