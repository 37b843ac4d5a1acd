// `kjudge stats`: prints GetStats' numbers; computes none of them (server/kernel_metrics.h
// does, docs/metrics.md defines them). "n/a" wherever the server sent nothing (nothing measured).
#include <iostream>
#include <set>

#include "common/oracle_baselines.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/commands.h"
#include "proto/proto_json.h"

namespace kjudge::client {
namespace {

constexpr char kNotApplicable[] = "n/a";

std::string FastAt(const google::protobuf::RepeatedPtrField<v1::FastP>& fast_p, double p) {
  for (const v1::FastP& entry : fast_p) {
    if (entry.p() == p) return absl::StrFormat("%.3f", entry.fraction());
  }
  return kNotApplicable;
}

std::string Speedup(double value) { return value > 0 ? absl::StrFormat("%.3fx", value) : "-"; }

std::string Percent(bool present, double value) {
  return present ? absl::StrFormat("%.1f%%", 100 * value) : std::string(kNotApplicable);
}

// One row per problem (and GPU): its counts, then the denominator it used, in words.
void PrintProblems(const v1::Stats& stats) {
  std::set<std::string> gpus;
  for (const v1::ProblemStats& row : stats.problems()) gpus.insert(row.gpu());
  const bool show_gpu = gpus.size() > 1;
  std::cout << absl::StrFormat("%-48s %5s %7s %7s %7s %9s %11s  %s\n", "problem", "n", "c-only", "correct", "fast_1",
                               "geomean", "KernelBench", "denominator");
  for (const v1::ProblemStats& row : stats.problems()) {
    std::string name = row.problem();
    if (show_gpu) name += " @ " + (row.gpu().empty() ? std::string("no GPU") : row.gpu());
    std::cout << absl::StrFormat("%-48s %5d %7d %7d %7s %9s %11s  %s\n", name, row.jobs(), row.compile_only_jobs(),
                                 row.correct(), FastAt(row.fast_p(), 1.0), Speedup(row.geomean_speedup()),
                                 Speedup(row.torch_eager_geomean_speedup()), row.denominator().note());
  }
}

void PrintFastP(const std::string& label, const v1::Stats& stats) {
  std::cout << "per job, fast_p vs " << label << ":";
  if (stats.fast_p().empty()) std::cout << " n/a (no judged job)";
  for (const v1::FastP& entry : stats.fast_p()) std::cout << absl::StrFormat("  fast_%g %.3f", entry.p(), entry.fraction());
  std::cout << "\nper job, geometric-mean speedup "
            << (stats.has_geomean_speedup() ? absl::StrFormat("%.3fx", stats.geomean_speedup()) : kNotApplicable)
            << absl::StrFormat(" over %d correct job(s) with a time\n", stats.with_speedup());
}

void PrintPassAtK(const v1::ProblemSetStats& p) {
  std::cout << "  pass@k:";
  for (int k : {1, 5, 10}) {
    const v1::PassAtK* found = nullptr;
    for (const v1::PassAtK& entry : p.pass_at_k()) found = entry.k() == k ? &entry : found;
    if (found == nullptr) {
      std::cout << absl::StrFormat("  pass@%d n/a", k);
      continue;
    }
    std::cout << absl::StrFormat("  pass@%d %.3f (fast_1@%d %s)", k, found->fraction(), k, FastAt(found->fast_p(), 1.0));
  }
  std::cout << "   (n/a: some problem has fewer judged jobs than k)\n";
}

// KernelBench's numbers: one result per problem of the run's problem set.
void PrintPerProblem(const std::string& label, const v1::Stats& stats) {
  if (!stats.has_per_problem()) {
    std::cout << "per problem (KernelBench) vs " << label << ": n/a (no judged job)\n";
    return;
  }
  const v1::ProblemSetStats& p = stats.per_problem();
  std::cout << absl::StrFormat("per problem (KernelBench: one result per problem) vs %s, over %d problem(s): "
                               "%d judged, %d with no judged job (failures)\n",
                               label, p.problems(), p.judged(), p.unsubmitted());
  std::cout << absl::StrFormat("  correct %.3f  ", p.correctness());
  for (const v1::FastP& entry : p.fast_p()) std::cout << absl::StrFormat("  fast_%g %.3f", entry.p(), entry.fraction());
  std::cout << "\n  geometric-mean speedup "
            << (p.has_geomean_speedup() ? absl::StrFormat("%.3fx", p.geomean_speedup()) : kNotApplicable)
            << absl::StrFormat(" over %d problem(s) with a time\n", p.with_speedup());
  PrintPassAtK(p);
  if (p.unsubmitted() > 0) {
    std::cout << "  no judged job: " << absl::StrJoin(p.unsubmitted_problems(), " ")
              << (p.unsubmitted() > p.unsubmitted_problems_size() ? " ..." : "") << "\n";
  }
}

std::string Label(const v1::Stats& stats) {
  if (stats.default_baseline()) return "each problem's denominator above (its strongest baseline)";
  return stats.baseline() + (stats.baseline() == kTorchEagerBaseline ? " (PyTorch eager: KernelBench's definition)" : "");
}

void PrintStats(const v1::Stats& stats) {
  std::cout << absl::StrFormat("jobs %d judged + %d compile-only   compiled %d (%s)   correct %d (%s of judged)\n",
                               stats.jobs(), stats.compile_only_jobs(), stats.compiled(),
                               Percent(stats.has_compile_rate(), stats.compile_rate()), stats.correct(),
                               Percent(stats.has_correctness_rate(), stats.correctness_rate()));
  if (!stats.problems().empty()) PrintProblems(stats);
  PrintPerProblem(Label(stats), stats);
  PrintFastP(Label(stats), stats);
  if (stats.has_kernelbench()) {
    const std::string eager = "torch_eager (PyTorch eager: KernelBench's definition)";
    PrintPerProblem(eager, stats.kernelbench());
    PrintFastP(eager, stats.kernelbench());
  }
  for (const auto& [verdict, count] : stats.verdicts()) std::cout << "  " << verdict << " " << count << "\n";
}

}  // namespace

int ShowStats(CliContext& cli, const StatsArgs& args) {
  v1::GetStatsRequest request;
  if (!ParseTags(args.tags, request.mutable_tags())) return kUsage;
  request.set_baseline(args.kernelbench ? kTorchEagerBaseline : args.baseline);
  request.set_problem_prefix(args.problem_prefix);
  request.set_public_only(args.public_only);
  for (const std::string& name : args.problem_set) request.add_problem_set(name);
  request.set_prefix_is_problem_set(args.prefix_is_problem_set);
  grpc::ClientContext context;
  cli.Prepare(&context, 30);
  v1::Stats stats;
  grpc::Status status = cli.stub->GetStats(&context, request, &stats);
  if (!status.ok()) return cli.Fail(status, "computing stats");
  if (cli.json) {
    std::cout << ToJson(stats) << "\n";
    return kOk;
  }
  PrintStats(stats);
  return kOk;
}

}  // namespace kjudge::client
