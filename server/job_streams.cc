#include "server/job_streams.h"

#include "absl/strings/str_cat.h"
#include "server/grpc_status.h"

namespace kjudge::server {
namespace {

// What a watcher has seen of a job: it is sent again only when this changes.
absl::StatusOr<std::optional<v1::Job>> Read(ServerState* state, RoundReads* reads, int64_t id, const Viewer& viewer) {
  return reads != nullptr ? reads->Get(id, viewer) : state->jobs->GetFor(id, viewer);
}

std::string Fingerprint(const v1::Job& job) {
  return absl::StrCat(job.state(), "/", job.stage(), "/", job.progress_done(), "/", job.progress_total(), "/",
                      job.queue_position(), "/", job.attempts());
}

}  // namespace

grpc::ServerWriteReactor<v1::Job>* JobStream::Refuse(const grpc::Status& status) {
  auto stream = std::make_shared<JobStream>(nullptr, nullptr, Viewer{}, std::vector<int64_t>{});
  stream->self_ = stream;
  std::lock_guard lock(stream->mutex_);
  stream->FinishLocked(status);
  return stream.get();
}

grpc::ServerWriteReactor<v1::Job>* JobStream::Open(ServerState* state, WatchHub* hub, const std::string& key_id,
                                                   const Viewer& viewer, std::vector<int64_t> ids) {
  auto stream = std::make_shared<JobStream>(state, hub, viewer, std::move(ids));
  stream->self_ = stream;
  if (absl::Status added = hub->Add(key_id, stream); !added.ok()) {
    state->metrics->RpcRejected("stream_cap");
    std::lock_guard lock(stream->mutex_);
    stream->FinishLocked(ToGrpc(added));
    return stream.get();
  }
  stream->Poll(nullptr);
  return stream.get();
}

void JobStream::Poll(RoundReads* reads) {
  std::lock_guard lock(mutex_);
  PollLocked(reads);
}

void JobStream::PollLocked(RoundReads* reads) {
  if (finished_) return;
  if (writing_) {
    dirty_ = true;  // read again once the write in flight is done
    return;
  }
  for (const int64_t id : ids_) {
    auto seen = seen_.find(id);
    if (seen != seen_.end() && seen->second.rfind(absl::StrCat(v1::DONE, "/"), 0) == 0) continue;
    absl::StatusOr<std::optional<v1::Job>> job = Read(state_, reads, id, viewer_);
    if (!job.ok()) return FinishLocked(ToGrpc(job.status()));
    if (!job->has_value()) return FinishLocked(grpc::Status(grpc::StatusCode::NOT_FOUND, absl::StrCat("no job ", id)));
    std::string now = Fingerprint(**job);
    if (seen != seen_.end() && seen->second == now) continue;
    if ((*job)->state() == v1::DONE) ++done_;
    seen_[id] = std::move(now);
    pending_.push_back(std::move(**job));
  }
  if (pending_.empty() && done_ < ids_.size() && state_->events->shutting_down()) {
    return FinishLocked(grpc::Status(grpc::StatusCode::UNAVAILABLE, "the server is shutting down; watch again"));
  }
  SendNextLocked();
}

void JobStream::SendNextLocked() {
  if (pending_.empty()) {
    if (done_ == ids_.size()) FinishLocked(grpc::Status::OK);
    return;
  }
  current_ = std::move(pending_.front());
  pending_.pop_front();
  writing_ = true;
  StartWrite(&current_);
}

void JobStream::OnWriteDone(bool ok) {
  std::shared_ptr<JobStream> keep = self_;  // an inline OnDone must not free us mid-call
  std::lock_guard lock(mutex_);
  writing_ = false;
  if (!ok || cancelled_) return FinishLocked(grpc::Status::CANCELLED);
  if (pending_.empty() && dirty_) {
    dirty_ = false;
    return PollLocked(nullptr);
  }
  SendNextLocked();
}

void JobStream::OnCancel() {
  std::shared_ptr<JobStream> keep = self_;
  std::lock_guard lock(mutex_);
  cancelled_ = true;
  // With a write in flight, its OnWriteDone(false) finishes the call.
  if (!writing_) FinishLocked(grpc::Status::CANCELLED);
}

void JobStream::OnDone() {
  std::shared_ptr<JobStream> keep = std::move(self_);
  if (hub_ != nullptr) hub_->Remove(this);
}

void JobStream::FinishLocked(const grpc::Status& status) {
  if (finished_) return;
  finished_ = true;
  Finish(status);
}

std::shared_ptr<EvaluateCall> EvaluateCall::Create(ServerState* state, WatchHub* hub, Viewer viewer,
                                                   v1::Job* response) {
  auto call = std::make_shared<EvaluateCall>(state, hub, std::move(viewer), response);
  call->self_ = call;
  return call;
}

void EvaluateCall::Track(int64_t id) {
  {
    std::lock_guard lock(mutex_);
    id_ = id;
  }
  Poll(nullptr);
}

void EvaluateCall::Fail(const grpc::Status& status) {
  std::lock_guard lock(mutex_);
  FinishLocked(status);
}

void EvaluateCall::Poll(RoundReads* reads) {
  std::lock_guard lock(mutex_);
  if (finished_ || id_ == 0) return;
  absl::StatusOr<std::optional<v1::Job>> job = Read(state_, reads, id_, viewer_);
  if (!job.ok()) return FinishLocked(ToGrpc(job.status()));
  if (!job->has_value()) return FinishLocked(grpc::Status(grpc::StatusCode::NOT_FOUND, absl::StrCat("no job ", id_)));
  if ((*job)->state() == v1::DONE) {
    *response_ = std::move(**job);
    return FinishLocked(grpc::Status::OK);
  }
  if (state_->events->shutting_down()) {
    FinishLocked(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                              absl::StrCat("the server is shutting down; job ", id_, " stays queued: GetJob it later")));
  }
}

void EvaluateCall::OnCancel() {
  std::shared_ptr<EvaluateCall> keep = self_;
  std::lock_guard lock(mutex_);
  FinishLocked(grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED,
                            absl::StrCat("job ", id_, " is not finished yet; it stays queued: GetJob ", id_, " later")));
}

void EvaluateCall::OnDone() {
  std::shared_ptr<EvaluateCall> keep = std::move(self_);
  hub_->Remove(this);
}

void EvaluateCall::FinishLocked(const grpc::Status& status) {
  if (finished_) return;
  finished_ = true;
  Finish(status);
}

}  // namespace kjudge::server
