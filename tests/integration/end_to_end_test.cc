// End to end without a GPU: real kjudge-server, real compile-only kjudge-worker + kjudge-runner
// (real NVRTC), real SQLite file, the real CLI over loopback gRPC.
#include <signal.h>

#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "tests/integration/cluster.h"

namespace kjudge::testing {
namespace {

std::string Verdict(const CliResult& r) { return r.json.value("/result/verdict"_json_pointer, std::string()); }

class EndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<Cluster>(::testing::UnitTest::GetInstance()->current_test_info()->name());
    cluster_->StartServer();
  }
  CliResult SubmitAndWait(const std::string& file, const std::string& problem) {
    return cluster_->Cli({"submit", SourcePath(file), "--problem", problem, "--compile-only", "--wait"});
  }
  // The ReLU example plus a template bomb: NVRTC works on it for seconds, until the worker's
  // compile limit or the compiler's memory limit ends it. Returns the file's path.
  std::string WriteSlowSource() {
    std::ifstream example(SourcePath("problems/level1/19_ReLU/solution.cu"));
    std::stringstream source;
    source << example.rdbuf()
           << "template <int N, int M> struct B { static constexpr long v = B<N - 1, M * 2 + 1>::v + B<N - 1, M * 2>::v; };\n"
              "template <int M> struct B<0, M> { static constexpr long v = M; };\n"
              "__global__ void bomb(long* o) { *o = B<28, 1>::v; }\n";
    const std::string path = cluster_->dir() + "/slow.cu";
    std::ofstream(path) << source.str();
    return path;
  }
  std::unique_ptr<Cluster> cluster_;
};

TEST_F(EndToEnd, ExampleSolutionsCompile) {
  cluster_->StartWorker();
  for (const std::string problem : {"level1/1_Square_matrix_multiplication_", "level1/19_ReLU", "level1/23_Softmax"}) {
    CliResult r = SubmitAndWait("problems/" + problem + "/solution.cu", problem);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err << cluster_->Logs();
    EXPECT_EQ(Verdict(r), "COMPILED") << r.out;
    EXPECT_EQ(r.json["state"], "DONE");
    EXPECT_GT(r.json["result"]["compile_ms"].get<double>(), 0.0);
  }
}

TEST_F(EndToEnd, NextJobIsCompiledAheadIntoTheCache) {
  // Three distinct sources queued before the worker starts. With --compile-ahead on, the worker
  // leases job k+1 while job k runs and compiles it in its compile-only runner, so the judge
  // finds jobs 2 and 3 in the cubin cache; job 1 had nothing before it to overlap with.
  std::vector<std::string> ids;
  for (const std::string problem : {"level1/19_ReLU", "level1/23_Softmax", "level1/1_Square_matrix_multiplication_"}) {
    CliResult r = cluster_->Cli({"submit", SourcePath("problems/" + problem + "/solution.cu"), "--problem", problem,
                                 "--compile-only"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    ids.push_back(IdText(r.json["id"]));
  }
  cluster_->StartWorker({"--compile-ahead", "on"});
  std::vector<bool> hits;
  for (const std::string& id : ids) {
    CliResult r = cluster_->Cli({"job", id, "--wait"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err << cluster_->Logs();
    EXPECT_EQ(Verdict(r), "COMPILED") << r.out;
    hits.push_back(r.json["result"].value("cubin_cache_hit", false));
  }
  EXPECT_FALSE(hits[0]);
  EXPECT_TRUE(hits[1]) << cluster_->Logs();
  EXPECT_TRUE(hits[2]) << cluster_->Logs();
  EXPECT_TRUE(cluster_->WaitForLog("worker.log", "job " + ids[1] + ": compiled ahead", 5)) << cluster_->Logs();
  // The compile-ahead runner is compile-only on purpose: its start is not the "compile-only
  // mode" warning operators read as "this worker found no GPU" (on a GPU host the demo took it
  // for that and submitted compile-only). Here only the judge runner (started --compile-only by
  // the cluster's worker) says it.
  EXPECT_TRUE(cluster_->WaitForLog("worker.log", "compile-ahead runner ready", 5)) << cluster_->Logs();
  const std::string logs = cluster_->Logs();
  size_t warnings = 0;
  for (size_t at = logs.find("compile-only mode"); at != std::string::npos; at = logs.find("compile-only mode", at + 1)) {
    ++warnings;
  }
  EXPECT_EQ(warnings, 1U) << logs;
}

TEST_F(EndToEnd, AJobLeasedAheadIsHandedBackWhenTheWorkerStops) {
  // Job 1 is the ReLU example plus a template bomb: its compile on the judge runs for seconds,
  // until the worker's 8 s compile limit or the compiler's memory limit. Meanwhile the worker leases job 2 ahead and compiles it. A drain
  // (SIGTERM) then finishes job 1 and must hand job 2 back at once, not keep it until its lease
  // expires, so the next worker serves it.
  const std::string slow = WriteSlowSource();
  std::vector<std::string> ids;
  for (const std::string& file : {slow, SourcePath("problems/level1/19_ReLU/solution.cu")}) {
    CliResult r = cluster_->Cli({"submit", file, "--problem", "level1/19_ReLU", "--compile-only"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    ids.push_back(IdText(r.json["id"]));
  }
  cluster_->StartWorker({"--compile-ahead", "on", "--compile-timeout", "8"});
  ASSERT_TRUE(cluster_->WaitForLog("worker.log", "job " + ids[1] + ": compiled ahead", 60)) << cluster_->Logs();
  cluster_->StopWorker(SIGTERM);
  // Job 1 ended by a limit: the 8 s compile limit (TIMEOUT) or the compiler's memory limit
  // (COMPILE_ERROR), whichever the machine reaches first.
  const std::string first = Verdict(cluster_->Cli({"job", ids[0]}));
  EXPECT_TRUE(first == "TIMEOUT" || first == "COMPILE_ERROR") << first << cluster_->Logs();
  CliResult second = cluster_->Cli({"job", ids[1]});  // exit 4: not finished
  EXPECT_EQ(second.json.value("state", std::string()), "QUEUED") << second.out << cluster_->Logs();
  cluster_->StartWorker();
  CliResult done = cluster_->Cli({"job", ids[1], "--wait"});
  EXPECT_EQ(Verdict(done), "COMPILED") << done.out << cluster_->Logs();
}

TEST_F(EndToEnd, CancellingARunningJobStopsItsWorkerWhichServesTheNextJob) {
  // A real worker is compiling a slow source (the ReLU example plus a template bomb) when its
  // owner cancels the job: the job is CANCELLED at once, the worker's next lease renewal is
  // refused, it gives the job up (the runner is killed), and it goes on to the next job.
  cluster_->KillServer(SIGTERM);
  cluster_->StartServer({"--lease-seconds", "3"});  // renewals every second
  const std::string slow = WriteSlowSource();
  CliResult submitted = cluster_->Cli({"submit", slow, "--problem", "level1/19_ReLU", "--compile-only"});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.out << submitted.err;
  const std::string id = IdText(submitted.json["id"]);
  cluster_->StartWorker();
  ASSERT_TRUE(cluster_->WaitForLog("worker.log", "job " + id + ": level1/19_ReLU", 30)) << cluster_->Logs();
  CliResult cancelled = cluster_->Cli({"cancel", id});
  EXPECT_EQ(cancelled.exit_code, 0) << cancelled.out << cancelled.err;  // the cancel itself succeeded
  EXPECT_EQ(Verdict(cancelled), "CANCELLED") << cancelled.out;
  EXPECT_TRUE(cluster_->WaitForLog("worker.log", "job " + id + ": handed back", 10)) << cluster_->Logs();
  CliResult after = cluster_->Cli({"job", id});
  EXPECT_EQ(Verdict(after), "CANCELLED") << after.out << cluster_->Logs();  // the worker could not overwrite it
  CliResult next = SubmitAndWait("problems/level1/19_ReLU/solution.cu", "level1/19_ReLU");
  EXPECT_EQ(Verdict(next), "COMPILED") << next.out << cluster_->Logs();
}

TEST_F(EndToEnd, CompileErrorReportsNvrtcLineNumbers) {
  cluster_->StartWorker();
  CliResult r = SubmitAndWait("tests/gpu/cases/compile_error.cu", "level1/19_ReLU");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(Verdict(r), "COMPILE_ERROR");
  const std::string log = r.json["result"]["compile_log"];
  EXPECT_NE(log.find("compile_error.cu(14)"), std::string::npos) << log;
  EXPECT_NE(log.find("undeclared_value"), std::string::npos) << log;
}

TEST_F(EndToEnd, BadLaunchPlanIsRejectedWithLineAndColumn) {
  // Judged at intake: no worker needed.
  CliResult r = SubmitAndWait("tests/gpu/cases/bad_plan.cu", "level1/19_ReLU");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(Verdict(r), "REJECTED");
  const std::string message = r.json["result"]["message"];
  EXPECT_NE(message.find("bad_plan.cu:5:41"), std::string::npos) << message;
}

TEST_F(EndToEnd, UsageErrorsHaveTheirExitCodes) {
  CliResult unknown = cluster_->Cli({"submit", SourcePath("problems/level1/19_ReLU/solution.cu"), "--problem", "level1/19_Relu"});
  EXPECT_EQ(unknown.exit_code, 2);
  // With the generated KernelBench catalog present (a developer's tree after the importer ran),
  // kernelbench/level1/19_ReLU is a second suggestion, listed first.
  EXPECT_TRUE(unknown.err.find("did you mean level1/19_ReLU") != std::string::npos ||
              unknown.err.find(", level1/19_ReLU") != std::string::npos)
      << unknown.err;
  CliResult missing = cluster_->Cli({"submit", "/nonexistent.cu", "--problem", "level1/19_ReLU"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("cannot read"), std::string::npos);
  CliResult bad_id = cluster_->Cli({"job", "abc"});
  EXPECT_EQ(bad_id.exit_code, 2);
  Cluster nowhere("nowhere");
  CliResult down = nowhere.Cli({"problems"}, 30);
  EXPECT_EQ(down.exit_code, 3);
  EXPECT_NE(down.err.find("cannot reach"), std::string::npos) << down.err;
}

TEST_F(EndToEnd, ProblemCommandsShowTheCatalog) {
  CliResult list = cluster_->Cli({"problems"});
  ASSERT_EQ(list.exit_code, 0);
  std::set<std::string> names;
  for (const auto& problem : list.json["problems"]) names.insert(problem["name"].get<std::string>());
  EXPECT_TRUE(names.count("level1/19_ReLU") && names.count("level1/23_Softmax") &&
              names.count("level1/1_Square_matrix_multiplication_"))
      << list.out;
  CliResult relu = cluster_->Cli({"problem", "level1/19_ReLU"});
  ASSERT_EQ(relu.exit_code, 0);
  EXPECT_NE(relu.json["description"].get<std::string>().find("ReLU"), std::string::npos);
  EXPECT_NE(relu.json["starter_file"].get<std::string>().find("kjudge-plan"), std::string::npos);
  EXPECT_EQ(relu.json["bench_shapes"][0], "M=4096,N=393216");
}

TEST_F(EndToEnd, PromptAndBaselineCommands) {
  CliResult prompt = cluster_->Cli({"problem", "level1/23_Softmax"});
  ASSERT_EQ(prompt.exit_code, 0);
  const std::string text = prompt.json["prompt"];
  EXPECT_NE(text.find("# Task: level1/23_Softmax"), std::string::npos);
  EXPECT_NE(text.find("kjudge-plan"), std::string::npos);
  EXPECT_NE(text.find("Benchmark shapes: M=4096,N=393216"), std::string::npos) << text;
  EXPECT_NE(text.find("Standard headers work in device code: <cmath>, <cfloat>"), std::string::npos) << text;

  const std::string file = cluster_->dir() + "/torch.jsonl";
  std::ofstream(file) << R"({"problem": "level1/19_ReLU", "shape": "M=4096,N=393216", "name": "torch_eager", "median_us": 3300.5, "samples": 50, "gpu": "NVIDIA H200"})"
                      << "\n";
  CliResult imported = cluster_->Cli({"baselines", "import", file});
  EXPECT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_EQ(imported.json["stored"], "1");  // int64 is a JSON string in proto JSON
  CliResult listed = cluster_->Cli({"baselines", "--problems", "level1/19"});
  ASSERT_EQ(listed.exit_code, 0);
  ASSERT_EQ(listed.json["baselines"].size(), 1u) << listed.out;
  EXPECT_EQ(listed.json["baselines"][0]["hardware_key"], "imported|NVIDIA H200");
  EXPECT_EQ(listed.json["baselines"][0]["timing"]["median_us"], 3300.5);
  // Refresh forgets measured baselines only: the imported one stays.
  CliResult refreshed = cluster_->Cli({"baselines", "--refresh", "--no-run"});
  EXPECT_EQ(refreshed.exit_code, 0) << refreshed.err;
  EXPECT_EQ(cluster_->Cli({"baselines"}).json["baselines"].size(), 1u);

  std::ofstream(file) << R"({"problem": "level9/nope", "shape": "N=1", "name": "x", "median_us": 1, "gpu": "g"})" << "\n";
  CliResult bad = cluster_->Cli({"baselines", "import", file});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("needs a catalog problem"), std::string::npos) << bad.err;
}

TEST_F(EndToEnd, PrometheusMetricsAreServed) {
  const int metrics_port = FreeLoopbackPort();
  cluster_->KillServer(SIGTERM);
  cluster_->StartServer({"--metrics-listen", "127.0.0.1:" + std::to_string(metrics_port)});
  cluster_->Cli({"submit", SourcePath("tests/gpu/cases/bad_plan.cu"), "--problem", "level1/19_ReLU"});
  cluster_->Cli({"submit", SourcePath("problems/level1/19_ReLU/solution.cu"), "--problem", "level1/19_ReLU",
                 "--compile-only"});
  std::string metrics;
  for (int i = 0; i < 40 && metrics.find("kjudge_jobs{state=\"queued\"} 1") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // gauges refresh once a second
    metrics = HttpGet(metrics_port, "/metrics");
  }
  EXPECT_NE(metrics.find("200 OK"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("kjudge_jobs_finished_total{verdict=\"REJECTED\"} 1"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("kjudge_jobs_submitted_total 1"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("kjudge_jobs{state=\"queued\"} 1"), std::string::npos) << metrics;
}

TEST_F(EndToEnd, CompilationPastItsLimitIsATimeout) {
  // The worker's compile limit, set absurdly low: the runner is killed mid-compilation, the job
  // gets TIMEOUT, and a fresh runner serves the next job.
  cluster_->StartWorker({"--compile-timeout", "0.001"});
  CliResult r = SubmitAndWait("problems/level1/23_Softmax/solution.cu", "level1/23_Softmax");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err << cluster_->Logs();
  EXPECT_EQ(Verdict(r), "TIMEOUT");
  EXPECT_NE(r.json["result"]["message"].get<std::string>().find("compilation took longer"), std::string::npos)
      << r.out;
}

TEST_F(EndToEnd, TlsServesClientsThatTrustTheCertificate) {
  const std::string dir = cluster_->dir();
  CommandResult cert = kjudge::testing::Run({"/usr/bin/openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                            "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                            "-keyout", dir + "/key.pem", "-out", dir + "/cert.pem"},
                           std::chrono::seconds(60));
  ASSERT_EQ(cert.exit_code, 0) << cert.err;
  cluster_->KillServer(SIGTERM);
  cluster_->StartServer({"--tls-cert", dir + "/cert.pem", "--tls-key", dir + "/key.pem"});
  CliResult trusted = cluster_->Cli({"--tls-ca", dir + "/cert.pem", "problems"}, 30);
  EXPECT_EQ(trusted.exit_code, 0) << trusted.err;
  CliResult plaintext = cluster_->Cli({"problems"}, 30);
  EXPECT_EQ(plaintext.exit_code, 3) << "a plaintext client must not get through a TLS port";
}

TEST_F(EndToEnd, JsonLogsAreOneObjectPerLineWithJobIds) {
  cluster_->KillServer(SIGTERM);
  cluster_->StartServer({"--log-format", "json"});
  CliResult r = cluster_->Cli({"submit", SourcePath("tests/gpu/cases/bad_plan.cu"), "--problem", "level1/19_ReLU"});
  ASSERT_EQ(Verdict(r), "REJECTED");
  std::istringstream log(ReadFileOrEmpty(cluster_->dir() + "/server-2.log"));
  int lines = 0;
  bool job_line = false;
  for (std::string line; std::getline(log, line); ++lines) {
    nlohmann::json entry = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    ASSERT_TRUE(entry.is_object()) << "not JSON: " << line;
    EXPECT_TRUE(entry.contains("ts") && entry.contains("level") && entry.contains("msg")) << line;
    job_line = job_line || entry["msg"].get<std::string>().find("job " + IdText(r.json["id"])) == 0;
  }
  EXPECT_GE(lines, 2);
  EXPECT_TRUE(job_line) << "no log line names the job";
}

TEST_F(EndToEnd, SigtermDrainsTheWorker) {
  // The first SIGTERM stops the worker from taking work; it exits cleanly, and jobs submitted
  // afterwards wait in the queue for another worker instead of being lost.
  cluster_->StartWorker();
  ASSERT_TRUE(cluster_->WaitForLog("worker.log", "registered with", 30)) << cluster_->Logs();
  cluster_->SignalWorker(SIGTERM);
  EXPECT_EQ(cluster_->WaitWorker(20), 0) << cluster_->Logs();
  EXPECT_TRUE(cluster_->WaitForLog("worker.log", "worker stopping after 0 job(s)", 5)) << cluster_->Logs();
  CliResult queued = cluster_->Cli({"submit", SourcePath("problems/level1/19_ReLU/solution.cu"), "--problem",
                                    "level1/19_ReLU", "--compile-only"});
  ASSERT_EQ(queued.exit_code, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(cluster_->Cli({"job", IdText(queued.json["id"])}).json["state"], "QUEUED");
  cluster_->StartWorker();
  CliResult done = cluster_->Cli({"job", IdText(queued.json["id"]), "--wait", "--timeout", "60"});
  EXPECT_EQ(Verdict(done), "COMPILED") << done.out << done.err;
}

// The server is killed while it works: a worker leasing and completing jobs and a client
// submitting. Every acknowledged submission ends COMPILED, and the file passes the check after.
TEST_F(EndToEnd, SubmissionsSurviveKill9OfTheServer) {
  cluster_->StartWorker();
  std::vector<std::string> ids;
  const auto submit = [&] {
    CliResult r = cluster_->Cli({"submit", SourcePath("problems/level1/19_ReLU/solution.cu"), "--problem",
                                 "level1/19_ReLU", "--compile-only", "--tag", "run=kill9"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ids.push_back(IdText(r.json["id"]));
  };
  for (int i = 0; i < 20; ++i) submit();
  // Killed once the worker has finished a job (so leases and completions are in flight).
  ASSERT_TRUE(cluster_->WaitForLog("server-1.log", "done by", 60)) << cluster_->Logs();
  cluster_->KillServer(SIGKILL);
  EXPECT_EQ(cluster_->CheckDatabase(), "") << "right after the kill";
  cluster_->StartServer();
  for (int i = 0; i < 5; ++i) submit();
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), 25u);
  for (const std::string& id : ids) {
    CliResult r = cluster_->Cli({"job", id, "--wait", "--timeout", "120"});
    EXPECT_EQ(r.exit_code, 0) << "job " << id << ": " << r.out << r.err << cluster_->Logs();
    EXPECT_EQ(Verdict(r), "COMPILED");
    EXPECT_EQ(r.json["tags"]["run"], "kill9");
  }
  EXPECT_EQ(cluster_->CheckDatabase(), "");
}

TEST_F(EndToEnd, RunningJobOfAKilledWorkerIsRunAgain) {
  // A worker that dies holding a lease: the job goes back to the queue when the lease expires
  // and another worker finishes it. The first worker is frozen (SIGSTOP) while its long-poll
  // LeaseJob call is open, so the server leases the job to it and it can never answer.
  cluster_->KillServer(SIGTERM);
  cluster_->StartServer({"--lease-seconds", "2"});
  cluster_->StartWorker();
  ASSERT_TRUE(cluster_->WaitForLog("worker.log", "registered with", 30)) << cluster_->Logs();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  cluster_->SignalWorker(SIGSTOP);
  CliResult submitted = cluster_->Cli({"submit", SourcePath("problems/level1/23_Softmax/solution.cu"), "--problem",
                                       "level1/23_Softmax", "--compile-only"});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  const std::string id = IdText(submitted.json["id"]);
  bool leased = false;
  for (int i = 0; i < 100 && !leased; ++i) {
    leased = cluster_->Cli({"job", id}).json["state"] == "RUNNING";
    if (!leased) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(leased) << "the frozen worker never got the lease:\n" << cluster_->Logs();
  cluster_->StopWorker(SIGKILL);
  cluster_->StartWorker();
  CliResult r = cluster_->Cli({"job", id, "--wait", "--timeout", "60"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err << cluster_->Logs();
  EXPECT_EQ(Verdict(r), "COMPILED");
  EXPECT_EQ(r.json["attempts"], 2);
}

}  // namespace
}  // namespace kjudge::testing
