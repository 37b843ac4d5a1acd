// The `kjudge` subcommands. Each returns the process exit code (see cli_context.h) and writes
// results to stdout (JSON with --json) and everything meant for a person to stderr.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "client/cli_context.h"

namespace kjudge::client {

int ListProblems(CliContext& cli);
// `kjudge problems reload` (admin): the server re-reads its problems directory; prints what was
// added, changed and removed, or the broken problem that refused the reload (exit 1).
int ReloadProblems(CliContext& cli);

struct ProblemArgs {
  std::string name;
  bool starter = false;  // print only the starter .cu file
  bool spec = false;     // print only the spec (problem.toml)
  bool prompt = false;   // print only the LLM-ready task text
};
int ShowProblem(CliContext& cli, const ProblemArgs& args);

// `--wait` gives up after this long by default (issue 27 pt4: a job no connected worker can take
// would otherwise be waited on forever); exit code 4, the job keeps its place. --timeout 0: none.
inline constexpr double kDefaultWaitTimeoutS = 3600;

struct SubmitArgs {
  std::string file;
  std::string problem;
  std::string plan_file;
  bool wait = false;
  bool compile_only = false;
  std::vector<std::string> tags;  // key=value
  double timeout_s = kDefaultWaitTimeoutS;  // with --wait; 0 = no limit
  std::string idempotency_key;    // a retry with the same key returns the same job
  bool is_public = false;         // leaderboards may show it
};
int Submit(CliContext& cli, const SubmitArgs& args);

struct JobsArgs {
  std::vector<std::string> tags;  // key=value filters
  std::string state;              // queued, running, done; "" = any
  std::string problem;
  int limit = 50;                 // jobs per page
  std::string page_token;
  bool all = false;               // follow next_page_token to the end
};
// Lists the caller's jobs (admins: all), newest first. --json prints one Job per line.
int ListJobs(CliContext& cli, const JobsArgs& args);

// Cancels a queued or running job of the caller.
int CancelJob(CliContext& cli, const std::string& id);

struct JobArgs {
  std::string id;
  bool wait = false;
  double timeout_s = kDefaultWaitTimeoutS;  // with --wait; 0 = no limit
  bool source = false;  // print the job's source as submitted, nothing else (--json: JobSource)
};
int ShowJob(CliContext& cli, const JobArgs& args);

struct StatsArgs {
  std::vector<std::string> tags;  // key=value filters
  std::string baseline;      // "": each problem's strongest baseline (docs/metrics.md)
  bool kernelbench = false;  // --kernelbench: the same as --baseline torch_eager
  std::string problem_prefix;
  bool public_only = false;  // every tenant's public jobs (a leaderboard) instead of your own
  // The run's problem set (GetStatsRequest.problem_set): problems with no judged job are failures.
  std::vector<std::string> problem_set;
  bool prefix_is_problem_set = false;  // --count-unsubmitted: every catalog problem under --problems
};
int ShowStats(CliContext& cli, const StatsArgs& args);

struct BaselinesArgs {
  std::string problem_prefix;
  bool refresh = false;
  bool no_run = false;      // with refresh: only forget, do not queue example jobs
  std::string import_file;  // JSON lines of baselines measured elsewhere
};
int Baselines(CliContext& cli, const BaselinesArgs& args);

struct MeasureBaselinesArgs {
  std::vector<std::string> problems;  // one baselines-only job each
  bool wait = false;                  // follow each job and print its verdict and baselines
  std::vector<std::string> tags;      // key=value
  double timeout_s = 0;               // with --wait, per job; 0 = no limit
};
// Submits one baselines-only job per problem (SubmitRequest.baselines_only): a GPU worker
// measures the problem's baselines not yet cached for its GPU. Prints the job ids (--json: each
// Job); with --wait each finished job's report (or JSON), whose result lists the baselines
// measured. The exit code is the first failure's, else 0.
int MeasureBaselines(CliContext& cli, const MeasureBaselinesArgs& args);

struct ReproduceArgs {
  std::string job_id;
  std::string set;       // an input set's name as --list prints it; "" = the default set
  std::string out;       // "" = reproduce-<job>-<set>
  std::string problems;  // a local catalog folder; "" = the spec as the server serves it
  bool list = false;     // only list the sets (with --json: as JSON)
};
// The input sets of a finished job (JobResult.input_keys: set, shape, regime, key), listed, or
// one regenerated bit-exact as .npy files by kjudge-reproduce on this machine's GPU (default:
// the first failing test's set, else the first timed sample's). Without a GPU, or without
// kjudge-reproduce, prints the command to run on a GPU host and returns kNoGpu.
int Reproduce(CliContext& cli, const ReproduceArgs& args);

// Follows a job with WatchJob until it is done, showing progress on stderr; prints the
// report (or JSON) and returns the exit code.
int WaitForJob(CliContext& cli, const std::string& job_id, double timeout_s);

}  // namespace kjudge::client
