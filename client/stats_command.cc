#include <iostream>
#include <set>

#include "absl/strings/str_format.h"
#include "client/commands.h"
#include "proto/proto_json.h"

namespace kjudge::client {
namespace {

double FastOne(const google::protobuf::RepeatedPtrField<v1::FastP>& fast_p) {
  for (const v1::FastP& entry : fast_p) {
    if (entry.p() == 1.0) return entry.fraction();
  }
  return 0.0;
}

std::string Speedup(double value) { return value > 0 ? absl::StrFormat("%.3fx", value) : "-"; }

// One row per problem (and GPU): its counts, then the denominator it used, in words.
void PrintProblems(const v1::Stats& stats) {
  std::set<std::string> gpus;
  for (const v1::ProblemStats& row : stats.problems()) gpus.insert(row.gpu());
  const bool show_gpu = gpus.size() > 1;
  std::cout << absl::StrFormat("%-48s %5s %7s %7s %9s %11s  %s\n", "problem", "n", "correct", "fast_1", "geomean",
                               "KernelBench", "denominator");
  for (const v1::ProblemStats& row : stats.problems()) {
    std::string name = row.problem();
    if (show_gpu) name += " @ " + (row.gpu().empty() ? std::string("no GPU") : row.gpu());
    std::cout << absl::StrFormat("%-48s %5d %7d %7.3f %9s %11s  %s\n", name, row.jobs(), row.correct(),
                                 FastOne(row.fast_p()), Speedup(row.geomean_speedup()),
                                 Speedup(row.torch_eager_geomean_speedup()), row.denominator().note());
  }
}

void PrintFastP(const std::string& label, const v1::Stats& stats) {
  std::cout << "fast_p vs " << label << ":";
  for (const v1::FastP& entry : stats.fast_p()) std::cout << absl::StrFormat("  fast_%g %.3f", entry.p(), entry.fraction());
  std::cout << absl::StrFormat("\ngeometric-mean speedup %.3fx over %d correct job(s) with a time vs %s\n",
                               stats.geomean_speedup(), stats.with_speedup(), label);
}

}  // namespace

int ShowStats(CliContext& cli, const StatsArgs& args) {
  v1::GetStatsRequest request;
  if (!ParseTags(args.tags, request.mutable_tags())) return kUsage;
  request.set_baseline(args.kernelbench ? "torch_eager" : args.baseline);
  request.set_problem_prefix(args.problem_prefix);
  request.set_public_only(args.public_only);
  grpc::ClientContext context;
  cli.Prepare(&context, 30);
  v1::Stats stats;
  grpc::Status status = cli.stub->GetStats(&context, request, &stats);
  if (!status.ok()) return cli.Fail(status, "computing stats");
  if (cli.json) {
    std::cout << ToJson(stats) << "\n";
    return kOk;
  }
  std::cout << absl::StrFormat("jobs %d   compiled %d (%.1f%%)   correct %d (%.1f%%)\n", stats.jobs(),
                               stats.compiled(), 100 * stats.compile_rate(), stats.correct(),
                               100 * stats.correctness_rate());
  if (!stats.problems().empty()) PrintProblems(stats);
  if (stats.default_baseline()) {
    PrintFastP("each problem's denominator above (its strongest baseline)", stats);
  } else {
    PrintFastP(stats.baseline() + (stats.baseline() == "torch_eager" ? " (PyTorch eager: KernelBench's definition)" : ""),
               stats);
  }
  if (stats.has_kernelbench()) PrintFastP("torch_eager (PyTorch eager: KernelBench's definition)", stats.kernelbench());
  for (const auto& [verdict, count] : stats.verdicts()) std::cout << "  " << verdict << " " << count << "\n";
  return kOk;
}

}  // namespace kjudge::client
