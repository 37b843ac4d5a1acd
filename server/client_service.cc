#include "server/client_service.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "absl/strings/str_cat.h"
#include "server/catalog_reload.h"
#include "server/grpc_status.h"
#include "server/rpc_errors.h"
#include "server/job_streams.h"
#include "server/kernel_metrics.h"
#include "common/log.h"
#include "proto/result_caps.h"

namespace kjudge::server {
namespace {

constexpr int kMaxBatch = 100;
// An unknown name echoed in an error: capped (a name is free text of any length).
constexpr size_t kMaxEchoedNameBytes = 200;
constexpr int kMaxWatchedJobs = 1000;
constexpr int kDefaultPageSize = 50;
constexpr int kMaxPageSize = 500;
constexpr char kPageTokenPrefix[] = "before:";

grpc::Status ParseJobId(const std::string& text, int64_t* id) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *id);
  if (text.empty() || ec != std::errc() || ptr != end || *id <= 0) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        absl::StrCat("job_id: '", text.substr(0, 32), "' is not a job id (job ids are positive integers)"));
  }
  return grpc::Status::OK;
}

Viewer ViewerOf(const ApiKey& caller) { return Viewer{caller.id, caller.role == Role::kAdmin}; }

// Parses ListJobs' opaque page token ("" or one this server handed out).
grpc::Status ParsePageToken(const std::string& token, int64_t* before_id) {
  *before_id = 0;
  if (token.empty()) return grpc::Status::OK;
  if (token.rfind(kPageTokenPrefix, 0) == 0 &&
      ParseJobId(token.substr(sizeof(kPageTokenPrefix) - 1), before_id).ok()) {
    return grpc::Status::OK;
  }
  return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                      "page_token: not a token this server handed out; pass next_page_token from the last response");
}

// GetStatsRequest.problem_set holds at most this many names.
constexpr int kMaxProblemSet = 5000;

// The run's problem set of a GetStats request (kernel_metrics.h): the names given (each a
// catalog problem), or every catalog problem under the prefix; empty when neither is asked for.
grpc::Status StatsProblemSet(const std::vector<v1::ProblemSummary>& catalog, const v1::GetStatsRequest& request,
                             std::vector<std::string>* set) {
  if (request.prefix_is_problem_set() && !request.problem_set().empty()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "problem_set and prefix_is_problem_set: give the names or the prefix's problems, not both");
  }
  if (request.problem_set_size() > kMaxProblemSet) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        absl::StrCat("problem_set: ", request.problem_set_size(), " names; at most ", kMaxProblemSet,
                                     " (use problem_prefix with prefix_is_problem_set for a whole level)"));
  }
  std::set<std::string> names;
  for (const v1::ProblemSummary& summary : catalog) names.insert(summary.name());
  for (const std::string& name : request.problem_set()) {
    if (!names.contains(name)) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          absl::StrCat("problem_set: '", name.substr(0, kMaxEchoedNameBytes),
                                       "' is not a problem of this server; `kjudge problems` lists them"));
    }
    set->push_back(name);
  }
  if (!request.prefix_is_problem_set()) return grpc::Status::OK;
  for (const std::string& name : names) {
    if (name.rfind(request.problem_prefix(), 0) == 0) set->push_back(name);
  }
  if (set->empty()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        absl::StrCat("prefix_is_problem_set: no problem starts with '",
                                     request.problem_prefix().substr(0, kMaxEchoedNameBytes),
                                     "'; `kjudge problems` lists them"));
  }
  return grpc::Status::OK;
}

// What GetJobSource returns: the stored texts capped as the server caps every text it hands
// out (proto/result_caps.h), at the intake limits, so a database written under larger limits
// (or by hand) cannot make the answer large.
void FillJobSource(int64_t id, const JobStore::StoredSubmission& stored, const IntakeLimits& limits,
                   v1::JobSource* out) {
  out->set_job_id(std::to_string(id));
  out->set_filename(CapText(stored.filename, SubmitLimits{}.max_filename_bytes));
  out->set_source(CapText(stored.source, limits.max_source_bytes));
  out->set_launch_plan(CapText(stored.launch_plan, limits.max_plan_bytes));
}

}  // namespace

grpc::Status ClientService::Authorize(const grpc::ServerContextBase& context, ApiKey* caller) {
  grpc::Status status = state_->auth->Check(context, Role::kSubmitter, caller);
  if (!status.ok()) state_->metrics->RpcRejected("auth");
  return status;
}

grpc::Status ClientService::ListProblems(grpc::ServerContext* context, const v1::ListProblemsRequest*,
                                         v1::ListProblemsResponse* response) {
  ApiKey caller;
  if (grpc::Status status = Authorize(*context, &caller); !status.ok()) return status;
  for (v1::ProblemSummary& summary : state_->catalog->List()) {
    *response->add_problems() = std::move(summary);
  }
  return grpc::Status::OK;
}

grpc::Status ClientService::GetProblem(grpc::ServerContext* context, const v1::GetProblemRequest* request,
                                       v1::Problem* response) {
  ApiKey caller;
  if (grpc::Status status = Authorize(*context, &caller); !status.ok()) return status;
  const std::shared_ptr<const CatalogEntry> entry = state_->catalog->Find(request->name());
  if (entry == nullptr) {
    return grpc::Status(grpc::StatusCode::NOT_FOUND,
                        absl::StrCat("unknown problem '", CapText(request->name(), kMaxEchoedNameBytes),
                                     "'; `kjudge problems` lists them"));
  }
  *response = entry->proto;
  return grpc::Status::OK;
}

grpc::Status ClientService::SubmitJob(grpc::ServerContextBase* context, const ApiKey& caller,
                                      const v1::SubmitRequest& request, int64_t* id) {
  if (const int64_t wait_ms = state_->submit_rate->Admit(caller.id); wait_ms > 0) {
    state_->metrics->RpcRejected("rate_limit");
    context->AddTrailingMetadata("retry-after-ms", std::to_string(wait_ms));
    return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                        absl::StrCat("rate limit: at most ", state_->submit_rate->rate(),
                                     " submissions per second per key; retry in ", wait_ms, " ms"));
  }
  absl::StatusOr<NewJob> job = PrepareJob(request, *state_->catalog->Snapshot(), state_->limits);
  if (!job.ok()) return ToClient(job.status());
  job->api_key_id = caller.id;
  job->active_cap = state_->max_active_jobs_per_key;
  absl::StatusOr<int64_t> stored = state_->jobs->Enqueue(*job);
  if (absl::IsResourceExhausted(stored.status())) {
    state_->metrics->RpcRejected("queue_cap");
    context->AddTrailingMetadata("retry-after-ms", "5000");
    return ToClient(stored.status());
  }
  if (absl::IsAlreadyExists(stored.status())) return ToClient(stored.status());
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
  // The filename is free of control characters (request_checks), so this stays one log line.
  spdlog::info("job {} submitted: problem={} file={} compile_only={} baselines_only={}{}", *id, job->problem,
               job->filename, job->compile_only, job->baselines_only,
               job->immediate_result ? " (rejected at intake)" : "");
  state_->events->Notify();
  return grpc::Status::OK;
}

void ClientService::AnnotateWaiting(v1::Job* job) {
  if (state_->capacity != nullptr) state_->capacity->Annotate(state_->catalog->Snapshot().get(), job);
}

grpc::Status ClientService::LoadJob(int64_t id, const Viewer& viewer, v1::Job* job) {
  absl::StatusOr<std::optional<v1::Job>> found = state_->jobs->GetFor(id, viewer);
  if (!found.ok()) return ToClient(found.status());
  if (!found->has_value()) {
    return JobNotFound(id);  // never existed, or another tenant's
  }
  *job = std::move(**found);
  AnnotateWaiting(job);
  return grpc::Status::OK;
}

grpc::Status ClientService::Submit(grpc::ServerContext* context, const v1::SubmitRequest* request,
                                   v1::SubmitResponse* response) {
  ApiKey caller;
  if (grpc::Status status = Authorize(*context, &caller); !status.ok()) return status;
  int64_t id = 0;
  if (grpc::Status status = SubmitJob(context, caller, *request, &id); !status.ok()) return status;
  response->set_job_id(std::to_string(id));
  return LoadJob(id, ViewerOf(caller), response->mutable_job());
}

grpc::Status ClientService::SubmitBatch(grpc::ServerContext* context, const v1::SubmitBatchRequest* request,
                                        v1::SubmitBatchResponse* response) {
  ApiKey caller;
  if (grpc::Status status = Authorize(*context, &caller); !status.ok()) return status;
  if (request->requests_size() > kMaxBatch) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        absl::StrCat("requests: ", request->requests_size(), " items; the limit is ", kMaxBatch,
                                     " per batch"));
  }
  response->mutable_items()->Reserve(request->requests_size());
  for (const v1::SubmitRequest& item : request->requests()) {
    v1::SubmitBatchItem* out = response->add_items();
    int64_t id = 0;
    grpc::Status status = SubmitJob(context, caller, item, &id);
    if (status.ok()) status = LoadJob(id, ViewerOf(caller), out->mutable_job());
    if (!status.ok()) {
      out->clear_job();
      out->set_error_code(status.error_code());
      out->set_error(status.error_message());
      continue;
    }
    out->set_job_id(std::to_string(id));
  }
  return grpc::Status::OK;
}

grpc::Status ClientService::GetJob(grpc::ServerContext* context, const v1::GetJobRequest* request,
                                   v1::Job* response) {
  ApiKey caller;
  if (grpc::Status status = Authorize(*context, &caller); !status.ok()) return status;
  int64_t id = 0;
  if (grpc::Status status = ParseJobId(request->job_id(), &id); !status.ok()) return status;
  return LoadJob(id, ViewerOf(caller), response);
}

grpc::Status ClientService::GetJobSource(grpc::ServerContext* context, const v1::GetJobRequest* request,
                                         v1::JobSource* response) {
  ApiKey caller;
  if (grpc::Status status = Authorize(*context, &caller); !status.ok()) return status;
  int64_t id = 0;
  if (grpc::Status status = ParseJobId(request->job_id(), &id); !status.ok()) return status;
  absl::StatusOr<std::optional<JobStore::StoredSubmission>> stored = state_->jobs->SubmissionFor(id, ViewerOf(caller));
  if (!stored.ok()) return ToClient(stored.status());
  if (!stored->has_value()) return JobNotFound(id);
  FillJobSource(id, **stored, state_->limits, response);
  return grpc::Status::OK;
}

grpc::Status ClientService::ListJobs(grpc::ServerContext* context, const v1::ListJobsRequest* request,
                                     v1::ListJobsResponse* response) {
  ApiKey caller;
  if (grpc::Status status = Authorize(*context, &caller); !status.ok()) return status;
  if (absl::Status s = CheckTags(request->tags(), SubmitLimits{}, "tags"); !s.ok()) return ToClient(s);
  if (!v1::JobState_IsValid(request->state())) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        absl::StrCat("state: unknown value ", request->state(), "; QUEUED, RUNNING, DONE or unset"));
  }
  if (request->page_size() < 0) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "page_size: negative; 0 means the default (50)");
  }
  JobFilter filter;
  filter.tags.insert(request->tags().begin(), request->tags().end());
  filter.state = request->state();
  filter.problem = request->problem();
  if (grpc::Status status = ParsePageToken(request->page_token(), &filter.before_id); !status.ok()) return status;
  const int page = request->page_size() == 0 ? kDefaultPageSize : std::min(request->page_size(), kMaxPageSize);
  filter.limit = page + 1;  // one more tells whether another page follows
  absl::StatusOr<std::vector<v1::Job>> jobs = state_->jobs->List(ViewerOf(caller), filter);
  if (!jobs.ok()) return ToClient(jobs.status());
  const bool more = static_cast<int>(jobs->size()) > page;
  if (more) jobs->pop_back();
  for (v1::Job& job : *jobs) {
    AnnotateWaiting(&job);
    *response->add_jobs() = std::move(job);
  }
  if (more) response->set_next_page_token(absl::StrCat(kPageTokenPrefix, response->jobs().rbegin()->id()));
  return grpc::Status::OK;
}

grpc::Status ClientService::CancelJob(grpc::ServerContext* context, const v1::CancelJobRequest* request,
                                      v1::Job* response) {
  ApiKey caller;
  if (grpc::Status status = Authorize(*context, &caller); !status.ok()) return status;
  int64_t id = 0;
  if (grpc::Status status = ParseJobId(request->job_id(), &id); !status.ok()) return status;
  absl::StatusOr<v1::Job> cancelled = state_->jobs->Cancel(id, ViewerOf(caller));
  if (!cancelled.ok()) return ToClient(cancelled.status());
  state_->metrics->JobFinished(v1::CANCELLED, 0.0);
  spdlog::info("job {} cancelled by {}", id, caller.id.empty() ? "anonymous" : caller.id);
  state_->events->Notify();
  *response = std::move(*cancelled);
  return grpc::Status::OK;
}

grpc::ServerWriteReactor<v1::Job>* ClientService::OpenStream(
    grpc::CallbackServerContext* context, const google::protobuf::RepeatedPtrField<std::string>& ids) {
  ApiKey caller;
  if (grpc::Status status = Authorize(*context, &caller); !status.ok()) return JobStream::Refuse(status);
  if (ids.empty() || ids.size() > kMaxWatchedJobs) {
    return JobStream::Refuse(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                          absl::StrCat("job_ids: ", ids.size(), " ids; watch 1 to ",
                                                       kMaxWatchedJobs, " jobs per stream")));
  }
  std::vector<int64_t> parsed;
  parsed.reserve(static_cast<size_t>(ids.size()));
  for (const std::string& text : ids) {
    int64_t id = 0;
    if (grpc::Status status = ParseJobId(text, &id); !status.ok()) return JobStream::Refuse(status);
    if (std::find(parsed.begin(), parsed.end(), id) == parsed.end()) parsed.push_back(id);
  }
  return JobStream::Open(state_, &hub_, caller.id, ViewerOf(caller), std::move(parsed));
}

grpc::ServerWriteReactor<v1::Job>* ClientService::WatchJob(grpc::CallbackServerContext* context,
                                                           const v1::WatchJobRequest* request) {
  google::protobuf::RepeatedPtrField<std::string> ids;
  ids.Add()->assign(request->job_id());
  return OpenStream(context, ids);
}

grpc::ServerWriteReactor<v1::Job>* ClientService::WatchJobs(grpc::CallbackServerContext* context,
                                                            const v1::WatchJobsRequest* request) {
  return OpenStream(context, request->job_ids());
}

grpc::ServerUnaryReactor* ClientService::Evaluate(grpc::CallbackServerContext* context,
                                                  const v1::SubmitRequest* request, v1::Job* response) {
  ApiKey caller;
  grpc::Status status = Authorize(*context, &caller);
  std::shared_ptr<EvaluateCall> call = EvaluateCall::Create(state_, &hub_, ViewerOf(caller), response);
  if (!status.ok()) {
    call->Fail(status);
    return call.get();
  }
  // The stream slot is taken before the job exists, so a refusal queues nothing.
  if (absl::Status added = hub_.Add(caller.id, ViewerOf(caller), call, {}); !added.ok()) {
    state_->metrics->RpcRejected("stream_cap");
    call->Fail(ToClient(added));
    return call.get();
  }
  int64_t id = 0;
  if (status = SubmitJob(context, caller, *request, &id); !status.ok()) {
    call->Fail(status);
    return call.get();
  }
  // The id goes out now, before any wait: a client whose deadline passes still has it.
  context->AddInitialMetadata("kjudge-job-id", std::to_string(id));
  call->StartSendInitialMetadata();
  call->Track(id);
  return call.get();
}

grpc::Status ClientService::GetStats(grpc::ServerContext* context, const v1::GetStatsRequest* request,
                                     v1::Stats* response) {
  ApiKey caller;
  if (grpc::Status status = Authorize(*context, &caller); !status.ok()) return status;
  // The same rules as ListJobs' filter (at most 16 tags, key charset, lengths), so a request
  // with thousands of tags is INVALID_ARGUMENT naming the limit before any query runs.
  if (absl::Status s = CheckTags(request->tags(), SubmitLimits{}, "tags"); !s.ok()) return ToClient(s);
  if (request->problem_prefix().size() > SubmitLimits{}.max_problem_bytes) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        absl::StrCat("problem_prefix: ", request->problem_prefix().size(), " bytes; at most ",
                                     SubmitLimits{}.max_problem_bytes));
  }
  std::vector<std::string> problem_set;
  if (grpc::Status status = StatsProblemSet(state_->catalog->List(), *request, &problem_set); !status.ok()) {
    return status;
  }
  const std::map<std::string, std::string> tags(request->tags().begin(), request->tags().end());
  absl::StatusOr<std::vector<JudgedResult>> results = state_->jobs->FinishedResults(
      tags, request->problem_prefix(), StatsScope{ViewerOf(caller), request->public_only()});
  if (!results.ok()) return ToClient(results.status());
  LibraryNames library;
  for (const JudgedResult& judged : *results) {
    if (!library.contains(judged.problem)) library[judged.problem] = state_->catalog->LibraryBaselineNames(judged.problem);
  }
  // "": each problem's strongest baseline (kernel_metrics.h has the rule).
  *response = ComputeStats(*results, request->baseline(), library, {}, nullptr, problem_set);
  return grpc::Status::OK;
}

grpc::Status ClientService::ListBaselines(grpc::ServerContext* context, const v1::ListBaselinesRequest* request,
                                          v1::ListBaselinesResponse* response) {
  ApiKey caller;
  if (grpc::Status status = Authorize(*context, &caller); !status.ok()) return status;
  absl::StatusOr<std::vector<v1::BaselineTiming>> baselines = state_->baselines->List(request->problem_prefix());
  if (!baselines.ok()) return ToClient(baselines.status());
  for (v1::BaselineTiming& baseline : *baselines) *response->add_baselines() = std::move(baseline);
  return grpc::Status::OK;
}

grpc::Status ClientService::RefreshBaselines(grpc::ServerContext* context,
                                             const v1::RefreshBaselinesRequest* request,
                                             v1::RefreshBaselinesResponse* response) {
  ApiKey caller;
  if (grpc::Status status = state_->auth->Check(*context, Role::kAdmin, &caller); !status.ok()) return status;
  absl::StatusOr<int64_t> removed = state_->baselines->RemoveMeasured(request->problem_prefix());
  if (!removed.ok()) return ToClient(removed.status());
  response->set_removed(*removed);
  if (!request->run_examples()) return grpc::Status::OK;
  // Queue each problem's example: its job measures the baselines that are now missing.
  const std::shared_ptr<const ProblemCatalog> catalog = state_->catalog->Snapshot();  // one catalog throughout
  for (const v1::ProblemSummary& summary : catalog->List()) {
    const CatalogEntry* entry = catalog->Find(summary.name());
    if (summary.name().rfind(request->problem_prefix(), 0) != 0 || entry->files.example_source.empty()) continue;
    v1::SubmitRequest submit;
    submit.set_problem(summary.name());
    submit.set_source(entry->files.example_source);
    submit.set_filename(entry->files.spec.example_file);
    (*submit.mutable_tags())["kind"] = "baseline-refresh";
    int64_t id = 0;
    if (grpc::Status status = SubmitJob(context, caller, submit, &id); !status.ok()) return status;
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
    if (absl::Status s = state_->baselines->Put(baseline); !s.ok()) return ToClient(s);
    response->set_stored(response->stored() + 1);
  }
  return grpc::Status::OK;
}

grpc::Status ClientService::ReloadProblems(grpc::ServerContext* context, const v1::ReloadProblemsRequest*,
                                           v1::ReloadProblemsResponse* response) {
  ApiKey caller;
  if (grpc::Status status = state_->auth->Check(*context, Role::kAdmin, &caller); !status.ok()) return status;
  absl::StatusOr<v1::ReloadProblemsResponse> reloaded = ReloadCatalog(state_);
  if (!reloaded.ok()) {
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, CapText(std::string(reloaded.status().message()), 4096));
  }
  *response = *std::move(reloaded);
  return grpc::Status::OK;
}

}  // namespace kjudge::server
