#include "worker/worker_loop.h"

#include <grpcpp/grpcpp.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "worker/lease_keeper.h"

namespace kjudge::worker {
namespace {

std::chrono::system_clock::time_point In(std::chrono::milliseconds ms) {
  return std::chrono::system_clock::now() + ms;
}

void Backoff(int attempt) {
  std::this_thread::sleep_for(std::chrono::milliseconds(std::min(200 * (1 << std::min(attempt, 4)), 3000)));
}

}  // namespace

WorkerLoop::WorkerLoop(WorkerOptions options, RunnerSupervisor* supervisor)
    : options_(std::move(options)), supervisor_(supervisor) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(64 << 20);
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (!options_.tls_ca.empty()) {
    std::ifstream in(options_.tls_ca);
    std::stringstream pem;
    pem << in.rdbuf();
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = pem.str();
    credentials = grpc::SslCredentials(ssl);
  }
  stub_ = v1::WorkerService::NewStub(grpc::CreateCustomChannel(options_.server, credentials, args));
}

void WorkerLoop::Prepare(grpc::ClientContext* context, std::chrono::milliseconds timeout) const {
  if (!options_.api_key.empty()) context->AddMetadata("authorization", "Bearer " + options_.api_key);
  context->set_deadline(In(timeout));
}

bool WorkerLoop::Register(const std::atomic<int>& stop_requests) {
  for (int attempt = 0; stop_requests.load() == 0; ++attempt) {
    grpc::ClientContext context;
    Prepare(&context, std::chrono::seconds(5));
    v1::RegisterWorkerRequest request;
    request.set_name(options_.name);
    *request.mutable_gpu() = supervisor_->gpu();
    v1::RegisterWorkerResponse response;
    grpc::Status status = stub_->RegisterWorker(&context, request, &response);
    if (status.ok()) {
      worker_id_ = response.worker_id();
      lease_seconds_ = std::max(2, response.lease_seconds());
      spdlog::info("registered with {} as {} (lease {} s)", options_.server, worker_id_, lease_seconds_);
      return true;
    }
    if (attempt % 10 == 0) {
      spdlog::warn("cannot register with {}: {} (retrying)", options_.server, status.error_message());
    }
    Backoff(attempt);
  }
  return false;
}

void WorkerLoop::Report(const std::string& job_id, const v1::RunnerProgress& progress) {
  grpc::ClientContext context;
  Prepare(&context, std::chrono::seconds(2));
  v1::ReportProgressRequest request;
  request.set_worker_id(worker_id_);
  request.set_job_id(job_id);
  request.set_stage(progress.stage());
  request.set_done(progress.done());
  request.set_total(progress.total());
  v1::ReportProgressResponse response;
  // Progress is advisory: a failure here must not slow the job down.
  (void)stub_->ReportProgress(&context, request, &response);
}

void WorkerLoop::Complete(const std::string& job_id, const RunOutcome& outcome,
                          const std::atomic<int>& stop_requests) {
  for (int attempt = 0;; ++attempt) {
    grpc::ClientContext context;
    Prepare(&context, std::chrono::seconds(10));
    grpc::Status status;
    if (outcome.handed_back) {
      v1::ReleaseJobRequest request;
      request.set_worker_id(worker_id_);
      request.set_job_id(job_id);
      request.set_reason(outcome.reason);
      v1::ReleaseJobResponse response;
      status = stub_->ReleaseJob(&context, request, &response);
    } else {
      v1::CompleteJobRequest request;
      request.set_worker_id(worker_id_);
      request.set_job_id(job_id);
      *request.mutable_result() = outcome.result.result();
      *request.mutable_new_baselines() = outcome.result.new_baselines();
      v1::CompleteJobResponse response;
      status = stub_->CompleteJob(&context, request, &response);
      if (status.ok() && !response.accepted()) {
        spdlog::warn("job {}: the server refused the result (the lease had expired)", job_id);
      }
    }
    if (status.ok() || status.error_code() == grpc::StatusCode::FAILED_PRECONDITION) return;
    // The server is down or restarting: keep the result and try again, unless told to quit
    // twice (then the lease expires on the server and the job is run again).
    if (stop_requests.load() >= 2) return;
    if (attempt % 10 == 0) spdlog::warn("job {}: cannot report ({}); retrying", job_id, status.error_message());
    Backoff(attempt);
  }
}

bool WorkerLoop::ServeOne(const std::atomic<int>& stop_requests) {
  grpc::ClientContext context;
  Prepare(&context, std::chrono::milliseconds(options_.lease_wait_ms + 5000));
  v1::LeaseJobRequest request;
  request.set_worker_id(worker_id_);
  request.set_wait_ms(options_.lease_wait_ms);
  v1::LeaseJobResponse response;
  grpc::Status status = stub_->LeaseJob(&context, request, &response);
  if (status.error_code() == grpc::StatusCode::FAILED_PRECONDITION) {
    spdlog::warn("{}; registering again", status.error_message());
    Register(stop_requests);
    return false;
  }
  if (!status.ok()) {
    spdlog::warn("lease failed: {} (retrying)", status.error_message());
    Backoff(3);
    return false;
  }
  if (!response.has_job()) return false;
  const v1::RunSpec& spec = response.spec();
  spdlog::info("job {}: {} {} (attempt {})", spec.job_id(), spec.problem(),
               spec.compile_only() ? "compile-only" : "full", response.attempt());
  RunOutcome outcome;
  {
    LeaseKeeper keeper(stub_.get(), options_.api_key, worker_id_, spec.job_id(),
                       std::chrono::milliseconds(lease_seconds_ * 1000 / 3));
    // Give the job up when the lease is lost or on the second stop request.
    outcome = supervisor_->Run(
        spec, [&](const v1::RunnerProgress& progress) { Report(spec.job_id(), progress); },
        [&] { return keeper.lost().load() || stop_requests.load() >= 2; });
  }
  if (outcome.handed_back) {
    spdlog::warn("job {}: handed back: {}", spec.job_id(), outcome.reason);
  } else {
    spdlog::info("job {}: {} {}", spec.job_id(), v1::Verdict_Name(outcome.result.result().verdict()),
                 outcome.result.result().message());
  }
  Complete(spec.job_id(), outcome, stop_requests);
  return true;
}

int WorkerLoop::Run(const std::atomic<int>& stop_requests) {
  if (!Register(stop_requests)) return 0;
  int served = 0;
  while (stop_requests.load() == 0) {
    if (ServeOne(stop_requests)) ++served;
    if (options_.max_jobs > 0 && served >= options_.max_jobs) break;
  }
  spdlog::info("worker stopping after {} job(s)", served);
  return 0;
}

}  // namespace kjudge::worker
