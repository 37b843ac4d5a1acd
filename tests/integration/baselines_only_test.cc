// Baselines-only jobs (SubmitRequest.baselines_only), over loopback against a real kjudge-server
// on a real SQLite file, with workers registered through the generated stubs (fake GPUs) and the
// real `kjudge` CLI:
//  * intake: a source, a launch plan or compile_only with baselines_only is INVALID_ARGUMENT
//    naming the field, an unknown problem NOT_FOUND, an empty source without it INVALID_ARGUMENT
//    as before; a valid one is QUEUED with baselines_only set;
//  * lease: never to a compile-only worker; a GPU worker gets a RunSpec with baselines_only, no
//    source, no plan; a module-only problem's job only to a worker with PyTorch;
//  * result: a BASELINES_MEASURED result's new baselines are stored as for any job (only those
//    asked of the lease), listed in the stored result (JobResult.baselines), the job DONE;
//  * stats: a baselines-only job with the same tags as a CORRECT one changes no count, and
//    job lists still show it;
//  * CLI: `kjudge baselines measure` submits one job per problem (--wait prints each finished
//    job), and `kjudge --json job ID` carries the measured baselines.
// The catalog: a copy of problems/level1/19_ReLU and tests/problems/module/linear_relu.
#include <grpcpp/grpcpp.h>

#include <filesystem>
#include <sstream>
#include <thread>

#include "kjudge/v1/kjudge.grpc.pb.h"
#include "tests/integration/cluster.h"
#include "tests/support/binary_path.h"
#include "tests/support/subprocess.h"

namespace kjudge::testing {
namespace {

namespace fs = std::filesystem;

const std::string kModuleProblem = "module/linear_relu";
const std::string kCudaProblem = "level1/19_ReLU";

v1::GpuInfo FakeGpu(const std::string& torch_version, bool compile_only = false) {
  v1::GpuInfo gpu;
  gpu.set_name(compile_only ? "" : "NVIDIA H100 80GB HBM3");
  gpu.set_sm_count(compile_only ? 0 : 132);
  gpu.set_arch("sm_90a");
  gpu.set_driver_version("13.0");
  gpu.set_compile_only(compile_only);
  gpu.set_torch_version(torch_version);
  return gpu;
}

class BaselinesOnly : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<Cluster>(::testing::UnitTest::GetInstance()->current_test_info()->name());
    const fs::path catalog = fs::path(cluster_->dir()) / "catalog";
    fs::create_directories(catalog / "level1");
    fs::create_directories(catalog / "module");
    fs::copy(SourcePath("problems/" + kCudaProblem), catalog / kCudaProblem, fs::copy_options::recursive);
    fs::copy(SourcePath("tests/problems/" + kModuleProblem), catalog / kModuleProblem, fs::copy_options::recursive);
    cluster_->SetProblems(catalog.string());
    cluster_->StartServer();
    auto channel = grpc::CreateChannel(cluster_->address(), grpc::InsecureChannelCredentials());
    workers_ = v1::WorkerService::NewStub(channel);
    clients_ = v1::ClientService::NewStub(channel);
  }
  static void Prepare(grpc::ClientContext* context) {
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  }
  std::string Register(const v1::GpuInfo& gpu) {
    grpc::ClientContext context;
    Prepare(&context);
    v1::RegisterWorkerRequest request;
    request.set_name("fake");
    *request.mutable_gpu() = gpu;
    v1::RegisterWorkerResponse response;
    grpc::Status status = workers_->RegisterWorker(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.worker_id();
  }
  static v1::SubmitRequest BaselinesRequest(const std::string& problem) {
    v1::SubmitRequest request;
    request.set_problem(problem);
    request.set_baselines_only(true);
    return request;
  }
  grpc::Status TrySubmit(const v1::SubmitRequest& request, v1::SubmitResponse* response) {
    grpc::ClientContext context;
    Prepare(&context);
    return clients_->Submit(&context, request, response);
  }
  std::string Submit(const v1::SubmitRequest& request) {
    v1::SubmitResponse response;
    grpc::Status status = TrySubmit(request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.job_id();
  }
  // A normal (kernel) submission of the problem's solution.
  static v1::SubmitRequest KernelRequest(const std::string& problem) {
    v1::SubmitRequest request;
    request.set_problem(problem);
    const std::string dir = problem == kModuleProblem ? "tests/problems/" : "problems/";
    request.set_source(ReadFileOrEmpty(SourcePath(dir + problem + "/solution.cu")));
    return request;
  }
  v1::LeaseJobResponse Lease(const std::string& worker, int wait_ms = 300) {
    grpc::ClientContext context;
    Prepare(&context);
    v1::LeaseJobRequest request;
    request.set_worker_id(worker);
    request.set_wait_ms(wait_ms);
    v1::LeaseJobResponse response;
    grpc::Status status = workers_->LeaseJob(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }
  v1::Job GetJob(const std::string& id) {
    grpc::ClientContext context;
    Prepare(&context);
    v1::GetJobRequest request;
    request.set_job_id(id);
    v1::Job job;
    grpc::Status status = clients_->GetJob(&context, request, &job);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return job;
  }
  std::vector<v1::BaselineTiming> Baselines() {
    grpc::ClientContext context;
    Prepare(&context);
    v1::ListBaselinesResponse response;
    grpc::Status status = clients_->ListBaselines(&context, v1::ListBaselinesRequest(), &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return {response.baselines().begin(), response.baselines().end()};
  }
  v1::Stats Stats(const std::map<std::string, std::string>& tags) {
    grpc::ClientContext context;
    Prepare(&context);
    v1::GetStatsRequest request;
    request.mutable_tags()->insert(tags.begin(), tags.end());
    v1::Stats stats;
    grpc::Status status = clients_->GetStats(&context, request, &stats);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return stats;
  }
  std::string BenchShape(const std::string& problem) {
    grpc::ClientContext context;
    Prepare(&context);
    v1::GetProblemRequest request;
    request.set_name(problem);
    v1::Problem p;
    grpc::Status status = clients_->GetProblem(&context, request, &p);
    EXPECT_TRUE(status.ok() && p.bench_shapes_size() > 0) << status.error_message();
    return p.bench_shapes_size() > 0 ? p.bench_shapes(0) : "";
  }
  // Completes `lease` with `verdict` (CORRECT: timed at `shape`, 100 us, with speedups) and the
  // given baselines offered as newly measured at `shape`.
  bool Complete(const std::string& worker, const v1::LeaseJobResponse& lease, v1::Verdict verdict,
                const std::string& shape, const std::vector<std::pair<std::string, double>>& baselines) {
    grpc::ClientContext context;
    Prepare(&context);
    v1::CompleteJobRequest request;
    request.set_worker_id(worker);
    request.set_job_id(lease.spec().job_id());
    request.set_lease_token(lease.lease_token());
    v1::JobResult* result = request.mutable_result();
    result->set_verdict(verdict);
    result->set_gpu("NVIDIA H100 80GB HBM3");
    if (verdict == v1::CORRECT) {
      v1::ShapeTiming* timing = result->add_timings();
      timing->set_shape(shape);
      timing->mutable_timing()->set_median_us(100.0);
    }
    for (const auto& [name, us] : baselines) {
      if (verdict == v1::CORRECT) {
        v1::Speedup* speedup = result->add_speedups();
        speedup->set_shape(shape);
        speedup->set_baseline(name);
        speedup->set_speedup(us / 100.0);
      }
      v1::BaselineTiming* b = request.add_new_baselines();
      b->set_problem(lease.spec().problem());
      b->set_shape(shape);
      b->set_name(name);
      b->mutable_timing()->set_median_us(us);
    }
    v1::CompleteJobResponse response;
    grpc::Status status = workers_->CompleteJob(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.accepted();
  }

  std::unique_ptr<Cluster> cluster_;
  std::unique_ptr<v1::WorkerService::Stub> workers_;
  std::unique_ptr<v1::ClientService::Stub> clients_;
};

TEST_F(BaselinesOnly, IntakeRefusesAnythingOfACandidateAndQueuesTheRest) {
  v1::SubmitResponse response;
  v1::SubmitRequest with_source = BaselinesRequest(kCudaProblem);
  with_source.set_source("__global__ void k() {}");
  grpc::Status status = TrySubmit(with_source, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(status.error_message().starts_with("source:")) << status.error_message();

  v1::SubmitRequest with_plan = BaselinesRequest(kCudaProblem);
  with_plan.set_launch_plan("launch relu grid(1) block(1) args(x, y, n)");
  status = TrySubmit(with_plan, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(status.error_message().starts_with("launch_plan:")) << status.error_message();

  v1::SubmitRequest compile_only = BaselinesRequest(kCudaProblem);
  compile_only.set_compile_only(true);
  status = TrySubmit(compile_only, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(status.error_message().starts_with("compile_only:")) << status.error_message();

  status = TrySubmit(BaselinesRequest("level1/no_such_problem"), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND) << status.error_message();

  v1::SubmitRequest no_source;  // without baselines_only an empty source stays malformed
  no_source.set_problem(kCudaProblem);
  status = TrySubmit(no_source, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(status.error_message().starts_with("source: empty")) << status.error_message();

  v1::SubmitRequest valid = BaselinesRequest(kCudaProblem);
  (*valid.mutable_tags())["run"] = "b1";
  const std::string id = Submit(valid);
  ASSERT_FALSE(id.empty());
  const v1::Job job = GetJob(id);
  EXPECT_EQ(job.state(), v1::QUEUED);
  EXPECT_TRUE(job.baselines_only());
  EXPECT_FALSE(job.compile_only());
  EXPECT_EQ(job.tags().at("run"), "b1");
  EXPECT_EQ(job.queue_position(), 1);
}

TEST_F(BaselinesOnly, OnlyGpuWorkersLeaseItWithNoCandidate) {
  const std::string compiler = Register(FakeGpu("", /*compile_only=*/true));
  const std::string id = Submit(BaselinesRequest(kCudaProblem));
  EXPECT_FALSE(Lease(compiler, 1000).has_job()) << cluster_->Logs();
  EXPECT_EQ(GetJob(id).state(), v1::QUEUED);

  const std::string gpu = Register(FakeGpu(""));
  const v1::LeaseJobResponse lease = Lease(gpu);
  ASSERT_TRUE(lease.has_job()) << cluster_->Logs();
  EXPECT_EQ(lease.spec().job_id(), id);
  EXPECT_TRUE(lease.spec().baselines_only());
  EXPECT_FALSE(lease.spec().compile_only());
  EXPECT_EQ(lease.spec().source(), "");
  EXPECT_EQ(lease.spec().launch_plan(), "");
  EXPECT_FALSE(lease.spec().reference_source().empty());
  EXPECT_FALSE(lease.spec().spec_toml().empty());
  EXPECT_EQ(GetJob(id).state(), v1::RUNNING);
}

TEST_F(BaselinesOnly, AModuleOnlyProblemsJobGoesOnlyToAWorkerWithPyTorch) {
  const std::string plain = Register(FakeGpu(""));
  const std::string id = Submit(BaselinesRequest(kModuleProblem));
  EXPECT_FALSE(Lease(plain, 1000).has_job()) << cluster_->Logs();
  const std::string torch = Register(FakeGpu("2.11.0"));
  const v1::LeaseJobResponse lease = Lease(torch);
  ASSERT_TRUE(lease.has_job()) << cluster_->Logs();
  EXPECT_EQ(lease.spec().job_id(), id);
  EXPECT_TRUE(lease.spec().baselines_only());
  EXPECT_FALSE(lease.spec().reference_module().empty());
}

TEST_F(BaselinesOnly, ItsResultStoresTheAskedBaselinesAndListsThem) {
  const std::string torch = Register(FakeGpu("2.11.0"));
  const std::string id = Submit(BaselinesRequest(kModuleProblem));
  const v1::LeaseJobResponse lease = Lease(torch);
  ASSERT_TRUE(lease.has_job()) << cluster_->Logs();
  const std::string shape = BenchShape(kModuleProblem);
  // "reference" was not asked for (a module-only problem has none): dropped, as for any job.
  ASSERT_TRUE(Complete(torch, lease, v1::BASELINES_MEASURED, shape, {{"torch_eager", 300.0}, {"reference", 1e6}}));

  const std::vector<v1::BaselineTiming> stored = Baselines();
  ASSERT_EQ(stored.size(), 1u) << cluster_->Logs();
  EXPECT_EQ(stored[0].name(), "torch_eager");
  EXPECT_EQ(stored[0].shape(), shape);
  EXPECT_DOUBLE_EQ(stored[0].timing().median_us(), 300.0);
  EXPECT_TRUE(stored[0].hardware_key().ends_with("|torch 2.11.0")) << stored[0].hardware_key();

  const v1::Job job = GetJob(id);
  EXPECT_EQ(job.state(), v1::DONE);
  EXPECT_EQ(job.result().verdict(), v1::BASELINES_MEASURED);
  ASSERT_EQ(job.result().baselines_size(), 1);
  EXPECT_EQ(job.result().baselines(0).name(), "torch_eager");
  EXPECT_EQ(job.result().baselines(0).hardware_key(), stored[0].hardware_key());

  // The next job of the problem on this worker has it cached: it is not asked again.
  Submit(BaselinesRequest(kModuleProblem));
  const v1::LeaseJobResponse next = Lease(torch);
  ASSERT_TRUE(next.has_job());
  EXPECT_EQ(next.spec().cached_baselines_size(), 1);
}

TEST_F(BaselinesOnly, StatsCountNoneButJobListsShowThem) {
  const std::string gpu = Register(FakeGpu(""));
  const std::string shape = BenchShape(kCudaProblem);
  v1::SubmitRequest kernel = KernelRequest(kCudaProblem);
  (*kernel.mutable_tags())["run"] = "r1";
  Submit(kernel);
  const v1::LeaseJobResponse first = Lease(gpu);
  ASSERT_TRUE(first.has_job() && !first.spec().baselines_only()) << cluster_->Logs();
  ASSERT_TRUE(Complete(gpu, first, v1::CORRECT, shape, {{"reference", 50.0}}));
  const v1::Stats before = Stats({{"run", "r1"}});
  ASSERT_EQ(before.jobs(), 1);

  v1::SubmitRequest baselines = BaselinesRequest(kCudaProblem);
  (*baselines.mutable_tags())["run"] = "r1";
  const std::string id = Submit(baselines);
  const v1::LeaseJobResponse second = Lease(gpu);
  ASSERT_TRUE(second.has_job() && second.spec().baselines_only()) << cluster_->Logs();
  ASSERT_TRUE(Complete(gpu, second, v1::BASELINES_MEASURED, shape, {}));
  ASSERT_EQ(GetJob(id).result().verdict(), v1::BASELINES_MEASURED);

  const v1::Stats after = Stats({{"run", "r1"}});
  EXPECT_EQ(after.jobs(), before.jobs());
  EXPECT_EQ(after.compiled(), before.compiled());
  EXPECT_EQ(after.correct(), before.correct());
  EXPECT_DOUBLE_EQ(after.correctness_rate(), 1.0);
  EXPECT_DOUBLE_EQ(after.geomean_speedup(), before.geomean_speedup());
  EXPECT_FALSE(after.verdicts().contains("BASELINES_MEASURED"));
  EXPECT_EQ(Stats({}).jobs(), 1);

  CliResult list = cluster_->Cli({"jobs", "--tag", "run=r1"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("\"baselines_only\":true"), std::string::npos) << list.out;
}

TEST_F(BaselinesOnly, TheCliMeasuresAndJobJsonCarriesTheBaselines) {
  CliResult queued = cluster_->Cli({"baselines", "measure", kCudaProblem, kModuleProblem, "--tag", "run=m1"});
  ASSERT_EQ(queued.exit_code, 0) << queued.out << queued.err << cluster_->Logs();
  std::vector<nlohmann::json> jobs;
  std::istringstream lines(queued.out);
  for (std::string line; std::getline(lines, line);) jobs.push_back(nlohmann::json::parse(line, nullptr, false));
  ASSERT_EQ(jobs.size(), 2u) << queued.out;
  for (const nlohmann::json& job : jobs) {
    EXPECT_TRUE(job.value("baselines_only", false)) << job.dump();
    EXPECT_EQ(job.value("state", ""), "QUEUED") << job.dump();
    EXPECT_EQ(job["tags"].value("run", ""), "m1") << job.dump();
  }
  EXPECT_EQ(jobs[0].value("problem", ""), kCudaProblem);
  EXPECT_EQ(jobs[1].value("problem", ""), kModuleProblem);

  CliResult unknown = cluster_->Cli({"baselines", "measure", "level1/no_such_problem"});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.out << unknown.err;
  EXPECT_NE(unknown.err.find("unknown problem"), std::string::npos) << unknown.err;

  // The CUDA problem's job, measured by a fake GPU worker, as `kjudge --json job ID` shows it.
  const std::string gpu = Register(FakeGpu(""));
  const v1::LeaseJobResponse lease = Lease(gpu);
  ASSERT_TRUE(lease.has_job()) << cluster_->Logs();
  ASSERT_EQ(lease.spec().problem(), kCudaProblem);
  const std::string shape = BenchShape(kCudaProblem);
  ASSERT_TRUE(Complete(gpu, lease, v1::BASELINES_MEASURED, shape, {{"reference", 42.5}}));
  CliResult shown = cluster_->Cli({"job", lease.spec().job_id()});
  EXPECT_EQ(shown.exit_code, 0) << shown.out << shown.err;
  EXPECT_EQ(shown.json.value("/result/verdict"_json_pointer, std::string()), "BASELINES_MEASURED") << shown.out;
  const nlohmann::json& measured = shown.json["result"]["baselines"];
  ASSERT_TRUE(measured.is_array() && measured.size() == 1) << shown.out;
  EXPECT_EQ(measured[0].value("name", ""), "reference");
  EXPECT_EQ(measured[0].value("shape", ""), shape);
  EXPECT_DOUBLE_EQ(measured[0]["timing"].value("median_us", 0.0), 42.5);

  // --wait follows a new job until a worker finishes it and prints it.
  CliResult waited;
  std::thread cli([&] {
    waited = cluster_->Cli({"baselines", "measure", kCudaProblem, "--wait", "--timeout", "60"});
  });
  v1::LeaseJobResponse next;
  for (int i = 0; i < 50 && !next.has_job(); ++i) next = Lease(gpu, 1000);
  if (next.has_job()) Complete(gpu, next, v1::BASELINES_MEASURED, shape, {});
  cli.join();
  ASSERT_TRUE(next.has_job()) << cluster_->Logs();
  EXPECT_EQ(waited.exit_code, 0) << waited.out << waited.err;
  EXPECT_EQ(waited.json.value("/result/verdict"_json_pointer, std::string()), "BASELINES_MEASURED") << waited.out;
  EXPECT_TRUE(waited.json.value("baselines_only", false)) << waited.out;

  // A person's report: the verdict and what was measured.
  const std::string cli_bin = ResolveBinary("kjudge", "KJUDGE_CLI_BIN", KJUDGE_CLI_BIN);
  CommandResult text = kjudge::testing::Run({cli_bin, "--server", cluster_->address(), "job", lease.spec().job_id()},
                                            std::chrono::seconds(30));
  EXPECT_NE(text.out.find("BASELINES_MEASURED (baselines only)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("baseline reference at " + shape + ": median 42.50 us"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace kjudge::testing
