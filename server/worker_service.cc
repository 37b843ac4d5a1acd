#include "server/worker_service.h"

#include <algorithm>
#include <charconv>

#include "absl/strings/str_cat.h"
#include "server/grpc_status.h"
#include "common/log.h"

namespace kjudge::server {
namespace {

constexpr int kMaxWaitMs = 30000;

int64_t JobIdOf(const std::string& text) {
  int64_t id = 0;
  std::from_chars(text.data(), text.data() + text.size(), id);
  return id;
}

}  // namespace

grpc::Status WorkerService::FindWorker(const std::string& id, WorkerRecord* record) {
  absl::StatusOr<std::optional<WorkerRecord>> found = state_->workers->Find(id);
  if (!found.ok()) return ToGrpc(found.status());
  if (!found->has_value()) {
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                        absl::StrCat("unknown worker '", id, "': register again"));
  }
  *record = std::move(**found);
  return grpc::Status::OK;
}

grpc::Status WorkerService::RegisterWorker(grpc::ServerContext* context,
                                           const v1::RegisterWorkerRequest* request,
                                           v1::RegisterWorkerResponse* response) {
  ApiKey caller;
  if (grpc::Status status = state_->auth->Check(*context, Role::kWorker, &caller); !status.ok()) return status;
  absl::StatusOr<WorkerRecord> record = state_->workers->Register(request->name(), request->gpu());
  if (!record.ok()) return ToGrpc(record.status());
  const v1::GpuInfo& gpu = request->gpu();
  spdlog::info("worker {} registered from {}: {} ({}); ceilings: device copy {:.1f} GB/s, GEMM TFLOP/s SGEMM {:.1f}, "
               "TF32 {:.1f}, FP16 {:.1f}, BF16 {:.1f}",
               record->id, context->peer(), request->name(), record->hardware_key, gpu.copy_bandwidth_gbs(),
               gpu.sgemm_tflops(), gpu.tf32_tflops(), gpu.fp16_tflops(), gpu.bf16_tflops());
  response->set_worker_id(record->id);
  response->set_lease_seconds(lease_seconds_);
  return grpc::Status::OK;
}

bool WorkerService::AttachProblem(const WorkerRecord& worker, v1::RunSpec* spec) {
  const CatalogEntry* entry = state_->catalog->Find(spec->problem());
  if (entry == nullptr) {
    v1::JobResult result;
    result.set_verdict(v1::REJECTED);
    result.set_message(absl::StrCat("problem '", spec->problem(), "' is no longer in the catalog"));
    (void)state_->jobs->Complete(JobIdOf(spec->job_id()), worker.id, result);
    return false;
  }
  spec->set_spec_toml(entry->files.spec_toml);
  spec->set_reference_source(entry->files.reference_source);
  absl::StatusOr<std::vector<v1::BaselineTiming>> cached =
      state_->baselines->Find(spec->problem(), worker.hardware_key);
  if (cached.ok()) {
    for (v1::BaselineTiming& baseline : *cached) *spec->add_cached_baselines() = std::move(baseline);
  } else {
    spdlog::warn("baselines for {} unavailable: {}", spec->problem(), cached.status().ToString());
  }
  return true;
}

grpc::Status WorkerService::LeaseJob(grpc::ServerContext* context, const v1::LeaseJobRequest* request,
                                     v1::LeaseJobResponse* response) {
  ApiKey caller;
  if (grpc::Status status = state_->auth->Check(*context, Role::kWorker, &caller); !status.ok()) return status;
  WorkerRecord worker;
  if (grpc::Status status = FindWorker(request->worker_id(), &worker); !status.ok()) return status;
  (void)state_->workers->Touch(worker.id);
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(std::clamp(request->wait_ms(), 0, kMaxWaitMs));
  uint64_t seen = state_->events->version();
  while (!context->IsCancelled() && !state_->events->shutting_down()) {
    absl::StatusOr<std::optional<LeasedJob>> leased =
        state_->jobs->LeaseNext(worker.id, !worker.gpu.compile_only());
    if (!leased.ok()) return ToGrpc(leased.status());
    if (leased->has_value()) {
      LeasedJob& job = **leased;
      state_->events->Notify();
      if (!AttachProblem(worker, &job.spec)) continue;
      spdlog::info("job {} leased to {} (attempt {})", job.id, worker.id, job.attempt);
      if (job.attempt == 1) {
        state_->metrics->JobLeased(static_cast<double>(SystemNowMs() - job.created_unix_ms) / 1000.0);
      }
      response->set_has_job(true);
      response->set_attempt(job.attempt);
      response->set_lease_seconds(lease_seconds_);
      *response->mutable_spec() = std::move(job.spec);
      return grpc::Status::OK;
    }
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) break;
    seen = state_->events->WaitForChange(
        seen, std::min(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now),
                       std::chrono::milliseconds(1000)));
  }
  response->set_has_job(false);
  return grpc::Status::OK;
}

grpc::Status WorkerService::RenewLease(grpc::ServerContext* context, const v1::RenewLeaseRequest* request,
                                       v1::RenewLeaseResponse* response) {
  ApiKey caller;
  if (grpc::Status status = state_->auth->Check(*context, Role::kWorker, &caller); !status.ok()) return status;
  absl::StatusOr<bool> held = state_->jobs->Renew(JobIdOf(request->job_id()), request->worker_id());
  if (!held.ok()) return ToGrpc(held.status());
  response->set_still_yours(*held);
  return grpc::Status::OK;
}

grpc::Status WorkerService::ReportProgress(grpc::ServerContext* context,
                                           const v1::ReportProgressRequest* request,
                                           v1::ReportProgressResponse* response) {
  ApiKey caller;
  if (grpc::Status status = state_->auth->Check(*context, Role::kWorker, &caller); !status.ok()) return status;
  absl::StatusOr<bool> held = state_->jobs->UpdateProgress(
      JobIdOf(request->job_id()), request->worker_id(), request->stage(), request->done(), request->total());
  if (!held.ok()) return ToGrpc(held.status());
  response->set_still_yours(*held);
  state_->events->Notify();
  return grpc::Status::OK;
}

void WorkerService::AddImportedSpeedups(const WorkerRecord& worker, const std::string& job_id,
                                        v1::JobResult* result) {
  if (result->timings().empty()) return;
  absl::StatusOr<std::optional<v1::Job>> job = state_->jobs->Get(JobIdOf(job_id));
  if (!job.ok() || !job->has_value()) return;
  absl::StatusOr<std::vector<v1::BaselineTiming>> imported =
      state_->baselines->FindImported((*job)->problem(), worker.gpu.name());
  if (!imported.ok()) return;
  for (const v1::ShapeTiming& timing : result->timings()) {
    for (const v1::BaselineTiming& baseline : *imported) {
      if (baseline.shape() != timing.shape() || !(timing.timing().median_us() > 0)) continue;
      v1::Speedup* speedup = result->add_speedups();
      speedup->set_shape(timing.shape());
      speedup->set_baseline(baseline.name());
      speedup->set_speedup(baseline.timing().median_us() / timing.timing().median_us());
    }
  }
}

grpc::Status WorkerService::CompleteJob(grpc::ServerContext* context, const v1::CompleteJobRequest* request,
                                        v1::CompleteJobResponse* response) {
  ApiKey caller;
  if (grpc::Status status = state_->auth->Check(*context, Role::kWorker, &caller); !status.ok()) return status;
  WorkerRecord worker;
  if (grpc::Status status = FindWorker(request->worker_id(), &worker); !status.ok()) return status;
  v1::JobResult result = request->result();
  AddImportedSpeedups(worker, request->job_id(), &result);
  absl::StatusOr<bool> accepted = state_->jobs->Complete(JobIdOf(request->job_id()), worker.id, result);
  if (!accepted.ok()) return ToGrpc(accepted.status());
  response->set_accepted(*accepted);
  if (!*accepted) {
    spdlog::warn("job {}: result from {} refused: the lease is no longer theirs", request->job_id(), worker.id);
    return grpc::Status::OK;
  }
  for (v1::BaselineTiming baseline : request->new_baselines()) {
    baseline.set_hardware_key(worker.hardware_key);
    if (absl::Status s = state_->baselines->Put(baseline); !s.ok()) {
      spdlog::warn("baseline not stored: {}", s.ToString());
    }
  }
  if (absl::StatusOr<std::optional<v1::Job>> job = state_->jobs->Get(JobIdOf(request->job_id()));
      job.ok() && job->has_value()) {
    state_->metrics->JobFinished(request->result().verdict(),
                                 static_cast<double>((*job)->finished_unix_ms() - (*job)->created_unix_ms()) / 1000.0);
  }
  spdlog::info("job {} done by {}: {} {}", request->job_id(), worker.id,
               v1::Verdict_Name(request->result().verdict()), request->result().message());
  state_->events->Notify();
  return grpc::Status::OK;
}

grpc::Status WorkerService::ReleaseJob(grpc::ServerContext* context, const v1::ReleaseJobRequest* request,
                                      v1::ReleaseJobResponse*) {
  ApiKey caller;
  if (grpc::Status status = state_->auth->Check(*context, Role::kWorker, &caller); !status.ok()) return status;
  absl::StatusOr<bool> released =
      state_->jobs->Release(JobIdOf(request->job_id()), request->worker_id(), request->reason());
  if (!released.ok()) return ToGrpc(released.status());
  spdlog::warn("job {} handed back by {}: {}", request->job_id(), request->worker_id(), request->reason());
  state_->events->Notify();
  return grpc::Status::OK;
}

}  // namespace kjudge::server
