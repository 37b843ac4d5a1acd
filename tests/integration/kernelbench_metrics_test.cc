// KernelBench's metrics over loopback (issue 27 point 8): a real kjudge-server on a real SQLite
// file, results recorded through the worker API (StubWorker: a GPU worker and a compile-only
// one), then the hand-computed table below checked in GetStats, `kjudge stats` (JSON and the
// table a person reads) and the Python client's kjudge.Stats. The server computes every number
// (server/kernel_metrics.h); the clients only show them. No GPU needed.
//
// The run (tag run=<test>), speedups against each problem's reference (its only baseline):
//   A level1/19_ReLU      7 judged: CORRECT 2.0x, CORRECT 0.5x, 4 WRONG_ANSWER, 1 COMPILE_ERROR
//   B level1/20_LeakyReLU 5 judged: CORRECT 4.0x, 4 WRONG_ANSWER
//   C level1/21_Sigmoid   5 judged: CORRECT 0.9x, 4 WRONG_ANSWER
//   D level1/22_Tanh      2 compile-only: COMPILED, COMPILE_ERROR (no judged job)
//   E level1/23_Softmax   in the problem set, never submitted
// Per problem over {A..E}: correct = (2/7 + 1/5 + 1/5) / 5 = 24/175; fast_1 = (1/7 + 1/5) / 5 =
// 12/175; pass@5 = (1 - C(5,5)/C(7,5) + 1 + 1) / 5 = 62/105; fast_1@5 = (5/7 + 1 + 0) / 5 = 12/35;
// pass@10 n/a (no problem has 10 jobs); geomean over problems = cbrt(1.0 x 4.0 x 0.9).
// Per job: 17 judged + 2 compile-only, 17 of 19 compiled, 4 of 17 correct.
#include <grpcpp/grpcpp.h>

#include <cmath>

#include "absl/strings/str_format.h"

#include "kjudge/v1/kjudge.grpc.pb.h"
#include "tests/integration/cluster.h"
#include "tests/integration/stub_worker.h"
#include "tests/support/binary_path.h"
#include "tests/support/subprocess.h"

namespace kjudge::testing {
namespace {

const std::string kA = "level1/19_ReLU", kB = "level1/20_LeakyReLU", kC = "level1/21_Sigmoid", kD = "level1/22_Tanh",
                  kE = "level1/23_Softmax";
const std::string kGpu = "NVIDIA H100 80GB HBM3";
constexpr double kReferenceUs = 100.0;  // every problem's reference at its bench shape
const double kCorrect = (2.0 / 7 + 1.0 / 5 + 1.0 / 5) / 5;
const double kFast1 = (1.0 / 7 + 1.0 / 5) / 5;
const double kPass5 = (20.0 / 21 + 1 + 1) / 5;
const double kFast1At5 = (5.0 / 7 + 1) / 5;
const double kGeomean = std::cbrt(1.0 * 4.0 * 0.9);

class KernelBenchMetrics : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<Cluster>(::testing::UnitTest::GetInstance()->current_test_info()->name());
    submitter_ = cluster_->CreateKey("submitter");
    const std::string worker_key = cluster_->CreateKey("worker");
    cluster_->StartServer({"--require-auth"});
    clients_ = v1::ClientService::NewStub(grpc::CreateChannel(cluster_->address(), grpc::InsecureChannelCredentials()));
    gpu_ = std::make_unique<StubWorker>(*cluster_, worker_key, /*compile_only=*/false);
    compiler_ = std::make_unique<StubWorker>(*cluster_, worker_key, /*compile_only=*/true);
  }
  std::unique_ptr<grpc::ClientContext> Context() const {
    auto context = std::make_unique<grpc::ClientContext>();
    context->AddMetadata("authorization", "Bearer " + submitter_);
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    return context;
  }
  std::string BenchShape(const std::string& problem) {
    v1::GetProblemRequest request;
    request.set_name(problem);
    v1::Problem spec;
    EXPECT_TRUE(clients_->GetProblem(Context().get(), request, &spec).ok());
    return spec.bench_shapes_size() > 0 ? spec.bench_shapes(0) : "";
  }
  // Submits a job of `problem` in run `run`, leases it as the right worker and completes it
  // with `verdict`; a CORRECT job with `speedup` > 0 is timed at the bench shape at
  // kReferenceUs / speedup against the reference's kReferenceUs (posted with the result, kept
  // by the server the first time it asks), as a GPU worker records it: the server computes the
  // speedup from those two (server/speedup_rule.h).
  void Record(const std::string& run, const std::string& problem, v1::Verdict verdict, double speedup = 0,
              bool compile_only = false) {
    v1::SubmitRequest submit;
    submit.set_problem(problem);
    submit.set_source(ReadFileOrEmpty(SourcePath("problems/" + problem + "/solution.cu")));
    submit.set_compile_only(compile_only);
    (*submit.mutable_tags())["run"] = run;
    v1::SubmitResponse submitted;
    grpc::Status status = clients_->Submit(Context().get(), submit, &submitted);
    ASSERT_TRUE(status.ok()) << status.error_message();
    std::optional<v1::LeaseJobResponse> lease = (compile_only ? compiler_ : gpu_)->Lease();
    ASSERT_TRUE(lease.has_value());
    ASSERT_EQ(lease->spec().job_id(), submitted.job_id());
    v1::JobResult result;
    result.set_verdict(verdict);
    if (!compile_only) result.set_gpu(kGpu);
    std::vector<v1::BaselineTiming> baselines;
    if (speedup > 0) {
      const std::string shape = BenchShape(problem);
      v1::ShapeTiming* timing = result.add_timings();
      timing->set_shape(shape);
      timing->mutable_timing()->set_median_us(kReferenceUs / speedup);
      v1::Speedup* s = result.add_speedups();
      s->set_shape(shape);
      s->set_baseline("reference");
      s->set_speedup(speedup);
      v1::BaselineTiming& reference = baselines.emplace_back();
      reference.set_problem(problem);
      reference.set_shape(shape);
      reference.set_name("reference");
      reference.mutable_timing()->set_median_us(kReferenceUs);
    }
    ASSERT_TRUE((compile_only ? compiler_ : gpu_)->Complete(*lease, result, baselines));
  }
  void RecordTable(const std::string& run) {
    Record(run, kA, v1::CORRECT, 2.0);
    Record(run, kA, v1::CORRECT, 0.5);
    for (int i = 0; i < 4; ++i) Record(run, kA, v1::WRONG_ANSWER);
    Record(run, kA, v1::COMPILE_ERROR);
    Record(run, kB, v1::CORRECT, 4.0);
    for (int i = 0; i < 4; ++i) Record(run, kB, v1::WRONG_ANSWER);
    Record(run, kC, v1::CORRECT, 0.9);
    for (int i = 0; i < 4; ++i) Record(run, kC, v1::WRONG_ANSWER);
    Record(run, kD, v1::COMPILED, 0, /*compile_only=*/true);
    Record(run, kD, v1::COMPILE_ERROR, 0, /*compile_only=*/true);
  }
  // `kjudge` as a person runs it (no --json).
  CommandResult Human(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {ResolveBinary("kjudge", "KJUDGE_CLI_BIN", KJUDGE_CLI_BIN), "--server",
                                     cluster_->address(), "--api-key", submitter_};
    argv.insert(argv.end(), args.begin(), args.end());
    return kjudge::testing::Run(argv, std::chrono::seconds(60));
  }
  // The Python client's kjudge.Stats for the run over the set, printed as JSON.
  CommandResult Python(const std::string& run) {
    const std::string script =
        "import json, sys, kjudge\n"
        "with kjudge.Client(sys.argv[1], api_key=sys.argv[2]) as kj:\n"
        "    s = kj.stats(tags={'run': sys.argv[3]}, problem_set=sys.argv[4:])\n"
        "    p = s.per_problem\n"
        "    print(json.dumps({'jobs': s.jobs, 'compile_only_jobs': s.compile_only_jobs, 'compile_rate': s.compile_rate,\n"
        "        'correctness': p.correctness, 'fast_1': p.fast_p[1.0], 'geomean': p.geomean_speedup,\n"
        "        'pass': {str(k): v for k, v in p.pass_at_k.items()}, 'fast_1_at_5': p.fast_p_at_k[5][1.0],\n"
        "        'unsubmitted': list(p.unsubmitted_problems)}))\n";
    return kjudge::testing::Run({"/usr/bin/env", "PYTHONPATH=" + SourcePath("clients/python"), "/usr/bin/python3", "-c",
                                 script, cluster_->address(), submitter_, run, kA, kB, kC, kD, kE},
                                std::chrono::seconds(60));
  }

  std::unique_ptr<Cluster> cluster_;
  std::unique_ptr<v1::ClientService::Stub> clients_;
  std::unique_ptr<StubWorker> gpu_, compiler_;
  std::string submitter_;
};

const v1::PassAtK* FindK(const v1::ProblemSetStats& s, int k) {
  for (const v1::PassAtK& entry : s.pass_at_k()) {
    if (entry.k() == k) return &entry;
  }
  return nullptr;
}

double FastAt(const google::protobuf::RepeatedPtrField<v1::FastP>& fast_p, double p) {
  for (const v1::FastP& entry : fast_p) {
    if (entry.p() == p) return entry.fraction();
  }
  return -1;
}

TEST_F(KernelBenchMetrics, TheHandComputedTableInGetStatsTheCliAndPython) {
  RecordTable("t1");
  v1::GetStatsRequest request;
  (*request.mutable_tags())["run"] = "t1";
  for (const std::string& name : {kA, kB, kC, kD, kE}) request.add_problem_set(name);
  v1::Stats stats;
  grpc::Status status = clients_->GetStats(Context().get(), request, &stats);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(stats.jobs(), 17);
  EXPECT_EQ(stats.compile_only_jobs(), 2);
  EXPECT_EQ(stats.compiled(), 17);
  EXPECT_DOUBLE_EQ(stats.compile_rate(), 17.0 / 19.0);
  EXPECT_DOUBLE_EQ(stats.correctness_rate(), 4.0 / 17.0);
  ASSERT_TRUE(stats.has_per_problem()) << stats.DebugString();
  const v1::ProblemSetStats& p = stats.per_problem();
  EXPECT_EQ(p.problems(), 5);
  EXPECT_EQ(p.judged(), 3);
  EXPECT_EQ(p.unsubmitted(), 2);
  EXPECT_NEAR(p.correctness(), kCorrect, 1e-12);
  EXPECT_NEAR(FastAt(p.fast_p(), 1.0), kFast1, 1e-12);
  EXPECT_NEAR(p.geomean_speedup(), kGeomean, 1e-9);
  ASSERT_NE(FindK(p, 5), nullptr);
  EXPECT_NEAR(FindK(p, 1)->fraction(), kCorrect, 1e-12);
  EXPECT_NEAR(FindK(p, 5)->fraction(), kPass5, 1e-12);
  EXPECT_NEAR(FastAt(FindK(p, 5)->fast_p(), 1.0), kFast1At5, 1e-12);
  EXPECT_EQ(FindK(p, 10), nullptr);
  EXPECT_EQ(std::vector<std::string>(p.unsubmitted_problems().begin(), p.unsubmitted_problems().end()),
            (std::vector<std::string>{kD, kE}));

  // The CLI's JSON carries the same numbers (protobuf JSON: int64 as strings).
  CliResult json = cluster_->Cli({"--api-key", submitter_, "stats", "--tag", "run=t1", "--problem", kA, "--problem", kB,
                                  "--problem", kC, "--problem", kD, "--problem", kE});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json& pj = json.json["per_problem"];
  EXPECT_NEAR(pj.value("correctness", 0.0), kCorrect, 1e-12) << json.out;
  EXPECT_EQ(pj.value("unsubmitted", ""), "2");
  EXPECT_EQ(json.json.value("compile_only_jobs", ""), "2");
  EXPECT_NEAR(json.json.value("compile_rate", 0.0), 17.0 / 19.0, 1e-12);

  // The table a person reads: the same numbers, n/a where nothing is defined.
  CommandResult table = Human({"stats", "--tag", "run=t1", "--problem", kA, "--problem", kB, "--problem", kC,
                               "--problem", kD, "--problem", kE});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  for (const std::string& expected :
       {std::string("jobs 17 judged + 2 compile-only   compiled 17 (89.5%)   correct 4 (23.5% of judged)"),
        absl::StrFormat("correct %.3f", kCorrect), absl::StrFormat("fast_1 %.3f", kFast1),
        absl::StrFormat("geometric-mean speedup %.3fx over 3 problem(s)", kGeomean),
        absl::StrFormat("pass@5 %.3f (fast_1@5 %.3f)", kPass5, kFast1At5), std::string("pass@10 n/a"),
        std::string("over 5 problem(s): 3 judged, 2 with no judged job (failures)"),
        std::string("no judged job: ") + kD + " " + kE}) {
    EXPECT_NE(table.out.find(expected), std::string::npos) << "missing '" << expected << "' in\n" << table.out;
  }

  // The Python client: the same numbers in kjudge.Stats.
  CommandResult python = Python("t1");
  ASSERT_EQ(python.exit_code, 0) << python.out << python.err;
  const nlohmann::json py = nlohmann::json::parse(python.out, nullptr, false);
  ASSERT_TRUE(py.is_object()) << python.out;
  EXPECT_EQ(py.value("jobs", 0), 17);
  EXPECT_EQ(py.value("compile_only_jobs", 0), 2);
  EXPECT_NEAR(py.value("compile_rate", 0.0), 17.0 / 19.0, 1e-12);
  EXPECT_NEAR(py.value("correctness", 0.0), kCorrect, 1e-12);
  EXPECT_NEAR(py.value("fast_1", 0.0), kFast1, 1e-12);
  EXPECT_NEAR(py.value("geomean", 0.0), kGeomean, 1e-9);
  EXPECT_NEAR(py["pass"].value("5", 0.0), kPass5, 1e-12);
  EXPECT_FALSE(py["pass"].contains("10"));
  EXPECT_NEAR(py.value("fast_1_at_5", 0.0), kFast1At5, 1e-12);
  EXPECT_EQ(py["unsubmitted"], nlohmann::json({kD, kE}));
}

// --count-unsubmitted: every catalog problem under --problems is the set.
TEST_F(KernelBenchMetrics, APrefixAsTheProblemSetCountsEveryCatalogProblemUnderIt) {
  RecordTable("t2");
  v1::GetStatsRequest request;
  (*request.mutable_tags())["run"] = "t2";
  request.set_problem_prefix("level1/");
  request.set_prefix_is_problem_set(true);
  v1::Stats stats;
  ASSERT_TRUE(clients_->GetStats(Context().get(), request, &stats).ok());
  v1::ListProblemsRequest list;
  v1::ListProblemsResponse problems;
  ASSERT_TRUE(clients_->ListProblems(Context().get(), list, &problems).ok());
  int64_t level1 = 0;
  for (const v1::ProblemSummary& s : problems.problems()) level1 += s.name().rfind("level1/", 0) == 0 ? 1 : 0;
  EXPECT_EQ(stats.per_problem().problems(), level1);
  EXPECT_EQ(stats.per_problem().unsubmitted(), level1 - 3);
  EXPECT_NEAR(stats.per_problem().correctness(), (2.0 / 7 + 1.0 / 5 + 1.0 / 5) / static_cast<double>(level1), 1e-12);

  // Unknown names and both kinds of set at once are refused, naming what to do.
  v1::GetStatsRequest unknown;
  unknown.add_problem_set("level1/999_Nope");
  grpc::Status status = clients_->GetStats(Context().get(), unknown, &stats);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("'level1/999_Nope' is not a problem of this server"), std::string::npos)
      << status.error_message();
  request.add_problem_set(kA);
  EXPECT_EQ(clients_->GetStats(Context().get(), request, &stats).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

// A compile-only run: its compile rate, and n/a (not zeros) for everything a GPU measures.
TEST_F(KernelBenchMetrics, ACompileOnlyRunShowsItsCompileRateAndNotApplicableElsewhere) {
  for (int i = 0; i < 3; ++i) Record("t3", kD, v1::COMPILED, 0, /*compile_only=*/true);
  Record("t3", kD, v1::COMPILE_ERROR, 0, /*compile_only=*/true);
  v1::GetStatsRequest request;
  (*request.mutable_tags())["run"] = "t3";
  v1::Stats stats;
  ASSERT_TRUE(clients_->GetStats(Context().get(), request, &stats).ok());
  EXPECT_EQ(stats.jobs(), 0);
  EXPECT_EQ(stats.compile_only_jobs(), 4);
  EXPECT_DOUBLE_EQ(stats.compile_rate(), 0.75);
  EXPECT_FALSE(stats.has_correctness_rate());
  EXPECT_FALSE(stats.has_geomean_speedup());
  EXPECT_EQ(stats.fast_p_size(), 0);
  EXPECT_FALSE(stats.has_per_problem());
  CommandResult table = Human({"stats", "--tag", "run=t3"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  for (const std::string& expected :
       {std::string("jobs 0 judged + 4 compile-only   compiled 3 (75.0%)   correct 0 (n/a of judged)"),
        std::string("per job, fast_p vs each problem's denominator above (its strongest baseline): n/a (no judged job)"),
        std::string("per job, geometric-mean speedup n/a"), std::string(": n/a (no judged job)")}) {
    EXPECT_NE(table.out.find(expected), std::string::npos) << "missing '" << expected << "' in\n" << table.out;
  }
  CliResult json = cluster_->Cli({"--api-key", submitter_, "stats", "--tag", "run=t3"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_FALSE(json.json.contains("correctness_rate")) << json.out;
  EXPECT_FALSE(json.json.contains("per_problem")) << json.out;
  EXPECT_NEAR(json.json.value("compile_rate", 0.0), 0.75, 1e-12);
}

}  // namespace
}  // namespace kjudge::testing
