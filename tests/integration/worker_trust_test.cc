// Workers bound to their keys, over loopback against a real kjudge-server --require-auth with
// real keys, driven through the generated gRPC stubs exactly as a forger would: the issue's
// forge sequence is refused at every step that is not the key's own; a result needs the
// current lease's token and an unexpired lease; only requested baselines are stored; revoking
// a worker key requeues its job at once and the key is refused.
#include <grpcpp/grpcpp.h>

#include <algorithm>

#include <thread>

#include "kjudge/v1/kjudge.grpc.pb.h"
#include "tests/integration/cluster.h"
#include "tests/support/binary_path.h"
#include "tests/support/subprocess.h"

namespace kjudge::testing {
namespace {

const std::string kProblem = "level1/19_ReLU";

// The key's id is its public prefix: "kj_<id hex>_<secret>" -> "kj_<id hex>".
std::string KeyId(const std::string& key) { return key.substr(0, key.find('_', 3)); }

v1::GpuInfo FakeH100() {
  v1::GpuInfo gpu;
  gpu.set_name("NVIDIA H100 80GB HBM3");
  gpu.set_sm_count(132);
  gpu.set_memory_bytes(int64_t{80} << 30);
  gpu.set_arch("sm_90a");
  gpu.set_driver_version("13.0");
  return gpu;
}

v1::BaselineTiming Baseline(const std::string& problem, const std::string& shape, const std::string& name,
                            double median_us) {
  v1::BaselineTiming b;
  b.set_problem(problem);
  b.set_shape(shape);
  b.set_name(name);
  b.mutable_timing()->set_median_us(median_us);
  b.set_hardware_key("forged-key");  // the server files it under the worker's own key, if at all
  return b;
}

class WorkerTrust : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<Cluster>(::testing::UnitTest::GetInstance()->current_test_info()->name());
    submitter_ = cluster_->CreateKey("submitter");
    admin_ = cluster_->CreateKey("admin");
    key_a_ = cluster_->CreateKey("worker");
    key_b_ = cluster_->CreateKey("worker");
  }
  void Start(const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"--require-auth"};
    args.insert(args.end(), extra.begin(), extra.end());
    cluster_->StartServer(args);
    auto channel = grpc::CreateChannel(cluster_->address(), grpc::InsecureChannelCredentials());
    workers_ = v1::WorkerService::NewStub(channel);
    clients_ = v1::ClientService::NewStub(channel);
  }
  static void Prepare(grpc::ClientContext* context, const std::string& key) {
    context->AddMetadata("authorization", "Bearer " + key);
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  }
  std::string Register(const std::string& key, const v1::GpuInfo& gpu) {
    grpc::ClientContext context;
    Prepare(&context, key);
    v1::RegisterWorkerRequest request;
    request.set_name("forger");
    *request.mutable_gpu() = gpu;
    v1::RegisterWorkerResponse response;
    grpc::Status status = workers_->RegisterWorker(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.worker_id();
  }
  std::string Submit(bool compile_only) { return SubmitAs(submitter_, compile_only); }
  std::string SubmitAs(const std::string& key, bool compile_only) {
    grpc::ClientContext context;
    Prepare(&context, key);
    v1::SubmitRequest request;
    request.set_problem(kProblem);
    request.set_source(ReadFileOrEmpty(SourcePath("problems/level1/19_ReLU/solution.cu")));
    request.set_compile_only(compile_only);
    v1::SubmitResponse response;
    grpc::Status status = clients_->Submit(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.job_id();
  }
  grpc::Status Lease(const std::string& key, const std::string& worker, v1::LeaseJobResponse* response) {
    grpc::ClientContext context;
    Prepare(&context, key);
    v1::LeaseJobRequest request;
    request.set_worker_id(worker);
    request.set_wait_ms(5000);
    return workers_->LeaseJob(&context, request, response);
  }
  grpc::Status Renew(const std::string& key, const std::string& worker, const std::string& job,
                     const std::string& token, bool* still_yours) {
    grpc::ClientContext context;
    Prepare(&context, key);
    v1::RenewLeaseRequest request;
    request.set_worker_id(worker);
    request.set_job_id(job);
    request.set_lease_token(token);
    v1::RenewLeaseResponse response;
    grpc::Status status = workers_->RenewLease(&context, request, &response);
    *still_yours = response.still_yours();
    return status;
  }
  grpc::Status Progress(const std::string& key, const std::string& worker, const std::string& job,
                        const std::string& token, bool* still_yours) {
    grpc::ClientContext context;
    Prepare(&context, key);
    v1::ReportProgressRequest request;
    request.set_worker_id(worker);
    request.set_job_id(job);
    request.set_lease_token(token);
    request.set_stage(v1::STAGE_TIMING);
    request.set_done(1);
    request.set_total(1);
    v1::ReportProgressResponse response;
    grpc::Status status = workers_->ReportProgress(&context, request, &response);
    *still_yours = response.still_yours();
    return status;
  }
  // A forged CORRECT result with a 1000x speedup and the given baselines.
  grpc::Status Complete(const std::string& key, const std::string& worker, const std::string& job,
                        const std::string& token, const std::vector<v1::BaselineTiming>& baselines,
                        bool* accepted) {
    grpc::ClientContext context;
    Prepare(&context, key);
    v1::CompleteJobRequest request;
    request.set_worker_id(worker);
    request.set_job_id(job);
    request.set_lease_token(token);
    request.mutable_result()->set_verdict(v1::CORRECT);
    v1::Speedup* speedup = request.mutable_result()->add_speedups();
    speedup->set_baseline("reference");
    speedup->set_speedup(1000.0);
    for (const v1::BaselineTiming& b : baselines) *request.add_new_baselines() = b;
    v1::CompleteJobResponse response;
    grpc::Status status = workers_->CompleteJob(&context, request, &response);
    *accepted = response.accepted();
    return status;
  }
  grpc::Status Release(const std::string& key, const std::string& worker, const std::string& job,
                       const std::string& token) {
    grpc::ClientContext context;
    Prepare(&context, key);
    v1::ReleaseJobRequest request;
    request.set_worker_id(worker);
    request.set_job_id(job);
    request.set_lease_token(token);
    request.set_reason("forged");
    v1::ReleaseJobResponse response;
    return workers_->ReleaseJob(&context, request, &response);
  }
  v1::Job GetJob(const std::string& id) {
    grpc::ClientContext context;
    Prepare(&context, admin_);
    v1::GetJobRequest request;
    request.set_job_id(id);
    v1::Job job;
    grpc::Status status = clients_->GetJob(&context, request, &job);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return job;
  }
  std::vector<v1::BaselineTiming> Baselines() {
    grpc::ClientContext context;
    Prepare(&context, admin_);
    v1::ListBaselinesRequest request;
    v1::ListBaselinesResponse response;
    grpc::Status status = clients_->ListBaselines(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return {response.baselines().begin(), response.baselines().end()};
  }
  std::string BenchShape() {
    grpc::ClientContext context;
    Prepare(&context, submitter_);
    v1::GetProblemRequest request;
    request.set_name(kProblem);
    v1::Problem problem;
    grpc::Status status = clients_->GetProblem(&context, request, &problem);
    EXPECT_TRUE(status.ok() && problem.bench_shapes_size() > 0) << status.error_message();
    return problem.bench_shapes_size() > 0 ? problem.bench_shapes(0) : "";
  }

  std::unique_ptr<Cluster> cluster_;
  std::unique_ptr<v1::WorkerService::Stub> workers_;
  std::unique_ptr<v1::ClientService::Stub> clients_;
  std::string submitter_, admin_, key_a_, key_b_;
};

TEST_F(WorkerTrust, TheForgeSequenceIsRefusedAtEveryStepThatIsNotTheKeysOwn) {
  Start();
  const std::string worker_a = Register(key_a_, FakeH100());
  const std::string worker_b = Register(key_b_, FakeH100());
  const std::string job = Submit(/*compile_only=*/false);
  v1::LeaseJobResponse stolen;
  grpc::Status status = Lease(key_b_, worker_a, &stolen);  // B leases in A's name
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED) << status.error_message();
  EXPECT_NE(status.error_message().find("registered with another API key"), std::string::npos)
      << status.error_message();
  EXPECT_FALSE(stolen.has_job());
  v1::LeaseJobResponse lease;
  ASSERT_TRUE(Lease(key_a_, worker_a, &lease).ok());
  ASSERT_TRUE(lease.has_job());
  ASSERT_EQ(lease.spec().job_id(), job);
  const std::string token = lease.lease_token();
  EXPECT_EQ(token.size(), 32u);
  const std::string shape = BenchShape();
  const std::vector<v1::BaselineTiming> fake = {Baseline(kProblem, shape, "reference", 1e9)};

  // Key B naming A's worker, even with A's token: refused before anything is looked at.
  bool yes = true;
  EXPECT_EQ(Renew(key_b_, worker_a, job, token, &yes).error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(Progress(key_b_, worker_a, job, token, &yes).error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(Complete(key_b_, worker_a, job, token, fake, &yes).error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(Release(key_b_, worker_a, job, token).error_code(), grpc::StatusCode::PERMISSION_DENIED);
  // Key B with its own worker and A's token: not its lease.
  EXPECT_TRUE(Renew(key_b_, worker_b, job, token, &yes).ok());
  EXPECT_FALSE(yes);
  EXPECT_TRUE(Progress(key_b_, worker_b, job, token, &yes).ok());
  EXPECT_FALSE(yes);
  EXPECT_TRUE(Complete(key_b_, worker_b, job, token, fake, &yes).ok());
  EXPECT_FALSE(yes);
  EXPECT_EQ(Release(key_b_, worker_b, job, token).error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  // Key A's own worker without the token, or with a wrong one.
  for (const std::string& wrong : {std::string(), std::string(32, 'f')}) {
    EXPECT_TRUE(Renew(key_a_, worker_a, job, wrong, &yes).ok());
    EXPECT_FALSE(yes);
    EXPECT_TRUE(Progress(key_a_, worker_a, job, wrong, &yes).ok());
    EXPECT_FALSE(yes);
    EXPECT_TRUE(Complete(key_a_, worker_a, job, wrong, fake, &yes).ok());
    EXPECT_FALSE(yes);
    EXPECT_EQ(Release(key_a_, worker_a, job, wrong).error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  }
  v1::Job untouched = GetJob(job);
  EXPECT_EQ(untouched.state(), v1::RUNNING);
  EXPECT_EQ(untouched.attempts(), 1);
  EXPECT_EQ(untouched.stage(), v1::STAGE_COMPILING);  // no forged progress landed
  EXPECT_TRUE(Baselines().empty());

  // The lease holder itself: its result is taken, but of its baselines only the one the server
  // asked for (the reference on a benchmark shape of this problem, for its hardware).
  const std::vector<v1::BaselineTiming> offered = {
      Baseline(kProblem, shape, "reference", 321.0),         // asked for
      Baseline(kProblem, shape, "cublas_made_up", 1e9),      // no such baseline of this problem
      Baseline(kProblem, "M=1,N=1", "reference", 1e9),       // not a benchmark shape
      Baseline("level1/2_Other_problem", shape, "reference", 1e9)};  // another problem
  ASSERT_TRUE(Complete(key_a_, worker_a, job, token, offered, &yes).ok());
  EXPECT_TRUE(yes);
  EXPECT_TRUE(Complete(key_a_, worker_a, job, token, offered, &yes).ok());  // once only
  EXPECT_FALSE(yes);
  std::vector<v1::BaselineTiming> stored = Baselines();
  ASSERT_EQ(stored.size(), 1u) << cluster_->Logs();
  EXPECT_EQ(stored[0].problem(), kProblem);
  EXPECT_EQ(stored[0].shape(), shape);
  EXPECT_EQ(stored[0].name(), "reference");
  EXPECT_DOUBLE_EQ(stored[0].timing().median_us(), 321.0);
  EXPECT_NE(stored[0].hardware_key(), "forged-key");
  EXPECT_NE(stored[0].hardware_key().find("H100"), std::string::npos) << stored[0].hardware_key();
  // Its forged 1000x speedup came with no timing: the server computes speedups itself and drops
  // one it cannot compute, saying so (issue 30; server/speedup_rule.h).
  const v1::Job finished = GetJob(job);
  EXPECT_EQ(finished.result().speedups_size(), 0) << finished.result().DebugString();
  EXPECT_NE(std::find(finished.result().flags().begin(), finished.result().flags().end(),
                      std::string("speedup_dropped: reference at (no shape): the result has no timing at that shape")),
            finished.result().flags().end())
      << finished.result().DebugString();
  EXPECT_TRUE(cluster_->WaitForLog("server-1.log", "dropped: the server did not ask this lease for it", 5));
}

TEST_F(WorkerTrust, MissingLibraryBaselinesAreAskedForOnceAndCachedOnesCannotBeOverwritten) {
  Start();
  const std::string problem = "level1/17_Matmul_with_transposed_B";  // a cublas baseline besides the reference
  const std::string worker = Register(key_a_, FakeH100());
  grpc::ClientContext context;
  Prepare(&context, submitter_);
  v1::GetProblemRequest get;
  get.set_name(problem);
  v1::Problem spec;
  ASSERT_TRUE(clients_->GetProblem(&context, get, &spec).ok());
  ASSERT_EQ(spec.bench_shapes_size(), 1);
  const std::string shape = spec.bench_shapes(0);
  auto submit = [&] {
    grpc::ClientContext submit_context;
    Prepare(&submit_context, submitter_);
    v1::SubmitRequest request;
    request.set_problem(problem);
    request.set_source(ReadFileOrEmpty(SourcePath("problems/" + problem + "/solution.cu")));
    v1::SubmitResponse response;
    EXPECT_TRUE(clients_->Submit(&submit_context, request, &response).ok());
    return response.job_id();
  };
  const std::string first = submit();
  v1::LeaseJobResponse lease;
  ASSERT_TRUE(Lease(key_a_, worker, &lease).ok());
  ASSERT_EQ(lease.spec().job_id(), first);
  EXPECT_EQ(lease.spec().cached_baselines_size(), 0);
  bool accepted = false;
  ASSERT_TRUE(Complete(key_a_, worker, first, lease.lease_token(),
                       {Baseline(problem, shape, "reference", 150000.0), Baseline(problem, shape, "cublas", 2700.0)},
                       &accepted).ok());
  ASSERT_TRUE(accepted);
  ASSERT_EQ(Baselines().size(), 2u) << cluster_->Logs();

  // The next lease gets both as cached and is asked for nothing: a fake re-measurement of the
  // library baseline (which would make every kernel look 1000x faster) is dropped.
  const std::string second = submit();
  ASSERT_TRUE(Lease(key_a_, worker, &lease).ok());
  ASSERT_EQ(lease.spec().job_id(), second);
  EXPECT_EQ(lease.spec().cached_baselines_size(), 2);
  ASSERT_TRUE(Complete(key_a_, worker, second, lease.lease_token(), {Baseline(problem, shape, "cublas", 2.7e6)},
                       &accepted).ok());
  ASSERT_TRUE(accepted);
  for (const v1::BaselineTiming& b : Baselines()) {
    EXPECT_DOUBLE_EQ(b.timing().median_us(), b.name() == "cublas" ? 2700.0 : 150000.0) << b.name();
  }
}

TEST_F(WorkerTrust, ABurstOfOneSubmitterHoldsAnotherOnesJobBackByOneJobAtMost) {
  const std::string other = cluster_->CreateKey("submitter");
  Start();
  const std::string worker = Register(key_a_, FakeH100());
  std::vector<std::string> burst;
  for (int i = 0; i < 5; ++i) burst.push_back(Submit(/*compile_only=*/true));
  v1::LeaseJobResponse lease;
  ASSERT_TRUE(Lease(key_a_, worker, &lease).ok());
  ASSERT_EQ(lease.spec().job_id(), burst[0]);
  const std::string late = SubmitAs(other, /*compile_only=*/true);
  bool accepted = false;
  ASSERT_TRUE(Complete(key_a_, worker, burst[0], lease.lease_token(), {}, &accepted).ok());
  ASSERT_TRUE(accepted);
  // The other key's job is next, though four of the burst were queued before it.
  ASSERT_TRUE(Lease(key_a_, worker, &lease).ok());
  EXPECT_EQ(lease.spec().job_id(), late);
}

TEST_F(WorkerTrust, NoBaselineIsStoredFromACompileOnlyJobOrWorker) {
  Start();
  v1::GpuInfo none;
  none.set_compile_only(true);
  const std::string compile_only_worker = Register(key_a_, none);
  const std::string gpu_worker = Register(key_b_, FakeH100());
  const std::string shape = BenchShape();
  const std::vector<v1::BaselineTiming> offered = {Baseline(kProblem, shape, "reference", 1e9)};
  for (const auto& [key, worker] : {std::pair{key_a_, compile_only_worker}, std::pair{key_b_, gpu_worker}}) {
    const std::string job = Submit(/*compile_only=*/true);
    v1::LeaseJobResponse lease;
    ASSERT_TRUE(Lease(key, worker, &lease).ok());
    ASSERT_EQ(lease.spec().job_id(), job);
    bool accepted = false;
    ASSERT_TRUE(Complete(key, worker, job, lease.lease_token(), offered, &accepted).ok());
    EXPECT_TRUE(accepted);
  }
  EXPECT_TRUE(Baselines().empty()) << cluster_->Logs();
}

TEST_F(WorkerTrust, AResultAfterTheLeaseExpiredIsRefusedWithoutGrace) {
  Start({"--lease-seconds", "2"});
  const std::string worker = Register(key_a_, FakeH100());
  const std::string job = Submit(/*compile_only=*/false);
  v1::LeaseJobResponse lease;
  ASSERT_TRUE(Lease(key_a_, worker, &lease).ok());
  ASSERT_TRUE(lease.has_job());
  // 100 ms past the 2 s lease: the housekeeping pass (once a second) has most likely not
  // requeued the job yet; the result is refused either way.
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  bool accepted = true;
  ASSERT_TRUE(Complete(key_a_, worker, job, lease.lease_token(), {}, &accepted).ok());
  EXPECT_FALSE(accepted);
  EXPECT_NE(GetJob(job).state(), v1::DONE);
}

TEST_F(WorkerTrust, RevokingAWorkerKeyRequeuesItsJobAtOnceAndRefusesTheKey) {
  Start();
  const std::string worker_a = Register(key_a_, FakeH100());
  const std::string worker_b = Register(key_b_, FakeH100());
  const std::string job = Submit(/*compile_only=*/false);
  v1::LeaseJobResponse lease;
  ASSERT_TRUE(Lease(key_a_, worker_a, &lease).ok());
  ASSERT_EQ(lease.spec().job_id(), job);

  // `keys revoke` is its own process on the same SQLite file, as an operator runs it.
  const std::string server = ResolveBinary("kjudge-server", "KJUDGE_SERVER_BIN", KJUDGE_SERVER_BIN);
  CommandResult revoke = kjudge::testing::Run(
      {server, "--db", cluster_->dir() + "/kjudge.sqlite", "keys", "revoke", KeyId(key_a_)}, std::chrono::seconds(30));
  ASSERT_EQ(revoke.exit_code, 0) << revoke.err;
  EXPECT_NE(revoke.err.find("1 job lease(s) of its workers requeued"), std::string::npos) << revoke.err;
  v1::Job requeued = GetJob(job);
  EXPECT_EQ(requeued.state(), v1::QUEUED);
  EXPECT_EQ(requeued.attempts(), 0);

  bool yes = true;
  grpc::Status renew = Renew(key_a_, worker_a, job, lease.lease_token(), &yes);
  EXPECT_EQ(renew.error_code(), grpc::StatusCode::UNAUTHENTICATED) << renew.error_message();
  EXPECT_EQ(Complete(key_a_, worker_a, job, lease.lease_token(), {}, &yes).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  v1::LeaseJobResponse again;
  ASSERT_TRUE(Lease(key_b_, worker_b, &again).ok());
  ASSERT_TRUE(again.has_job());
  EXPECT_EQ(again.spec().job_id(), job);
  EXPECT_EQ(again.attempt(), 1);
  EXPECT_NE(again.lease_token(), lease.lease_token());
}

}  // namespace
}  // namespace kjudge::testing
