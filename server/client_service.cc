#include "server/client_service.h"

#include <charconv>

#include "absl/strings/str_cat.h"
#include "server/grpc_status.h"
#include "server/kernel_metrics.h"
#include "common/log.h"

namespace kjudge::server {
namespace {

constexpr std::chrono::milliseconds kPollInterval(500);

grpc::Status ParseJobId(const std::string& text, int64_t* id) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *id);
  if (text.empty() || ec != std::errc() || ptr != end || *id <= 0) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        absl::StrCat("'", text, "' is not a job id (job ids are positive integers)"));
  }
  return grpc::Status::OK;
}

// What a watcher has seen of a job: it is sent again only when this changes.
std::string Fingerprint(const v1::Job& job) {
  return absl::StrCat(job.state(), "/", job.stage(), "/", job.progress_done(), "/",
                      job.progress_total(), "/", job.queue_position(), "/", job.attempts());
}

}  // namespace

grpc::Status ClientService::Authorize(grpc::ServerContext* context, ApiKey* caller) {
  grpc::Status status = state_->auth->Check(*context, Role::kSubmitter, caller);
  if (!status.ok()) state_->metrics->RpcRejected("auth");
  return status;
}

grpc::Status ClientService::ListProblems(grpc::ServerContext* context, const v1::ListProblemsRequest*,
                                         v1::ListProblemsResponse* response) {
  ApiKey caller;
  if (grpc::Status status = Authorize(context, &caller); !status.ok()) return status;
  for (v1::ProblemSummary& summary : state_->catalog->List()) {
    *response->add_problems() = std::move(summary);
  }
  return grpc::Status::OK;
}

grpc::Status ClientService::GetProblem(grpc::ServerContext* context, const v1::GetProblemRequest* request,
                                       v1::Problem* response) {
  ApiKey caller;
  if (grpc::Status status = Authorize(context, &caller); !status.ok()) return status;
  const CatalogEntry* entry = state_->catalog->Find(request->name());
  if (entry == nullptr) {
    return grpc::Status(grpc::StatusCode::NOT_FOUND,
                        absl::StrCat("unknown problem '", request->name(), "'; `kjudge problems` lists them"));
  }
  *response = entry->proto;
  return grpc::Status::OK;
}

grpc::Status ClientService::SubmitJob(grpc::ServerContext* context, const v1::SubmitRequest& request,
                                      int64_t* id) {
  ApiKey caller;
  if (grpc::Status status = Authorize(context, &caller); !status.ok()) return status;
  if (const int64_t wait_ms = state_->submit_rate->Admit(caller.id); wait_ms > 0) {
    state_->metrics->RpcRejected("rate_limit");
    context->AddTrailingMetadata("retry-after-ms", std::to_string(wait_ms));
    return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                        absl::StrCat("rate limit: at most ", state_->submit_rate->rate(),
                                     " submissions per second per key; retry in ", wait_ms, " ms"));
  }
  if (state_->max_active_jobs_per_key > 0) {
    absl::StatusOr<int64_t> active = state_->jobs->CountActiveForKey(caller.id);
    if (!active.ok()) return ToGrpc(active.status());
    if (*active >= state_->max_active_jobs_per_key) {
      state_->metrics->RpcRejected("queue_cap");
      context->AddTrailingMetadata("retry-after-ms", "5000");
      return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                          absl::StrCat("this key has ", *active, " jobs queued or running (the cap is ",
                                       state_->max_active_jobs_per_key, "); retry when some have finished"));
    }
  }
  absl::StatusOr<NewJob> job = PrepareJob(request, *state_->catalog, state_->limits);
  if (!job.ok()) return ToGrpc(job.status());
  job->api_key_id = caller.id;
  absl::StatusOr<int64_t> stored = state_->jobs->Enqueue(*job);
  if (!stored.ok()) {
    spdlog::error("enqueue failed: {}", stored.status().ToString());
    return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                        "the job could not be stored; nothing was queued: try again");
  }
  *id = *stored;
  if (job->immediate_result) {
    state_->metrics->JobFinished(job->immediate_result->verdict(), 0.0);
  } else {
    state_->metrics->JobSubmitted();
  }
  spdlog::info("job {} submitted: problem={} file={} compile_only={}{}", *id, job->problem,
               job->filename, job->compile_only, job->immediate_result ? " (rejected at intake)" : "");
  state_->events->Notify();
  return grpc::Status::OK;
}

grpc::Status ClientService::LoadJob(int64_t id, v1::Job* job) {
  absl::StatusOr<std::optional<v1::Job>> found = state_->jobs->Get(id);
  if (!found.ok()) return ToGrpc(found.status());
  if (!found->has_value()) {
    return grpc::Status(grpc::StatusCode::NOT_FOUND, absl::StrCat("no job ", id));
  }
  *job = std::move(**found);
  return grpc::Status::OK;
}

grpc::Status ClientService::Submit(grpc::ServerContext* context, const v1::SubmitRequest* request,
                                   v1::SubmitResponse* response) {
  int64_t id = 0;
  if (grpc::Status status = SubmitJob(context, *request, &id); !status.ok()) return status;
  response->set_job_id(std::to_string(id));
  return LoadJob(id, response->mutable_job());
}

grpc::Status ClientService::GetJob(grpc::ServerContext* context, const v1::GetJobRequest* request,
                                   v1::Job* response) {
  ApiKey caller;
  if (grpc::Status status = Authorize(context, &caller); !status.ok()) return status;
  int64_t id = 0;
  if (grpc::Status status = ParseJobId(request->job_id(), &id); !status.ok()) return status;
  return LoadJob(id, response);
}

grpc::Status ClientService::WatchJob(grpc::ServerContext* context, const v1::WatchJobRequest* request,
                                     grpc::ServerWriter<v1::Job>* writer) {
  ApiKey caller;
  if (grpc::Status status = Authorize(context, &caller); !status.ok()) return status;
  int64_t id = 0;
  if (grpc::Status status = ParseJobId(request->job_id(), &id); !status.ok()) return status;
  std::string last;
  uint64_t seen = state_->events->version();
  while (!context->IsCancelled()) {
    v1::Job job;
    if (grpc::Status status = LoadJob(id, &job); !status.ok()) return status;
    const std::string now = Fingerprint(job);
    if (now != last) {
      if (!writer->Write(job)) return grpc::Status::CANCELLED;
      last = now;
    }
    if (job.state() == v1::DONE) return grpc::Status::OK;
    if (state_->events->shutting_down()) {
      return grpc::Status(grpc::StatusCode::UNAVAILABLE, "the server is shutting down; watch again");
    }
    seen = state_->events->WaitForChange(seen, kPollInterval);
  }
  return grpc::Status::CANCELLED;
}

grpc::Status ClientService::Evaluate(grpc::ServerContext* context, const v1::SubmitRequest* request,
                                     v1::Job* response) {
  int64_t id = 0;
  if (grpc::Status status = SubmitJob(context, *request, &id); !status.ok()) return status;
  uint64_t seen = state_->events->version();
  while (!context->IsCancelled()) {
    if (grpc::Status status = LoadJob(id, response); !status.ok()) return status;
    if (response->state() == v1::DONE) return grpc::Status::OK;
    if (state_->events->shutting_down()) {
      return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          absl::StrCat("the server is shutting down; job ", id, " stays queued: GetJob it later"));
    }
    seen = state_->events->WaitForChange(seen, kPollInterval);
  }
  return grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED,
                      absl::StrCat("job ", id, " is not finished yet; it stays queued: GetJob ", id, " later"));
}

grpc::Status ClientService::GetStats(grpc::ServerContext* context, const v1::GetStatsRequest* request,
                                     v1::Stats* response) {
  ApiKey caller;
  if (grpc::Status status = Authorize(context, &caller); !status.ok()) return status;
  const std::map<std::string, std::string> tags(request->tags().begin(), request->tags().end());
  absl::StatusOr<std::vector<v1::JobResult>> results =
      state_->jobs->FinishedResults(tags, request->problem_prefix());
  if (!results.ok()) return ToGrpc(results.status());
  *response = ComputeStats(*results, request->baseline().empty() ? "reference" : request->baseline());
  return grpc::Status::OK;
}

grpc::Status ClientService::ListBaselines(grpc::ServerContext* context, const v1::ListBaselinesRequest* request,
                                          v1::ListBaselinesResponse* response) {
  ApiKey caller;
  if (grpc::Status status = Authorize(context, &caller); !status.ok()) return status;
  absl::StatusOr<std::vector<v1::BaselineTiming>> baselines = state_->baselines->List(request->problem_prefix());
  if (!baselines.ok()) return ToGrpc(baselines.status());
  for (v1::BaselineTiming& baseline : *baselines) *response->add_baselines() = std::move(baseline);
  return grpc::Status::OK;
}

grpc::Status ClientService::RefreshBaselines(grpc::ServerContext* context,
                                             const v1::RefreshBaselinesRequest* request,
                                             v1::RefreshBaselinesResponse* response) {
  ApiKey caller;
  if (grpc::Status status = state_->auth->Check(*context, Role::kAdmin, &caller); !status.ok()) return status;
  absl::StatusOr<int64_t> removed = state_->baselines->RemoveMeasured(request->problem_prefix());
  if (!removed.ok()) return ToGrpc(removed.status());
  response->set_removed(*removed);
  if (!request->run_examples()) return grpc::Status::OK;
  // Queue each problem's example: its job measures the baselines that are now missing.
  for (const v1::ProblemSummary& summary : state_->catalog->List()) {
    const CatalogEntry* entry = state_->catalog->Find(summary.name());
    if (summary.name().rfind(request->problem_prefix(), 0) != 0 || entry->files.example_source.empty()) continue;
    v1::SubmitRequest submit;
    submit.set_problem(summary.name());
    submit.set_source(entry->files.example_source);
    submit.set_filename(entry->files.spec.example_file);
    (*submit.mutable_tags())["kind"] = "baseline-refresh";
    int64_t id = 0;
    if (grpc::Status status = SubmitJob(context, submit, &id); !status.ok()) return status;
    response->add_job_ids(std::to_string(id));
  }
  return grpc::Status::OK;
}

grpc::Status ClientService::ImportBaselines(grpc::ServerContext* context,
                                            const v1::ImportBaselinesRequest* request,
                                            v1::ImportBaselinesResponse* response) {
  ApiKey caller;
  if (grpc::Status status = state_->auth->Check(*context, Role::kAdmin, &caller); !status.ok()) return status;
  for (const v1::BaselineTiming& baseline : request->baselines()) {
    if (state_->catalog->Find(baseline.problem()) == nullptr || baseline.name().empty() ||
        baseline.hardware_key().rfind("imported|", 0) != 0 || !(baseline.timing().median_us() > 0)) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          absl::StrCat("baseline ", response->stored() + 1, " (", baseline.problem(), " ",
                                       baseline.shape(), " ", baseline.name(),
                                       "): needs a catalog problem, a name, hardware_key 'imported|<gpu>' and "
                                       "median_us > 0; nothing after it was stored"));
    }
    if (absl::Status s = state_->baselines->Put(baseline); !s.ok()) return ToGrpc(s);
    response->set_stored(response->stored() + 1);
  }
  return grpc::Status::OK;
}

}  // namespace kjudge::server
