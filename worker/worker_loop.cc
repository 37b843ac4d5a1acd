#include "worker/worker_loop.h"

#include <grpcpp/grpcpp.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "worker/lease_keeper.h"
#include "proto/result_caps.h"

namespace kjudge::worker {
namespace {

std::chrono::system_clock::time_point In(std::chrono::milliseconds ms) {
  return std::chrono::system_clock::now() + ms;
}

// The server takes messages up to 16 MiB. A compile log is capped by kjudge-compiler already;
// capping again here keeps an older or misbehaving runner from producing a result the server
// can never accept (the worker would retry it forever and every worker would wedge in turn).
constexpr size_t kMaxCompileLogBytes = (64 << 10) + 256;  // the compiler's 64 KiB and its note
constexpr size_t kShrunkTextBytes = 2 << 10;

void CapText(std::string* text, size_t max_bytes, const char* what) {
  if (text->size() <= max_bytes) return;
  const size_t cut = text->size() - max_bytes;
  text->resize(max_bytes);
  absl::StrAppend(text, "\n[kjudge: ", cut, " bytes of ", what, " cut]");
}

// How much of a result survives, by how often the server refused it as too large or invalid:
// 0 the whole result (compile log capped), 1 every text capped and mismatch lists dropped,
// 2 an INTERNAL_ERROR saying so. Past that the worker gives the result up (the lease expires).
bool ShrinkResult(int level, const grpc::Status& refusal, v1::CompleteJobRequest* request) {
  v1::JobResult* result = request->mutable_result();
  CapText(result->mutable_compile_log(), kMaxCompileLogBytes, "compiler log");
  if (level == 0) return true;
  if (level == 1) {
    CapText(result->mutable_compile_log(), kShrunkTextBytes, "compiler log");
    CapText(result->mutable_message(), kShrunkTextBytes, "message");
    CapText(result->mutable_cuda_error(), kShrunkTextBytes, "CUDA error");
    for (v1::TestOutcome& test : *result->mutable_tests()) {
      test.clear_first_mismatches();
      CapText(test.mutable_detail(), kShrunkTextBytes, "detail");
    }
    for (std::string& flag : *result->mutable_flags()) CapText(&flag, 256, "flag");
    return true;
  }
  if (level == 2) {
    v1::JobResult replacement;
    replacement.set_verdict(v1::INTERNAL_ERROR);
    std::string why = refusal.error_message();
    CapText(&why, 256, "error");
    replacement.set_message(absl::StrCat("the worker could not post the result (", result->ByteSizeLong(),
                                         " bytes; server said: ", why, ")"));
    replacement.set_seed(result->seed());
    replacement.set_gpu(result->gpu());
    *result = std::move(replacement);
    request->clear_new_baselines();
    return true;
  }
  return false;
}

// The server refused this result as such (too large, malformed): sending it again cannot help.
bool RefusesResult(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED ||
         status.error_code() == grpc::StatusCode::INVALID_ARGUMENT;
}

void Backoff(int attempt) {
  std::this_thread::sleep_for(std::chrono::milliseconds(std::min(200 * (1 << std::min(attempt, 4)), 3000)));
}

}  // namespace

WorkerLoop::WorkerLoop(WorkerOptions options, RunnerSupervisor* supervisor, RunnerSupervisor* compile_ahead)
    : options_(std::move(options)), supervisor_(supervisor) {
  if (compile_ahead != nullptr) prefetcher_ = std::make_unique<JobPrefetcher>(compile_ahead);
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

void WorkerLoop::Report(const std::string& job_id, const std::string& lease_token,
                        const v1::RunnerProgress& progress) {
  grpc::ClientContext context;
  Prepare(&context, std::chrono::seconds(2));
  v1::ReportProgressRequest request;
  request.set_worker_id(worker_id_);
  request.set_job_id(job_id);
  request.set_lease_token(lease_token);
  request.set_stage(progress.stage());
  request.set_done(progress.done());
  request.set_total(progress.total());
  v1::ReportProgressResponse response;
  // Progress is advisory: a failure here must not slow the job down.
  (void)stub_->ReportProgress(&context, request, &response);
}

void WorkerLoop::Complete(const std::string& job_id, const std::string& lease_token, const RunOutcome& outcome,
                          const std::atomic<int>& stop_requests) {
  int shrink_level = 0;
  grpc::Status refusal;
  for (int attempt = 0;; ++attempt) {
    grpc::ClientContext context;
    Prepare(&context, std::chrono::seconds(10));
    grpc::Status status;
    if (outcome.handed_back) {
      v1::ReleaseJobRequest request;
      request.set_worker_id(worker_id_);
      request.set_job_id(job_id);
      request.set_lease_token(lease_token);
      request.set_reason(outcome.reason);
      v1::ReleaseJobResponse response;
      status = stub_->ReleaseJob(&context, request, &response);
    } else {
      v1::CompleteJobRequest request;
      request.set_worker_id(worker_id_);
      request.set_job_id(job_id);
      request.set_lease_token(lease_token);
      *request.mutable_result() = outcome.result.result();
      *request.mutable_new_baselines() = outcome.result.new_baselines();
      if (!ShrinkResult(shrink_level, refusal, &request)) {
        spdlog::error("job {}: the server refuses even a minimal result ({}); giving it up",
                      job_id, refusal.error_message());
        return;
      }
      v1::CompleteJobResponse response;
      status = stub_->CompleteJob(&context, request, &response);
      if (status.ok() && !response.accepted()) {
        spdlog::warn("job {}: the server refused the result (the lease had expired)", job_id);
      }
      if (RefusesResult(status)) {
        spdlog::warn("job {}: the server refused a result of {} bytes ({}); shrinking it", job_id,
                     request.ByteSizeLong(), status.error_message());
        refusal = status;
        ++shrink_level;
        continue;
      }
    }
    // FAILED_PRECONDITION: the lease is gone; PERMISSION_DENIED / UNAUTHENTICATED: this worker
    // or its key is refused (revoked). Sending again cannot help.
    if (status.ok() || status.error_code() == grpc::StatusCode::FAILED_PRECONDITION ||
        status.error_code() == grpc::StatusCode::PERMISSION_DENIED ||
        status.error_code() == grpc::StatusCode::UNAUTHENTICATED) {
      return;
    }
    if (RefusesResult(status)) return;  // a hand-back the server refuses: resending cannot help
    // The server is down or restarting: keep the result and try again, unless told to quit
    // twice (then the lease expires on the server and the job is run again).
    if (stop_requests.load() >= 2) return;
    if (attempt % 10 == 0) spdlog::warn("job {}: cannot report ({}); retrying", job_id, status.error_message());
    Backoff(attempt);
  }
}

std::optional<LeasedJob> WorkerLoop::LeaseOne(int wait_ms, const std::atomic<int>& stop_requests,
                                              bool may_register) {
  grpc::ClientContext context;
  Prepare(&context, std::chrono::milliseconds(wait_ms + 5000));
  v1::LeaseJobRequest request;
  request.set_worker_id(worker_id_);
  request.set_wait_ms(wait_ms);
  LeasedJob job;
  grpc::Status status = stub_->LeaseJob(&context, request, &job.lease);
  if (status.error_code() == grpc::StatusCode::FAILED_PRECONDITION && may_register) {
    spdlog::warn("{}; registering again", status.error_message());
    Register(stop_requests);
    return std::nullopt;
  }
  if (!status.ok()) {
    spdlog::warn("lease failed: {} (retrying)", status.error_message());
    if (may_register) Backoff(3);
    return std::nullopt;
  }
  if (!job.lease.has_job()) return std::nullopt;
  job.keeper = std::make_unique<LeaseKeeper>(stub_.get(), options_.api_key, worker_id_, job.lease.spec().job_id(),
                                             job.lease.lease_token(),
                                             std::chrono::milliseconds(lease_seconds_ * 1000 / 3));
  return job;
}

void WorkerLoop::HandBack(const LeasedJob& job, const std::string& reason, const std::atomic<int>& stop_requests) {
  RunOutcome outcome;
  outcome.handed_back = true;
  outcome.reason = reason;
  spdlog::info("job {}: handing it back: {}", job.lease.spec().job_id(), reason);
  Complete(job.lease.spec().job_id(), job.lease.lease_token(), outcome, stop_requests);
}

bool WorkerLoop::ServeOne(const std::atomic<int>& stop_requests, bool prefetch_next) {
  std::optional<LeasedJob> job = prefetcher_ != nullptr ? prefetcher_->Take() : std::nullopt;
  if (!job.has_value()) job = LeaseOne(options_.lease_wait_ms, stop_requests, /*may_register=*/true);
  if (!job.has_value()) return false;
  const v1::RunSpec& spec = job->lease.spec();
  spdlog::info("job {}: {} {} (attempt {})", spec.job_id(), spec.problem(),
               spec.compile_only() ? "compile-only" : (spec.baselines_only() ? "baselines-only" : "full"),
               job->lease.attempt());
  if (prefetcher_ != nullptr && prefetch_next && stop_requests.load() == 0) {
    // No long poll here: take a second job only when one is waiting now, so a job is never
    // held back from a worker that is idle.
    prefetcher_->Begin([this, &stop_requests] { return LeaseOne(0, stop_requests, /*may_register=*/false); },
                       [&stop_requests] { return stop_requests.load() >= 2; });
  }
  // Give the job up when the lease is lost or on the second stop request.
  const LeaseKeeper& keeper = *job->keeper;
  RunOutcome outcome = supervisor_->Run(
      spec, [&](const v1::RunnerProgress& progress) { Report(spec.job_id(), job->lease.lease_token(), progress); },
      [&] { return keeper.lost().load() || stop_requests.load() >= 2; });
  job->keeper.reset();  // stop renewing before the result is posted
  if (outcome.handed_back) {
    spdlog::warn("job {}: handed back: {}", spec.job_id(), outcome.reason);
  } else {
    spdlog::info("job {}: {} {}", spec.job_id(), v1::Verdict_Name(outcome.result.result().verdict()),
                 kjudge::CapText(outcome.result.result().message(), 512));
  }
  Complete(spec.job_id(), job->lease.lease_token(), outcome, stop_requests);
  return true;
}

int WorkerLoop::Run(const std::atomic<int>& stop_requests) {
  if (!Register(stop_requests)) return 0;
  int served = 0;
  while (stop_requests.load() == 0) {
    const bool last = options_.max_jobs > 0 && served + 1 >= options_.max_jobs;
    if (ServeOne(stop_requests, /*prefetch_next=*/!last)) ++served;
    if (options_.max_jobs > 0 && served >= options_.max_jobs) break;
  }
  if (prefetcher_ != nullptr) {
    if (std::optional<LeasedJob> ahead = prefetcher_->Take(); ahead.has_value()) {
      HandBack(*ahead, "the worker is stopping", stop_requests);
    }
  }
  spdlog::info("worker stopping after {} job(s)", served);
  return 0;
}

}  // namespace kjudge::worker
