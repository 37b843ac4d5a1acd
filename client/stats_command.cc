#include <iostream>

#include "absl/strings/str_format.h"
#include "client/commands.h"
#include "proto/proto_json.h"

namespace kjudge::client {

int ShowStats(CliContext& cli, const StatsArgs& args) {
  v1::GetStatsRequest request;
  if (!ParseTags(args.tags, request.mutable_tags())) return kUsage;
  request.set_baseline(args.baseline);
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
  std::cout << "fast_p vs " << stats.baseline() << ":";
  for (const v1::FastP& entry : stats.fast_p()) {
    std::cout << absl::StrFormat("  fast_%g %.3f", entry.p(), entry.fraction());
  }
  std::cout << absl::StrFormat("\ngeometric-mean speedup %.3fx over %d correct job(s) with a %s time\n",
                               stats.geomean_speedup(), stats.with_speedup(), stats.baseline());
  for (const auto& [verdict, count] : stats.verdicts()) std::cout << "  " << verdict << " " << count << "\n";
  return kOk;
}

}  // namespace kjudge::client
