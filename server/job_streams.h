// Job streams on gRPC's callback API: the reactors behind WatchJob, WatchJobs and Evaluate.
// An open stream is one of these objects registered in a WatchHub; no thread waits for it.
//
// Contract:
//  * JobStream sends each watched job once at the start and again whenever what a watcher sees
//    of it (state, stage, progress, queue position, attempts) changes, one write at a time, and
//    finishes OK once all are DONE; NOT_FOUND for a job the viewer may not see; UNAVAILABLE
//    when the server shuts down; CANCELLED when the client goes away. It re-reads only the
//    jobs the hub says changed; when only queue positions moved it re-ranks the queued jobs it
//    last sent from the round's ranks (no database read per job). Changes that arrive while a
//    write is in flight are gathered and read once the writes queued before them are out.
//    When the connected workers change (WatchHub), its queued jobs are sent again if their
//    waiting_reason changed (set, cleared or reworded), without a database read per job.
//  * EvaluateCall finishes with the job once it is DONE; its id was already sent to the client
//    as initial metadata by the caller, so a deadline never hides it.
//  * Both keep themselves alive (self_) until gRPC calls OnDone, then leave the hub.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "kjudge/v1/kjudge.grpc.pb.h"
#include "server/server_state.h"
#include "server/watch_hub.h"

namespace kjudge::server {

class JobStream final : public grpc::ServerWriteReactor<v1::Job>, public Watcher {
 public:
  // A stream that fails at once with `status` (bad request, auth, caps).
  static grpc::ServerWriteReactor<v1::Job>* Refuse(const grpc::Status& status);
  // Registers a stream of `ids` for `caller` in `hub` and sends the first states; refused
  // with RESOURCE_EXHAUSTED when the hub's caps are reached.
  static grpc::ServerWriteReactor<v1::Job>* Open(ServerState* state, WatchHub* hub, const std::string& key_id,
                                                 const Viewer& viewer, std::vector<int64_t> ids);

  JobStream(ServerState* state, WatchHub* hub, Viewer viewer, std::vector<int64_t> ids)
      : state_(state), hub_(hub), viewer_(std::move(viewer)), ids_(std::move(ids)) {}

  void Wake(RoundReads* reads, const std::vector<int64_t>& changed, bool positions) override;
  // Re-annotates the queued jobs as last sent (waiting_reason) and sends those that changed.
  void CapacityChanged() override;
  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  // Reads `changed`, re-ranks the queued jobs when `positions`, queues what differs from what
  // was sent, and starts the next write.
  void RefreshLocked(RoundReads* reads, const std::vector<int64_t>& changed, bool positions);
  // Queues `job` unless the watcher has already seen it like this.
  void OfferLocked(v1::Job job);
  // Queues each queued job whose waiting_reason differs now from what was sent.
  void ReannotateLocked();
  void SendNextLocked();
  void FinishLocked(const grpc::Status& status);

  ServerState* state_ = nullptr;
  WatchHub* hub_ = nullptr;
  Viewer viewer_;
  std::vector<int64_t> ids_;
  // Recursive: should gRPC ever run a reaction inline inside StartWrite/Finish, it re-enters.
  std::recursive_mutex mutex_;
  std::map<int64_t, std::string> seen_;  // fingerprint last sent, per job
  std::map<int64_t, v1::Job> queued_;    // the queued jobs as last sent: re-ranked in place
  size_t done_ = 0;
  std::deque<v1::Job> pending_;
  v1::Job current_;  // the write in flight
  bool writing_ = false;
  std::set<int64_t> dirty_;       // changed while writing: read once the writes are out
  bool dirty_positions_ = false;  // likewise, queue positions
  bool dirty_capacity_ = false;   // likewise, the connected workers (waiting reasons)
  bool cancelled_ = false;
  bool finished_ = false;
  std::shared_ptr<JobStream> self_;
};

class EvaluateCall final : public grpc::ServerUnaryReactor, public Watcher {
 public:
  EvaluateCall(ServerState* state, WatchHub* hub, Viewer viewer, v1::Job* response)
      : state_(state), hub_(hub), viewer_(std::move(viewer)), response_(response) {}
  // Created with self_ set; the caller registers it, submits, then calls Track.
  static std::shared_ptr<EvaluateCall> Create(ServerState* state, WatchHub* hub, Viewer viewer, v1::Job* response);

  // From now on the call follows job `id` (the hub wakes it when the job changes).
  void Track(int64_t id);
  void Fail(const grpc::Status& status);

  void Wake(RoundReads* reads, const std::vector<int64_t>& changed, bool positions) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  void FinishLocked(const grpc::Status& status);
  // Reads the job (through `reads`) and finishes when it is done or the server shuts down.
  void CheckLocked(RoundReads* reads);

  ServerState* state_ = nullptr;
  WatchHub* hub_ = nullptr;
  Viewer viewer_;
  v1::Job* response_ = nullptr;
  std::recursive_mutex mutex_;
  int64_t id_ = 0;  // 0 until the job is stored
  bool finished_ = false;
  std::shared_ptr<EvaluateCall> self_;
};

}  // namespace kjudge::server
