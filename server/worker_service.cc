#include "server/worker_service.h"

#include <algorithm>
#include <charconv>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "server/grpc_status.h"
#include "server/rpc_errors.h"
#include "server/kernel_metrics.h"
#include "server/speedup_rule.h"
#include "common/oracle_baselines.h"
#include "common/log.h"
#include "proto/result_caps.h"

namespace kjudge::server {
namespace {

constexpr int kMaxWaitMs = 30000;

int64_t JobIdOf(const std::string& text) {
  int64_t id = 0;
  std::from_chars(text.data(), text.data() + text.size(), id);
  return id;
}

LeaseRef LeaseOf(const WorkerRecord& worker, const std::string& job_id, const std::string& token) {
  return LeaseRef{JobIdOf(job_id), worker.id, token};
}

// The worker runs the PyTorch oracle: it may judge problems that have only reference.py.
bool HasTorch(const v1::GpuInfo& gpu) { return !gpu.compile_only() && !gpu.torch_version().empty(); }

// The baselines the runner will measure for a fully judged job on this worker: per benchmark
// shape, "reference" (when the problem has a CUDA reference) and each library baseline of the
// problem, and, on a worker with the PyTorch oracle for a problem with reference.py,
// the oracle's baselines, common/oracle_baselines.h (docs/pytorch-problems.md section 4), unless cached for its
// hardware key. The runner's own rule (worker/judge/verdict_protocol.h) measures exactly what
// RunSpec.cached_baselines lacks, and the server sends it the same cached list, so asking for
// this set and accepting only it keeps the two in step. (A baseline the runner cannot deliver,
// a library kind it does not know or a torch_compile not compiled yet, is asked for and never
// delivered: harmless; it is asked again next time.)
std::vector<v1::BaselineTiming> MissingBaselines(const ProblemSpec& problem, const v1::RunSpec& spec,
                                                 const std::string& hardware_key, bool has_torch) {
  auto cached = [&](const std::string& shape, const std::string& name) {
    return std::any_of(spec.cached_baselines().begin(), spec.cached_baselines().end(),
                       [&](const v1::BaselineTiming& b) { return b.shape() == shape && b.name() == name; });
  };
  std::vector<std::string> names;
  names.reserve(problem.baselines.size() + 3);
  if (problem.HasCudaReference()) names.emplace_back(kReferenceBaseline);
  for (const LibraryBaselineSpec& b : problem.baselines) names.push_back(b.name);
  if (has_torch && problem.module.has_value()) {
    for (const char* name : kOracleBaselines) names.emplace_back(name);
  }
  std::vector<v1::BaselineTiming> missing;
  missing.reserve(problem.bench_shapes.size() * names.size());
  for (const Shape& shape : problem.bench_shapes) {
    const std::string label = shape.Label();
    for (const std::string& name : names) {
      if (cached(label, name)) continue;
      v1::BaselineTiming& b = missing.emplace_back();
      b.set_problem(spec.problem());
      b.set_shape(label);
      b.set_name(name);
      b.set_hardware_key(hardware_key);
    }
  }
  return missing;
}

const v1::BaselineTiming* FindRequest(const std::vector<v1::BaselineTiming>& requested,
                                      const v1::BaselineTiming& measured) {
  for (const v1::BaselineTiming& r : requested) {
    if (r.problem() == measured.problem() && r.shape() == measured.shape() && r.name() == measured.name()) {
      return &r;
    }
  }
  return nullptr;
}

}  // namespace

grpc::Status WorkerService::FindWorker(const std::string& id, WorkerRecord* record) {
  absl::StatusOr<std::optional<WorkerRecord>> found = state_->workers->Find(id);
  if (!found.ok()) return ToClient(found.status());
  if (!found->has_value()) {
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                        absl::StrCat("unknown worker '", id, "': register again"));
  }
  *record = std::move(**found);
  return grpc::Status::OK;
}

grpc::Status WorkerService::FindOwnWorker(const ApiKey& caller, const std::string& id, WorkerRecord* record) {
  if (grpc::Status status = FindWorker(id, record); !status.ok()) return status;
  if (record->api_key_id == caller.id) return grpc::Status::OK;
  spdlog::warn("key '{}' named worker {}, which another key registered: refused", caller.id, id);
  return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                      absl::StrCat("worker '", id, "' was registered with another API key; a worker id "
                                   "is usable only with the key that registered it (register with yours)"));
}

grpc::Status WorkerService::RegisterWorker(grpc::ServerContext* context,
                                           const v1::RegisterWorkerRequest* request,
                                           v1::RegisterWorkerResponse* response) {
  ApiKey caller;
  if (grpc::Status status = state_->auth->Check(*context, Role::kWorker, &caller); !status.ok()) return status;
  absl::StatusOr<WorkerRecord> record = state_->workers->Register(request->name(), request->gpu(), caller.id);
  if (!record.ok()) return ToClient(record.status());
  const v1::GpuInfo& gpu = request->gpu();
  spdlog::info("worker {} registered by key '{}' from {}: {} ({}); ceilings: device copy {:.1f} GB/s, "
               "GEMM TFLOP/s SGEMM {:.1f}, TF32 {:.1f}, FP16 {:.1f}, BF16 {:.1f}",
               record->id, caller.id, context->peer(), request->name(), record->hardware_key,
               gpu.copy_bandwidth_gbs(), gpu.sgemm_tflops(), gpu.tf32_tflops(), gpu.fp16_tflops(), gpu.bf16_tflops());
  response->set_worker_id(record->id);
  response->set_lease_seconds(lease_seconds_);
  // A new worker may serve jobs that waited: open streams learn it this round (WatchHub).
  if (state_->capacity != nullptr) state_->capacity->Invalidate();
  state_->events->Notify();
  return grpc::Status::OK;
}

bool WorkerService::AttachProblem(const WorkerRecord& worker, LeasedJob* job) {
  v1::RunSpec* spec = &job->spec;
  const LeaseRef lease{job->id, worker.id, job->lease_token};
  // A queued job whose problem a reload removed ends REJECTED here; a running one finishes as leased.
  const std::shared_ptr<const CatalogEntry> entry = state_->catalog->Find(spec->problem());
  if (entry == nullptr) {
    v1::JobResult result;
    result.set_verdict(v1::REJECTED);
    result.set_message(absl::StrCat("problem '", spec->problem(), "' is no longer in the catalog"));
    (void)state_->jobs->Complete(lease, result);
    return false;
  }
  spec->set_spec_toml(entry->files.spec_toml);
  spec->set_reference_source(entry->files.reference_source);
  spec->set_reference_module(entry->files.reference_module);
  absl::StatusOr<std::vector<v1::BaselineTiming>> cached =
      state_->baselines->Find(spec->problem(), worker.hardware_key);
  if (cached.ok()) {
    for (v1::BaselineTiming& baseline : *cached) *spec->add_cached_baselines() = std::move(baseline);
  } else {
    spdlog::warn("baselines for {} unavailable: {}", spec->problem(), cached.status().ToString());
  }
  // Only a worker that will time the job measures baselines; nothing is asked of the others.
  if (!spec->compile_only() && !worker.gpu.compile_only()) {
    absl::StatusOr<bool> asked =
        state_->jobs->RequestBaselines(lease, MissingBaselines(entry->files.spec, *spec, worker.hardware_key, HasTorch(worker.gpu)));
    if (!asked.ok()) spdlog::warn("job {}: baseline request not recorded: {}", job->id, asked.status().ToString());
  }
  return true;
}

grpc::Status WorkerService::LeaseJob(grpc::ServerContext* context, const v1::LeaseJobRequest* request,
                                     v1::LeaseJobResponse* response) {
  ApiKey caller;
  if (grpc::Status status = state_->auth->Check(*context, Role::kWorker, &caller); !status.ok()) return status;
  WorkerRecord worker;
  if (grpc::Status status = FindOwnWorker(caller, request->worker_id(), &worker); !status.ok()) return status;
  (void)state_->workers->Touch(worker.id);
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(std::clamp(request->wait_ms(), 0, kMaxWaitMs));
  uint64_t seen = state_->events->version();
  while (!context->IsCancelled() && !state_->events->shutting_down()) {
    absl::StatusOr<std::optional<LeasedJob>> leased =
        state_->jobs->LeaseNext(worker.id, !worker.gpu.compile_only(), HasTorch(worker.gpu));
    if (!leased.ok()) return ToClient(leased.status());
    if (leased->has_value()) {
      LeasedJob& job = **leased;
      state_->events->Notify();
      if (!AttachProblem(worker, &job)) continue;
      spdlog::info("job {} leased to {} (attempt {})", job.id, worker.id, job.attempt);
      if (job.attempt == 1) {
        state_->metrics->JobLeased(static_cast<double>(SystemNowMs() - job.created_unix_ms) / 1000.0);
      }
      response->set_has_job(true);
      response->set_attempt(job.attempt);
      response->set_lease_seconds(lease_seconds_);
      response->set_lease_token(job.lease_token);
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
  WorkerRecord worker;
  if (grpc::Status status = FindOwnWorker(caller, request->worker_id(), &worker); !status.ok()) return status;
  absl::StatusOr<bool> held = state_->jobs->Renew(LeaseOf(worker, request->job_id(), request->lease_token()));
  if (!held.ok()) return ToClient(held.status());
  response->set_still_yours(*held);
  return grpc::Status::OK;
}

grpc::Status WorkerService::ReportProgress(grpc::ServerContext* context,
                                           const v1::ReportProgressRequest* request,
                                           v1::ReportProgressResponse* response) {
  ApiKey caller;
  if (grpc::Status status = state_->auth->Check(*context, Role::kWorker, &caller); !status.ok()) return status;
  WorkerRecord worker;
  if (grpc::Status status = FindOwnWorker(caller, request->worker_id(), &worker); !status.ok()) return status;
  absl::StatusOr<bool> held = state_->jobs->UpdateProgress(LeaseOf(worker, request->job_id(), request->lease_token()),
                                                           request->stage(), request->done(), request->total());
  if (!held.ok()) return ToClient(held.status());
  response->set_still_yours(*held);
  state_->events->Notify();
  return grpc::Status::OK;
}

std::vector<v1::BaselineTiming> WorkerService::KnownBaselines(const WorkerRecord& worker, const std::string& problem,
                                                              const BaselineTriage& triage) {
  // This job's own measurements first (what the runner compared with), then the cache for the
  // worker's hardware key (what its RunSpec carried).
  std::vector<v1::BaselineTiming> known(triage.accepted.begin(), triage.accepted.end());
  absl::StatusOr<std::vector<v1::BaselineTiming>> cached = state_->baselines->Find(problem, worker.hardware_key);
  if (cached.ok()) {
    known.insert(known.end(), cached->begin(), cached->end());
  } else {
    spdlog::warn("baselines for {} unavailable: {} (the job's speedups against them are dropped)", problem,
                 cached.status().ToString());
  }
  return known;
}

void WorkerService::AddImportedSpeedups(const WorkerRecord& worker, const std::string& problem,
                                        v1::JobResult* result) {
  if (result->timings().empty()) return;
  absl::StatusOr<std::vector<v1::BaselineTiming>> imported = state_->baselines->FindImported(problem, worker.gpu.name());
  if (!imported.ok()) return;
  for (const v1::ShapeTiming& timing : result->timings()) {
    for (const v1::BaselineTiming& baseline : *imported) {
      if (baseline.shape() != timing.shape() || !(timing.timing().median_us() > 0)) continue;
      // A baseline this job was measured against (torch_eager from the worker's oracle) wins
      // over an imported time of the same name: one speedup per baseline and shape.
      const bool measured = std::any_of(result->speedups().begin(), result->speedups().end(),
                                        [&](const v1::Speedup& s) {
                                          return s.shape() == timing.shape() && s.baseline() == baseline.name();
                                        });
      if (measured) continue;
      v1::Speedup* speedup = result->add_speedups();
      speedup->set_shape(timing.shape());
      speedup->set_baseline(baseline.name());
      speedup->set_speedup(baseline.timing().median_us() / timing.timing().median_us());
    }
  }
}

void WorkerService::AddDefaultDenominator(const std::string& problem, v1::JobResult* result) {
  if (result->speedups().empty()) return;
  // The same rule GetStats applies per problem, over this one job (kernel_metrics.h).
  *result->mutable_default_denominator() =
      ChooseDenominator({result}, state_->catalog->LibraryBaselineNames(problem));
  // The runner's message lists every speedup (the reference's first); an agent that reads only
  // the message gets the honest one too.
  const v1::Denominator& chosen = result->default_denominator();
  if (!chosen.baseline().empty() && !result->message().empty()) {
    result->set_message(absl::StrCat(result->message(), "; default speedup ",
                                     absl::StrFormat("%.2fx ", JobSpeedup(*result, chosen.baseline())), chosen.note()));
  }
}

BaselineTriage WorkerService::TriageBaselines(const WorkerRecord& worker, const v1::CompleteJobRequest& request,
                                              const std::vector<v1::BaselineTiming>& requested) {
  BaselineTriage triage;
  for (const v1::BaselineTiming& baseline : request.new_baselines()) {
    const v1::BaselineTiming* asked = FindRequest(requested, baseline);
    const char* why = nullptr;
    if (worker.gpu.compile_only()) {
      why = "a compile-only worker measures none";
    } else if (asked == nullptr) {
      why = "the server did not ask this lease for it";
    } else if (!(baseline.timing().median_us() > 0)) {
      why = "its median is not a positive time";
    }
    if (why != nullptr) {
      triage.dropped.push_back(absl::StrCat(baseline.problem(), " ", baseline.shape(), " ", baseline.name(), " from ",
                                            worker.id, " dropped: ", why));
      continue;
    }
    v1::BaselineTiming& stored = triage.accepted.emplace_back(baseline);
    stored.set_hardware_key(asked->hardware_key());
  }
  return triage;
}

void WorkerService::StoreBaselines(const std::string& job_id, const BaselineTriage& triage) {
  for (const std::string& dropped : triage.dropped) spdlog::warn("job {}: baseline {}", job_id, dropped);
  for (const v1::BaselineTiming& baseline : triage.accepted) {
    if (absl::Status s = state_->baselines->Put(baseline); !s.ok()) {
      spdlog::warn("baseline not stored: {}", s.ToString());
    }
  }
}

grpc::Status WorkerService::CompleteJob(grpc::ServerContext* context, const v1::CompleteJobRequest* request,
                                        v1::CompleteJobResponse* response) {
  ApiKey caller;
  if (grpc::Status status = state_->auth->Check(*context, Role::kWorker, &caller); !status.ok()) return status;
  WorkerRecord worker;
  if (grpc::Status status = FindOwnWorker(caller, request->worker_id(), &worker); !status.ok()) return status;
  const LeaseRef lease = LeaseOf(worker, request->job_id(), request->lease_token());
  // Which measured baselines are kept is settled before the result is stored, so that a
  // baselines-only job's stored result lists exactly the ones stored (JobResult.baselines).
  absl::StatusOr<std::vector<v1::BaselineTiming>> requested = state_->jobs->RequestedBaselines(lease);
  if (!requested.ok()) return ToClient(requested.status());
  const BaselineTriage triage = TriageBaselines(worker, *request, *requested);
  v1::JobResult result = request->result();
  result.clear_default_denominator();  // the server's to choose, never the worker's
  result.clear_baselines();            // likewise: the server says what it stored
  // Every text a client will read back is bounded here too: a worker (or a runner it trusts) is
  // not relied on to have capped a 1 MB `#error` line or a printf flood (proto/result_caps.h).
  CapResultText(&result);
  if (absl::StatusOr<std::optional<v1::Job>> job = state_->jobs->Get(lease.job_id); job.ok() && job->has_value()) {
    // Every speedup value is the server's own (server/speedup_rule.h), never the worker's.
    RecomputeSpeedups(KnownBaselines(worker, (*job)->problem(), triage), &result);
    AddImportedSpeedups(worker, (*job)->problem(), &result);
    AddDefaultDenominator((*job)->problem(), &result);
    if ((*job)->baselines_only()) *result.mutable_baselines() = {triage.accepted.begin(), triage.accepted.end()};
  }
  absl::StatusOr<Completion> completion = state_->jobs->Complete(lease, result);
  if (!completion.ok()) return ToClient(completion.status());
  response->set_accepted(completion->accepted);
  if (!completion->accepted) {
    spdlog::warn("job {}: result from {} refused: not its current lease (expired, lost or wrong token)",
                 request->job_id(), worker.id);
    return grpc::Status::OK;
  }
  StoreBaselines(request->job_id(), triage);
  if (absl::StatusOr<std::optional<v1::Job>> job = state_->jobs->Get(lease.job_id); job.ok() && job->has_value()) {
    state_->metrics->JobFinished(request->result().verdict(),
                                 static_cast<double>((*job)->finished_unix_ms() - (*job)->created_unix_ms()) / 1000.0);
  }
  spdlog::info("job {} done by {}: {} {}", request->job_id(), worker.id,
               v1::Verdict_Name(request->result().verdict()), CapText(request->result().message(), 512));
  state_->events->Notify();
  return grpc::Status::OK;
}

grpc::Status WorkerService::ReleaseJob(grpc::ServerContext* context, const v1::ReleaseJobRequest* request,
                                      v1::ReleaseJobResponse*) {
  ApiKey caller;
  if (grpc::Status status = state_->auth->Check(*context, Role::kWorker, &caller); !status.ok()) return status;
  WorkerRecord worker;
  if (grpc::Status status = FindOwnWorker(caller, request->worker_id(), &worker); !status.ok()) return status;
  absl::StatusOr<bool> released =
      state_->jobs->Release(LeaseOf(worker, request->job_id(), request->lease_token()), request->reason());
  if (!released.ok()) return ToClient(released.status());
  if (!*released) {
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                        absl::StrCat("job ", request->job_id(), " is not leased to worker ", worker.id,
                                     " under this token (the lease expired, was revoked or the job ended): "
                                     "nothing to release"));
  }
  spdlog::warn("job {} handed back by {}: {}", request->job_id(), worker.id, request->reason());
  state_->events->Notify();
  return grpc::Status::OK;
}

}  // namespace kjudge::server
