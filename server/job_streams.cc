#include "server/job_streams.h"

#include <unordered_set>

#include "absl/strings/str_cat.h"
#include "server/grpc_status.h"
#include "server/rpc_errors.h"

namespace kjudge::server {
namespace {

// What a watcher has seen of a job: it is sent again only when this changes.
std::string Fingerprint(const v1::Job& job) {
  return absl::StrCat(job.state(), "/", job.stage(), "/", job.progress_done(), "/", job.progress_total(), "/",
                      job.queue_position(), "/", job.attempts(), "/", job.waiting_reason());
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
  // Held from registration through the first refresh, so that a hub Wake in between waits
  // and then finds the first write under way (lock order everywhere: stream, then hub).
  std::lock_guard lock(stream->mutex_);
  // Registered before the first read: a change after the read wakes it, one before is read.
  if (absl::Status added = hub->Add(key_id, viewer, stream, stream->ids_); !added.ok()) {
    state->metrics->RpcRejected("stream_cap");
    stream->FinishLocked(ToClient(added));
    return stream.get();
  }
  RoundReads reads(state->jobs);  // its own: one ranked read of the viewer's queue for all ids
  stream->RefreshLocked(&reads, stream->ids_, false);
  return stream.get();
}

void JobStream::Wake(RoundReads* reads, const std::vector<int64_t>& changed, bool positions) {
  std::lock_guard lock(mutex_);
  if (finished_) return;
  if (writing_) {
    // Read once the writes queued before are out (OnWriteDone), with fresh reads then.
    dirty_.insert(changed.begin(), changed.end());
    dirty_positions_ = dirty_positions_ || positions;
    if (state_->events->shutting_down()) dirty_positions_ = true;  // so that OnWriteDone looks again
    return;
  }
  RefreshLocked(reads, changed, positions);
}

void JobStream::CapacityChanged() {
  std::lock_guard lock(mutex_);
  if (finished_) return;
  if (writing_) {
    dirty_capacity_ = true;  // OnWriteDone re-annotates once the writes queued before are out
    return;
  }
  ReannotateLocked();
  SendNextLocked();
}

void JobStream::ReannotateLocked() {
  if (state_->capacity == nullptr) return;
  const auto catalog = state_->catalog->Snapshot();  // one snapshot for all the queued jobs
  for (auto& [id, job] : queued_) {
    v1::Job again = job;
    state_->capacity->Annotate(catalog.get(), &again);
    std::string now = Fingerprint(again);
    if (seen_[id] == now) continue;
    seen_[id] = std::move(now);
    job = again;
    pending_.push_back(std::move(again));
  }
}

void JobStream::OfferLocked(v1::Job job) {
  const int64_t id = std::stoll(job.id());
  if (state_->capacity != nullptr) state_->capacity->Annotate(state_->catalog->Snapshot().get(), &job);
  std::string now = Fingerprint(job);
  auto seen = seen_.find(id);
  if (seen != seen_.end() && seen->second == now) return;
  if (job.state() == v1::DONE) ++done_;
  seen_[id] = std::move(now);
  if (job.state() == v1::QUEUED) {
    queued_[id] = job;
  } else {
    queued_.erase(id);
  }
  pending_.push_back(std::move(job));
}

void JobStream::RefreshLocked(RoundReads* reads, const std::vector<int64_t>& changed, bool positions) {
  if (finished_) return;
  const auto is_done = [&](int64_t id) {
    auto seen = seen_.find(id);
    return seen != seen_.end() && seen->second.rfind(absl::StrCat(v1::DONE, "/"), 0) == 0;
  };
  std::vector<int64_t> reread;
  for (const int64_t id : changed) {
    if (!is_done(id)) reread.push_back(id);
  }
  if (positions) {
    // Only queued jobs have positions; those that left the queue have changed too and are read.
    const std::unordered_set<int64_t> read_anyway(changed.begin(), changed.end());
    for (const auto& [id, job] : queued_) {
      if (read_anyway.contains(id)) continue;
      absl::StatusOr<int64_t> position = reads->Position(id, job.compile_only(), viewer_);
      if (!position.ok()) return FinishLocked(ToClient(position.status()));
      if (*position == job.queue_position()) continue;
      if (*position == 0) {
        reread.push_back(id);  // no longer queued: its change is read now rather than next round
        continue;
      }
      v1::Job moved = job;
      moved.set_queue_position(*position);
      pending_.push_back(moved);
      seen_[id] = Fingerprint(moved);
      queued_[id] = std::move(moved);
    }
  }
  for (const int64_t id : reread) {
    absl::StatusOr<std::optional<v1::Job>> job = reads->Get(id, viewer_);
    if (!job.ok()) return FinishLocked(ToClient(job.status()));
    if (!job->has_value()) return FinishLocked(JobNotFound(id));
    OfferLocked(**job);
  }
  if (pending_.empty() && done_ < ids_.size() && state_->events->shutting_down()) {
    return FinishLocked(grpc::Status(grpc::StatusCode::UNAVAILABLE, "the server is shutting down; watch again"));
  }
  SendNextLocked();
}

void JobStream::SendNextLocked() {
  // gRPC allows one write in flight per stream: a second StartWrite would overwrite current_
  // under the first and lose a message. OnWriteDone sends what queued meanwhile. (Open's first
  // refresh can run after a hub Wake already started a write: the CI run that lost one DONE of
  // 640 to this.)
  if (writing_) return;
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
  if (pending_.empty() && dirty_capacity_) {
    dirty_capacity_ = false;
    ReannotateLocked();
  }
  if (pending_.empty() && (!dirty_.empty() || dirty_positions_)) {
    const std::vector<int64_t> changed(dirty_.begin(), dirty_.end());
    const bool positions = dirty_positions_;
    dirty_.clear();
    dirty_positions_ = false;
    RoundReads reads(state_->jobs);  // this stream's own, on gRPC's thread: its cost, no one else's
    return RefreshLocked(&reads, changed, positions);
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
  hub_->Follow(this, id);  // before the first read, as JobStream::Open
  std::lock_guard lock(mutex_);
  id_ = id;
  RoundReads reads(state_->jobs);
  CheckLocked(&reads);
}

void EvaluateCall::Fail(const grpc::Status& status) {
  std::lock_guard lock(mutex_);
  FinishLocked(status);
}

void EvaluateCall::Wake(RoundReads* reads, const std::vector<int64_t>& changed, bool /*positions*/) {
  std::lock_guard lock(mutex_);
  // Woken with nothing changed only at shutdown; its job's position is not its answer.
  if (changed.empty() && !state_->events->shutting_down()) return;
  CheckLocked(reads);
}

void EvaluateCall::CheckLocked(RoundReads* reads) {
  if (finished_ || id_ == 0) return;
  absl::StatusOr<std::optional<v1::Job>> job = reads->Get(id_, viewer_);
  if (!job.ok()) return FinishLocked(ToClient(job.status()));
  if (!job->has_value()) return FinishLocked(JobNotFound(id_));
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
