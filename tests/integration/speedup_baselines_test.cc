// Honest default speedups over loopback (issue 12): a real kjudge-server on a real SQLite file,
// PyTorch eager times imported with `kjudge baselines import`, and results recorded the way a
// GPU worker records them (its RPCs through the generated stubs, with timings, speedups and the
// baselines the server asked it to measure). Then GetStats, `kjudge stats` and `kjudge job`
// must name, per problem, the denominator the default used: the library where it is the
// strongest, PyTorch eager where it is, and the reference only where nothing else was measured,
// saying so. No GPU needed.
#include <grpcpp/grpcpp.h>

#include <fstream>

#include "kjudge/v1/kjudge.grpc.pb.h"
#include "tests/integration/cluster.h"
#include "tests/support/binary_path.h"
#include "tests/support/subprocess.h"

namespace kjudge::testing {
namespace {

const std::string kGpu = "NVIDIA H100 80GB HBM3";
const std::string kGemm = "level1/17_Matmul_with_transposed_B";  // cublas besides the reference
const std::string kRelu = "level1/19_ReLU";                      // reference only, eager imported
const std::string kSoftmax = "level1/23_Softmax";                // reference only, nothing imported

class SpeedupBaselines : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<Cluster>(::testing::UnitTest::GetInstance()->current_test_info()->name());
    submitter_ = cluster_->CreateKey("submitter");
    admin_ = cluster_->CreateKey("admin");
    worker_key_ = cluster_->CreateKey("worker");
    cluster_->StartServer({"--require-auth"});
    auto channel = grpc::CreateChannel(cluster_->address(), grpc::InsecureChannelCredentials());
    workers_ = v1::WorkerService::NewStub(channel);
    clients_ = v1::ClientService::NewStub(channel);
    grpc::ClientContext context;
    Prepare(&context, worker_key_);
    v1::RegisterWorkerRequest request;
    request.set_name("fake-gpu");
    request.mutable_gpu()->set_name(kGpu);
    request.mutable_gpu()->set_sm_count(132);
    request.mutable_gpu()->set_arch("sm_90a");
    v1::RegisterWorkerResponse response;
    ASSERT_TRUE(workers_->RegisterWorker(&context, request, &response).ok());
    worker_ = response.worker_id();
  }
  static void Prepare(grpc::ClientContext* context, const std::string& key) {
    context->AddMetadata("authorization", "Bearer " + key);
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  }
  std::string BenchShape(const std::string& problem) {
    grpc::ClientContext context;
    Prepare(&context, submitter_);
    v1::GetProblemRequest request;
    request.set_name(problem);
    v1::Problem spec;
    EXPECT_TRUE(clients_->GetProblem(&context, request, &spec).ok());
    return spec.bench_shapes_size() == 1 ? spec.bench_shapes(0) : "";
  }
  // Submits the problem's example, leases it as the fake GPU worker and completes it CORRECT at
  // `candidate_us`, measuring the baselines the server asks for at `baseline_us` (by name), and
  // with the speedups the runner would compute from them. Returns the job id.
  std::string Judge(const std::string& problem, double candidate_us, const std::map<std::string, double>& baseline_us) {
    grpc::ClientContext submit_context;
    Prepare(&submit_context, submitter_);
    v1::SubmitRequest submit;
    submit.set_problem(problem);
    submit.set_source(ReadFileOrEmpty(SourcePath("problems/" + problem + "/solution.cu")));
    v1::SubmitResponse submitted;
    EXPECT_TRUE(clients_->Submit(&submit_context, submit, &submitted).ok());
    grpc::ClientContext lease_context;
    Prepare(&lease_context, worker_key_);
    v1::LeaseJobRequest lease_request;
    lease_request.set_worker_id(worker_);
    lease_request.set_wait_ms(5000);
    v1::LeaseJobResponse lease;
    EXPECT_TRUE(workers_->LeaseJob(&lease_context, lease_request, &lease).ok());
    EXPECT_EQ(lease.spec().job_id(), submitted.job_id());
    const std::string shape = BenchShape(problem);
    v1::CompleteJobRequest complete;
    complete.set_worker_id(worker_);
    complete.set_job_id(submitted.job_id());
    complete.set_lease_token(lease.lease_token());
    v1::JobResult* result = complete.mutable_result();
    result->set_verdict(v1::CORRECT);
    result->set_message("correct on 5 test shapes");
    result->set_gpu(kGpu);
    v1::ShapeTiming* timing = result->add_timings();
    timing->set_shape(shape);
    timing->mutable_timing()->set_median_us(candidate_us);
    for (const auto& [name, us] : baseline_us) {
      v1::BaselineTiming* b = complete.add_new_baselines();
      b->set_problem(problem);
      b->set_shape(shape);
      b->set_name(name);
      b->mutable_timing()->set_median_us(us);
      v1::Speedup* speedup = result->add_speedups();
      speedup->set_shape(shape);
      speedup->set_baseline(name);
      speedup->set_speedup(us / candidate_us);
    }
    grpc::ClientContext complete_context;
    Prepare(&complete_context, worker_key_);
    v1::CompleteJobResponse completed;
    EXPECT_TRUE(workers_->CompleteJob(&complete_context, complete, &completed).ok());
    EXPECT_TRUE(completed.accepted());
    return submitted.job_id();
  }
  // `kjudge` without --json, as a person runs it.
  CommandResult Human(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {ResolveBinary("kjudge", "KJUDGE_CLI_BIN", KJUDGE_CLI_BIN), "--server",
                                     cluster_->address(), "--api-key", submitter_};
    argv.insert(argv.end(), args.begin(), args.end());
    return kjudge::testing::Run(argv, std::chrono::seconds(60));
  }
  void ImportEager() {
    const std::string file = cluster_->dir() + "/torch.jsonl";
    std::ofstream out(file);
    // ReLU: eager 900 us (the reference 1200 us). GEMM: eager 3000 us, slower than cublas (2700).
    out << R"({"problem": ")" << kRelu << R"(", "shape": ")" << BenchShape(kRelu)
        << R"(", "name": "torch_eager", "median_us": 900.0, "gpu": ")" << kGpu << "\"}\n";
    out << R"({"problem": ")" << kGemm << R"(", "shape": ")" << BenchShape(kGemm)
        << R"(", "name": "torch_eager", "median_us": 3000.0, "gpu": ")" << kGpu << "\"}\n";
    out.close();
    CliResult imported = cluster_->Cli({"--api-key", admin_, "baselines", "import", file});
    ASSERT_EQ(imported.exit_code, 0) << imported.err;
    ASSERT_EQ(imported.json.value("stored", std::string()), "2") << imported.out;
  }

  std::unique_ptr<Cluster> cluster_;
  std::unique_ptr<v1::WorkerService::Stub> workers_;
  std::unique_ptr<v1::ClientService::Stub> clients_;
  std::string submitter_, admin_, worker_key_, worker_;
};

const nlohmann::json* Row(const nlohmann::json& stats, const std::string& problem) {
  for (const nlohmann::json& row : stats["problems"]) {
    if (row.value("problem", "") == problem) return &row;
  }
  return nullptr;
}

TEST_F(SpeedupBaselines, EachProblemsDefaultIsItsStrongestMeasuredBaselineAndEveryOutputNamesIt) {
  ImportEager();
  // GEMM: 5400 us, 27.8x the reference but 0.5x cuBLAS (and 0.56x eager).
  const std::string gemm = Judge(kGemm, 5400.0, {{"reference", 150000.0}, {"cublas", 2700.0}});
  const std::string relu = Judge(kRelu, 600.0, {{"reference", 1200.0}});  // 2x reference, 1.5x eager
  Judge(kSoftmax, 500.0, {{"reference", 1500.0}});                        // 3x its reference, nothing else

  // The job result records its default, chosen by the server.
  grpc::ClientContext context;
  Prepare(&context, submitter_);
  v1::GetJobRequest get;
  get.set_job_id(gemm);
  v1::Job job;
  ASSERT_TRUE(clients_->GetJob(&context, get, &job).ok());
  EXPECT_EQ(job.result().default_denominator().baseline(), "cublas") << job.result().DebugString();
  EXPECT_EQ(job.result().default_denominator().kind(), v1::BASELINE_KIND_LIBRARY);
  EXPECT_EQ(job.result().speedups_size(), 3);  // reference, cublas, and the imported eager
  EXPECT_NE(job.result().message().find("; default speedup 0.50x vs cublas (library;"), std::string::npos)
      << job.result().message();

  // GetStats through the CLI's --json: one row per problem with its denominator.
  CliResult stats = cluster_->Cli({"--api-key", submitter_, "stats"});
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  EXPECT_EQ(stats.json.value("baseline", ""), "strongest");
  EXPECT_TRUE(stats.json.value("default_baseline", false));
  const nlohmann::json* gemm_row = Row(stats.json, kGemm);
  const nlohmann::json* relu_row = Row(stats.json, kRelu);
  const nlohmann::json* softmax_row = Row(stats.json, kSoftmax);
  ASSERT_TRUE(gemm_row && relu_row && softmax_row) << stats.out;
  EXPECT_EQ((*gemm_row)["denominator"].value("baseline", ""), "cublas");
  EXPECT_EQ((*gemm_row)["denominator"].value("kind", ""), "BASELINE_KIND_LIBRARY");
  EXPECT_NEAR((*gemm_row).value("geomean_speedup", 0.0), 0.5, 1e-9);
  EXPECT_NEAR((*gemm_row).value("torch_eager_geomean_speedup", 0.0), 3000.0 / 5400.0, 1e-9);
  EXPECT_EQ((*relu_row)["denominator"].value("baseline", ""), "torch_eager");
  EXPECT_EQ((*relu_row)["denominator"].value("kind", ""), "BASELINE_KIND_PYTORCH_EAGER");
  EXPECT_NEAR((*relu_row).value("geomean_speedup", 0.0), 1.5, 1e-9);
  EXPECT_EQ((*softmax_row)["denominator"].value("baseline", ""), "reference");
  EXPECT_EQ((*softmax_row)["denominator"].value("kind", ""), "BASELINE_KIND_REFERENCE_ONLY");
  EXPECT_EQ((*softmax_row).value("gpu", ""), kGpu);
  // Overall geomean over 0.5 (cublas), 1.5 (eager), 3 (reference only): 1.31x, not the 5.9x
  // that the reference everywhere would read.
  EXPECT_NEAR(stats.json.value("geomean_speedup", 0.0), std::cbrt(0.5 * 1.5 * 3.0), 1e-9);
  ASSERT_TRUE(stats.json.contains("kernelbench")) << stats.out;
  EXPECT_EQ(stats.json["kernelbench"].value("baseline", ""), "torch_eager");
  EXPECT_EQ(stats.json["kernelbench"].value("with_speedup", ""), "2");

  // The table a person reads names every denominator, and says when it is the reference.
  CommandResult table = Human({"stats"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("vs cublas (library;"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("vs torch_eager (PyTorch eager, KernelBench's definition;"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("vs reference (catalog kernel; no library or PyTorch baseline measured)"), std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("fast_p vs torch_eager (PyTorch eager: KernelBench's definition)"), std::string::npos)
      << table.out;

  // KernelBench's definition is one flag away; the reference only when asked for.
  CliResult kernelbench = cluster_->Cli({"--api-key", submitter_, "stats", "--kernelbench"});
  ASSERT_EQ(kernelbench.exit_code, 0) << kernelbench.err;
  EXPECT_EQ(kernelbench.json.value("baseline", ""), "torch_eager");
  EXPECT_NEAR(kernelbench.json.value("geomean_speedup", 0.0), std::sqrt(3000.0 / 5400.0 * 1.5), 1e-9);
  CliResult reference = cluster_->Cli({"--api-key", submitter_, "stats", "--baseline", "reference"});
  ASSERT_EQ(reference.exit_code, 0) << reference.err;
  EXPECT_EQ((*Row(reference.json, kGemm))["denominator"].value("kind", ""), "BASELINE_KIND_REFERENCE");
  EXPECT_NEAR((*Row(reference.json, kGemm)).value("geomean_speedup", 0.0), 150000.0 / 5400.0, 1e-9);
  CliResult both = cluster_->Cli({"--api-key", submitter_, "stats", "--kernelbench", "--baseline", "cublas"});
  EXPECT_EQ(both.exit_code, 2) << both.out;

  // The job view names the baseline beside every speedup and marks the default.
  CommandResult view = Human({"job", relu});
  ASSERT_EQ(view.exit_code, 0) << view.err;
  EXPECT_NE(view.out.find("speedup vs torch_eager (PyTorch eager, KernelBench's definition) at"), std::string::npos)
      << view.out;
  EXPECT_NE(view.out.find("1.500x   <- default"), std::string::npos) << view.out;
  EXPECT_NE(view.out.find("speedup vs reference (catalog kernel) at"), std::string::npos) << view.out;
  EXPECT_NE(view.out.find("default speedup: 1.500x vs torch_eager"), std::string::npos) << view.out;
  CommandResult gemm_view = Human({"job", gemm});
  EXPECT_NE(gemm_view.out.find("default speedup: 0.500x vs cublas (library;"), std::string::npos) << gemm_view.out;
  EXPECT_NE(gemm_view.out.find("KernelBench speedup: 0.556x vs torch_eager"), std::string::npos) << gemm_view.out;
}

}  // namespace
}  // namespace kjudge::testing
