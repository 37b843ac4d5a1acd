// kjudge: the command-line client of kjudge-server.
#include <cstdlib>

#include "CLI/CLI.hpp"
#include "client/commands.h"
#include "common/flag_file.h"

int main(int argc, char** argv) {
  using namespace kjudge::client;
  CliContext cli;
  const char* env_server = std::getenv("KJUDGE_SERVER");
  cli.server = env_server != nullptr ? env_server : "127.0.0.1:50051";
  const char* env_key = std::getenv("KJUDGE_API_KEY");
  cli.api_key = env_key != nullptr ? env_key : "";

  CLI::App app{"kjudge: submit CUDA kernels to a kjudge server and read their verdicts.\n\n"
               "  kjudge problems                                   list the catalog\n"
               "  kjudge problem level1/19_ReLU --starter > relu.cu  get a starter file\n"
               "  kjudge submit relu.cu --problem level1/19_ReLU --wait\n\n"
               "A submission is CUDA device code plus a launch plan in a /* kjudge-plan ... */\n"
               "block (or --plan FILE).\n\n"
               "Exit codes: 0 correct (or compiled, or baselines measured), 1 other verdict, 2 bad\n"
               "usage or input, 3 server unreachable or failed, 4 job not finished, 5 refused for now\n"
               "(rate limit, job or stream cap: retry later), 6 not allowed (API key missing, unknown,\n"
               "revoked or of the wrong role), 7 needs a CUDA GPU here (reproduce)."};
  app.require_subcommand(1);
  // Global options (--json, --server, --api-key, --tls-ca) also after the subcommand:
  // `kjudge job 5 --json` as `kjudge --json job 5`. Set before any subcommand is added (they
  // inherit it).
  app.fallthrough();
  app.add_option("--server", cli.server, "kjudge-server address (env KJUDGE_SERVER)")->capture_default_str();
  app.add_option("--api-key", cli.api_key, "API key (env KJUDGE_API_KEY)");
  app.add_option("--tls-ca", cli.tls_ca, "connect with TLS, trusting this CA certificate (PEM)")
      ->check(kjudge::CheckReadableFlagFile);  // a missing file must not mean "trust the system CAs"
  app.add_flag("--json", cli.json,
               "print results as JSON on stdout (protobuf JSON, snake_case; job ids as numbers); like the other\n"
               "global options it may also follow the subcommand: kjudge job 5 --json");

  auto* problems = app.add_subcommand(
      "problems",
      "list the problems: name, level, title; \"needs PyTorch\" marks problems defined only by a PyTorch\n"
      "module (reference.py, no CUDA reference), judged only by workers with the PyTorch oracle\n"
      "(--json: needs_pytorch per problem)");
  auto* reload = problems->add_subcommand(
      "reload",
      "(admin) make the server re-read its problems directory (after an import) and serve it from now on;\n"
      "every problem is checked first: one broken problem.toml refuses the reload (exit 1, naming the file\n"
      "and the reason) and the previous catalog keeps serving. Prints the problems added, changed and\n"
      "removed. `kill -HUP` on kjudge-server does the same; the dashboard picks it up by itself.");
  problems->require_subcommand(0, 1);

  ProblemArgs problem_args;
  auto* problem = app.add_subcommand("problem", "show a problem: description, tensors, shapes");
  problem->add_option("name", problem_args.name, "problem name, e.g. level1/19_ReLU")->required();
  problem->add_flag("--starter", problem_args.starter, "print only the starter .cu file");
  problem->add_flag("--spec", problem_args.spec, "print only the problem spec (TOML)");
  problem->add_flag("--prompt", problem_args.prompt, "print the LLM-ready task (description, tensors, format, example)");

  SubmitArgs submit_args;
  auto* submit = app.add_subcommand("submit", "submit a .cu file (device code + kjudge-plan block)");
  submit->add_option("file", submit_args.file, "the .cu file")->required();
  submit->add_option("--problem,-p", submit_args.problem, "problem name")->required();
  submit->add_option("--plan", submit_args.plan_file, "launch plan file (instead of the block in the source)");
  submit->add_flag("--wait,-w", submit_args.wait, "follow the job and print its verdict");
  submit->add_flag("--compile-only", submit_args.compile_only, "only compile (no GPU needed)");
  submit->add_option("--tag", submit_args.tags, "key=value label for metrics (repeatable)");
  submit->add_option("--timeout", submit_args.timeout_s, "with --wait: give up waiting after this many seconds (0: never)")
      ->capture_default_str();
  submit->add_option("--idempotency-key", submit_args.idempotency_key,
                     "a retry with the same key returns the same job instead of a second one");
  submit->add_flag("--public", submit_args.is_public, "let leaderboards show this job");

  JobArgs job_args;
  auto* job = app.add_subcommand("job", "show a job (its verdict once done)");
  job->add_option("id", job_args.id, "job id")->required();
  job->add_flag("--wait,-w", job_args.wait, "follow the job until it is done");
  auto* job_wait = job->add_option("--timeout", job_args.timeout_s, "with --wait: give up after this many seconds (0: never)")
      ->capture_default_str();
  job->add_flag("--source", job_args.source,
                "print the job's source as submitted and nothing else (`kjudge job 5 --source > mine.cu`);\n"
                "--json: {job_id, filename, source, launch_plan}, the plan as judged")
      ->excludes("--wait")
      ->excludes(job_wait);

  JobsArgs jobs_args;
  auto* jobs = app.add_subcommand("jobs", "list your jobs (admins: all), newest first");
  jobs->add_option("--tag", jobs_args.tags, "only jobs with this key=value tag (repeatable)");
  jobs->add_option("--state", jobs_args.state, "queued, running or done")
      ->check(CLI::IsMember({"queued", "running", "done"}));
  jobs->add_option("--problem", jobs_args.problem, "only jobs of this problem");
  jobs->add_option("--limit", jobs_args.limit, "jobs per page (at most 500)")->capture_default_str();
  jobs->add_option("--page-token", jobs_args.page_token, "continue after a previous page");
  jobs->add_flag("--all", jobs_args.all, "every page, not just the first");

  std::string cancel_id;
  auto* cancel = app.add_subcommand("cancel", "cancel a queued or running job");
  cancel->add_option("id", cancel_id, "job id")->required();

  StatsArgs stats_args;
  auto* stats = app.add_subcommand(
      "stats",
      "compile rate, correctness, fast_p and geomean speedup (KernelBench's definitions), per problem and in all.\n"
      "By default each problem's speedups are against the strongest baseline measured for it on its GPU:\n"
      "the fastest library call (cuBLAS, cuBLASLt ...) or PyTorch eager timed on every benchmark shape;\n"
      "the catalog's reference kernel only where nothing else was measured, and then the table says so.\n"
      "The table names each problem's denominator; where PyTorch eager times exist, KernelBench's number\n"
      "(vs torch_eager) is printed beside the default. See docs/metrics.md.");
  stats->add_option("--tag", stats_args.tags, "only jobs with this key=value tag (repeatable)");
  auto* baseline_option = stats->add_option(
      "--baseline", stats_args.baseline,
      "speedups against this baseline for every problem: reference, torch_eager, torch_compile, cublas ... "
      "(default: each problem's strongest)");
  stats->add_flag("--kernelbench", stats_args.kernelbench,
                  "KernelBench's definition: speedups against PyTorch eager (= --baseline torch_eager)")
      ->excludes(baseline_option);
  stats->add_option("--problems", stats_args.problem_prefix, "only problems starting with this, e.g. level1/");
  auto* in_set = stats->add_option("--problem", stats_args.problem_set,
                                    "the run's problem set, for the per-problem metrics (repeatable): a problem "
                                    "named here with no judged job counts as a failure");
  stats->add_flag("--count-unsubmitted", stats_args.prefix_is_problem_set,
                  "the run's problem set is every catalog problem under --problems (all without it): "
                  "problems with no judged job count as failures, as in KernelBench")
      ->excludes(in_set);
  stats->add_flag("--public", stats_args.public_only,
                  "every tenant's jobs submitted with --public (a leaderboard); default: your own jobs");

  BaselinesArgs baselines_args;
  auto* baselines = app.add_subcommand("baselines", "list cached baseline timings; --refresh re-measures, import adds PyTorch times");
  baselines->add_option("--problems", baselines_args.problem_prefix, "only problems starting with this");
  baselines->add_flag("--refresh", baselines_args.refresh, "forget measured baselines and queue example jobs that re-measure them (admin)");
  baselines->add_flag("--no-run", baselines_args.no_run, "with --refresh: only forget them (measured on the next job)");
  MeasureBaselinesArgs measure_args;
  auto* measure = baselines->add_subcommand(
      "measure",
      "measure the baselines of problems that have none yet on a GPU: one baselines-only job per problem.\n"
      "Baselines (the catalog's reference kernel, library calls such as cuBLAS, PyTorch eager and\n"
      "torch.compile) are otherwise measured only after a CORRECT submission, once per GPU and\n"
      "software versions. A baselines-only job names a problem and no kernel; a GPU worker measures\n"
      "what its GPU lacks, the server caches it (`kjudge baselines` lists the cache) and the job ends\n"
      "BASELINES_MEASURED, listing them (--json: result.baselines[].name, shape, timing.median_us).\n"
      "torch_compile: the first job of a problem starts its compile and does not wait; run measure\n"
      "again later to time it. Such jobs never count in stats or leaderboards.\n\n"
      "  kjudge baselines measure level1/19_ReLU level2/1_Conv2D_ReLU_BiasAdd --wait\n"
      "  kjudge --json baselines measure level1/19_ReLU --wait | jq '.result.baselines'");
  measure->add_option("problem", measure_args.problems, "problem names, e.g. level1/19_ReLU")->required();
  measure->add_flag("--wait,-w", measure_args.wait, "follow each job and print its verdict and the baselines it measured");
  measure->add_flag("--json", cli.json, "print each Job as JSON (as the global --json)");
  measure->add_option("--tag", measure_args.tags, "key=value label (repeatable)");
  measure->add_option("--timeout", measure_args.timeout_s, "with --wait: give up waiting on a job after this many seconds");
  auto* import = baselines->add_subcommand("import", "store baselines measured elsewhere, one JSON object per line (problem, shape, name, gpu, median_us) (admin)");
  import->add_option("file", baselines_args.import_file, "JSON lines file")->required();

  ReproduceArgs reproduce_args;
  auto* reproduce = app.add_subcommand(
      "reproduce",
      "regenerate an input set of a finished job, bit-exact, as .npy files (needs a CUDA GPU).\n"
      "Every input set the judge drew for a job (each test shape, each timed sample, the warm-up and\n"
      "re-check sets) had its own secret key and input regime (declared, offset, large, ties, zeros,\n"
      "positive, negative: problems/README.md); both are revealed with the verdict.\n"
      "--list shows them; without --list one set is regenerated on this machine's GPU by\n"
      "kjudge-reproduce (beside kjudge, or in $KJUDGE_BIN_DIR) with the judge's own kernels: one\n"
      "<tensor>.npy per input (bf16/fp8 as raw bits) and manifest.json (shape, regime, key, sha256).\n"
      "Default set: the first failing test shape's, else the first timed sample's. Without a GPU it\n"
      "prints the command to run on a GPU host (exit code 7).\n\n"
      "  kjudge reproduce JOB --list                       the sets: set, shape, regime, key\n"
      "  kjudge reproduce JOB                              the default set into reproduce-JOB-SET/\n"
      "  kjudge reproduce JOB --set 'bench 0 sample 3' --out s3/\n"
      "  python3 -c \"import numpy; print(numpy.load('s3/X.npy').mean())\"");
  reproduce->add_option("id", reproduce_args.job_id, "job id")->required();
  reproduce->add_flag("--list", reproduce_args.list, "only list the job's input sets (set, shape, regime, key)");
  reproduce->add_option("--set", reproduce_args.set, "the input set to regenerate, as --list names it, e.g. 'test 2'");
  reproduce->add_option("--out", reproduce_args.out, "folder for the .npy files (default reproduce-JOB-SET)");
  reproduce->add_option("--problems", reproduce_args.problems,
                        "a local problem catalog folder (default: the problem's spec as the server serves it)");
  reproduce->add_flag("--json", cli.json, "as the global --json: the list, or manifest.json, as JSON");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? kOk : kUsage;
  }
  if (!cli.Connect()) return kUsage;
  if (*reload) return ReloadProblems(cli);
  if (*problems) return ListProblems(cli);
  if (*problem) return ShowProblem(cli, problem_args);
  if (*submit) return Submit(cli, submit_args);
  if (*job) return ShowJob(cli, job_args);
  if (*jobs) return ListJobs(cli, jobs_args);
  if (*cancel) return CancelJob(cli, cancel_id);
  if (*stats) return ShowStats(cli, stats_args);
  if (*measure) return MeasureBaselines(cli, measure_args);
  if (*baselines) return Baselines(cli, baselines_args);
  if (*reproduce) return Reproduce(cli, reproduce_args);
  return kUsage;
}
