// Problems defined by a PyTorch module (issue 14, docs/pytorch-problems.md section 2), over
// loopback against a real kjudge-server on a real SQLite file, with workers registered through
// the generated stubs (fake GPUs: GpuInfo with and without torch_version):
//  * a module-only problem's judged job is never leased to a worker without PyTorch and is
//    leased to one with it, with reference.py's text in the RunSpec; a CUDA-reference job goes
//    to either; a compile-only module job goes anywhere, and a real compile-only worker
//    compiles the fixture's example (COMPILED);
//  * the server asks a PyTorch worker for torch_eager and torch_compile on a module problem,
//    stores them under the worker's hardware key ("|torch <version>"), and makes torch_eager,
//    not torch_compile, the default denominator;
//  * `kjudge problems --json` marks the problem needs_pytorch.
// The catalog: a copy of problems/level1/19_ReLU and tests/problems/module/linear_relu.
#include <grpcpp/grpcpp.h>

#include <filesystem>

#include "kjudge/v1/kjudge.grpc.pb.h"
#include "tests/integration/cluster.h"
#include "tests/support/binary_path.h"
#include "tests/support/subprocess.h"

namespace kjudge::testing {
namespace {

namespace fs = std::filesystem;

const std::string kModuleProblem = "module/linear_relu";
const std::string kCudaProblem = "level1/19_ReLU";

v1::GpuInfo FakeGpu(const std::string& torch_version) {
  v1::GpuInfo gpu;
  gpu.set_name("NVIDIA H100 80GB HBM3");
  gpu.set_sm_count(132);
  gpu.set_memory_bytes(int64_t{80} << 30);
  gpu.set_arch("sm_90a");
  gpu.set_driver_version("13.0");
  gpu.set_torch_version(torch_version);
  return gpu;
}

class TorchRouting : public ::testing::Test {
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
  std::string Submit(const std::string& problem, bool compile_only) {
    grpc::ClientContext context;
    Prepare(&context);
    v1::SubmitRequest request;
    request.set_problem(problem);
    const std::string dir = problem == kModuleProblem ? "tests/problems/" : "problems/";
    request.set_source(ReadFileOrEmpty(SourcePath(dir + problem + "/solution.cu")));
    request.set_compile_only(compile_only);
    v1::SubmitResponse response;
    grpc::Status status = clients_->Submit(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.job_id();
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
  // Completes `lease` as CORRECT, timed at `shape` (100 us), with speedups against the given
  // baseline medians and those baselines offered as newly measured.
  bool Complete(const std::string& worker, const v1::LeaseJobResponse& lease, const std::string& shape,
                const std::vector<std::pair<std::string, double>>& baselines) {
    grpc::ClientContext context;
    Prepare(&context);
    v1::CompleteJobRequest request;
    request.set_worker_id(worker);
    request.set_job_id(lease.spec().job_id());
    request.set_lease_token(lease.lease_token());
    v1::JobResult* result = request.mutable_result();
    result->set_verdict(v1::CORRECT);
    v1::ShapeTiming* timing = result->add_timings();
    timing->set_shape(shape);
    timing->mutable_timing()->set_median_us(100.0);
    for (const auto& [name, us] : baselines) {
      v1::Speedup* speedup = result->add_speedups();
      speedup->set_shape(shape);
      speedup->set_baseline(name);
      speedup->set_speedup(us / 100.0);
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

TEST_F(TorchRouting, AModuleOnlyJobGoesOnlyToAWorkerWithPyTorch) {
  const std::string plain = Register(FakeGpu(""));
  const std::string job = Submit(kModuleProblem, /*compile_only=*/false);
  EXPECT_FALSE(Lease(plain, 1000).has_job()) << cluster_->Logs();
  EXPECT_EQ(GetJob(job).state(), v1::QUEUED);  // accepted, waiting for a worker with PyTorch

  const std::string torch = Register(FakeGpu("2.11.0+cu130"));
  const v1::LeaseJobResponse lease = Lease(torch);
  ASSERT_TRUE(lease.has_job()) << cluster_->Logs();
  EXPECT_EQ(lease.spec().job_id(), job);
  EXPECT_EQ(lease.spec().problem(), kModuleProblem);
  EXPECT_NE(lease.spec().reference_module().find("class Model(nn.Module)"), std::string::npos);
  EXPECT_EQ(lease.spec().reference_source(), "");  // there is no reference.cu
  EXPECT_NE(lease.spec().spec_toml().find("[module.parameters]"), std::string::npos);
}

TEST_F(TorchRouting, ACudaReferenceJobGoesToEitherWorker) {
  const std::string plain = Register(FakeGpu(""));
  const std::string torch = Register(FakeGpu("2.11.0"));
  const std::string first = Submit(kCudaProblem, false);
  const std::string second = Submit(kCudaProblem, false);
  const v1::LeaseJobResponse a = Lease(plain);
  const v1::LeaseJobResponse b = Lease(torch);
  ASSERT_TRUE(a.has_job() && b.has_job()) << cluster_->Logs();
  EXPECT_EQ(a.spec().job_id(), first);
  EXPECT_EQ(b.spec().job_id(), second);
  EXPECT_FALSE(a.spec().reference_source().empty());
  // 19_ReLU has both references: both travel, and the judge uses reference.cu (the module is the
  // oracle's, checked against it on GPU hosts), so a worker without PyTorch can judge it.
  EXPECT_NE(a.spec().reference_module(), "");
}

TEST_F(TorchRouting, ACompileOnlyModuleJobGoesAnywhereAndCompiles) {
  const std::string plain = Register(FakeGpu(""));
  const std::string job = Submit(kModuleProblem, /*compile_only=*/true);
  const v1::LeaseJobResponse lease = Lease(plain);
  ASSERT_TRUE(lease.has_job()) << cluster_->Logs();
  EXPECT_EQ(lease.spec().job_id(), job);
  EXPECT_TRUE(lease.spec().compile_only());

  // A real compile-only worker (no GPU, no PyTorch) compiles the example: the path every
  // problem's starter and example go through in CI.
  cluster_->StartWorker();
  CliResult r = cluster_->Cli({"submit", SourcePath("tests/problems/" + kModuleProblem + "/starter.cu"), "--problem",
                               kModuleProblem, "--compile-only", "--wait"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err << cluster_->Logs();
  EXPECT_EQ(r.json.value("/result/verdict"_json_pointer, std::string()), "COMPILED") << r.out;
}

TEST_F(TorchRouting, PyTorchBaselinesAreAskedOfTorchWorkersAndEagerIsTheDefault) {
  const std::string torch = Register(FakeGpu("2.11.0"));
  Submit(kModuleProblem, false);
  const v1::LeaseJobResponse lease = Lease(torch);
  ASSERT_TRUE(lease.has_job()) << cluster_->Logs();
  const std::string shape = BenchShape(kModuleProblem);
  // "reference" is offered but was not asked for: a module-only problem has no CUDA reference.
  ASSERT_TRUE(Complete(torch, lease, shape, {{"torch_eager", 300.0}, {"torch_compile", 50.0}, {"reference", 1e6}}));

  std::map<std::string, v1::BaselineTiming> stored;
  for (const v1::BaselineTiming& b : Baselines()) stored[b.name()] = b;
  ASSERT_EQ(stored.size(), 2u) << cluster_->Logs();
  ASSERT_TRUE(stored.contains("torch_eager") && stored.contains("torch_compile"));
  EXPECT_DOUBLE_EQ(stored["torch_eager"].timing().median_us(), 300.0);
  EXPECT_DOUBLE_EQ(stored["torch_compile"].timing().median_us(), 50.0);
  EXPECT_EQ(stored["torch_eager"].problem(), kModuleProblem);
  EXPECT_TRUE(stored["torch_eager"].hardware_key().ends_with("|torch 2.11.0")) << stored["torch_eager"].hardware_key();

  // torch_compile is 6x faster, yet the default speedup is against torch_eager.
  const v1::Job job = GetJob(lease.spec().job_id());
  EXPECT_EQ(job.result().default_denominator().baseline(), "torch_eager");
  EXPECT_EQ(job.result().default_denominator().kind(), v1::BASELINE_KIND_PYTORCH_EAGER);

  // The next job of the problem on the same worker gets them as cached baselines.
  Submit(kModuleProblem, false);
  const v1::LeaseJobResponse next = Lease(torch);
  ASSERT_TRUE(next.has_job());
  EXPECT_EQ(next.spec().cached_baselines_size(), 2);
}

TEST_F(TorchRouting, AWorkerWithoutPyTorchIsNotAskedForPyTorchBaselines) {
  const std::string plain = Register(FakeGpu(""));
  Submit(kCudaProblem, false);
  const v1::LeaseJobResponse lease = Lease(plain);
  ASSERT_TRUE(lease.has_job());
  const std::string shape = BenchShape(kCudaProblem);
  ASSERT_TRUE(Complete(plain, lease, shape, {{"reference", 40.0}, {"torch_eager", 30.0}}));
  const std::vector<v1::BaselineTiming> stored = Baselines();
  ASSERT_EQ(stored.size(), 1u) << cluster_->Logs();
  EXPECT_EQ(stored[0].name(), "reference");
}

TEST_F(TorchRouting, TheCliMarksProblemsThatNeedPyTorch) {
  CliResult list = cluster_->Cli({"problems"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  std::map<std::string, bool> needs;
  for (const auto& p : list.json["problems"]) needs[p.value("name", "")] = p.value("needs_pytorch", false);
  EXPECT_EQ(needs, (std::map<std::string, bool>{{kCudaProblem, false}, {kModuleProblem, true}})) << list.out;
  CliResult one = cluster_->Cli({"problem", kModuleProblem});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_TRUE(one.json.value("needs_pytorch", false)) << one.out;
}

}  // namespace
}  // namespace kjudge::testing
