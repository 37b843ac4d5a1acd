// WatchHub: serves every open job stream (WatchJob, WatchJobs, Evaluate) from one thread, so
// an open stream costs a small object, not a thread.
//
// Contract:
//  * Add admits a watcher only while its key has fewer than per_key and the server fewer than
//    total open streams; otherwise RESOURCE_EXHAUSTED with a message saying which cap. Key ""
//    (auth off: one local tenant) has only the total cap.
//  * A watch costs its own tenant, not others (issue 25). After a JobEvents change (and every
//    fallback interval) the hub's thread learns which jobs changed: the job_events rows since
//    its last round (JobStore::ChangesSince: every state change writes one in its own
//    transaction, whichever process made it) and the running jobs (progress within a stage).
//    It wakes only the watchers of those job ids, each with just its changed ids, and, when a
//    queue changed, the watchers that can see that queue (the owner's key; admins: any), whose
//    queued jobs' positions may have moved. Nothing is re-read for a watcher whose jobs did
//    not change, and queue positions come from one ranked read of a visible queue per round
//    (RoundReads::Position), never a COUNT per job. So one tenant watching thousands of
//    queued jobs adds nothing to another tenant's "job done" but a few map lookups.
//  * Wake must not block (it reads the database and starts at most one write). It may race
//    with gRPC's reactions on the same watcher: watchers lock. The cheapest wakeups go first
//    (a few changed ids before a thousand-job stream's re-ranking). Rounds are paced (a pause as long as the
//    round, up to kMaxPause) so that watchers take at most about half of the database's time
//    from Submit and the workers.
//  * Waiting reasons follow the workers (issue 27 point 4): with a WorkerCapacityCache, each
//    round (every JobEvents change, at least every 2 s) compares the connected workers' kinds
//    with the last round's; when they differ (a GPU worker registered, or the last one left the
//    connected window) every watcher's CapacityChanged runs once, after the round's wakeups, and
//    re-annotates its queued jobs from memory (no database read per job). A round without
//    watchers forgets the capacity, so the first round with watchers re-annotates them all.
//  * While JobEvents is shutting down every round wakes every watcher (with nothing changed):
//    each finishes with UNAVAILABLE unless its jobs are all done.
//  * Remove drops the hub's reference; the watcher lives on while a Wake in flight holds one.
//  * The destructor stops the thread; watchers must be removed (their calls finished) first.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "server/job_events.h"
#include "server/job_store.h"
#include "server/worker_capacity.h"

namespace kjudge::server {

// The reads of one notifier round (or of one stream catching up on its own): many streams
// watching the same job (as the same viewer) cost one database read, and each queue a viewer
// can see is ranked at most once.
class RoundReads {
 public:
  explicit RoundReads(JobStore* jobs) : jobs_(jobs) {}
  // The job as `viewer` may see it (GetFor's answer), queue_position from Position.
  absl::StatusOr<std::optional<v1::Job>> Get(int64_t id, const Viewer& viewer);
  // 1-based position of queued job `id` among the queued jobs `viewer` may see (a compile-only
  // job counts every job ahead of it, a GPU job the GPU jobs); 0 when it is not queued.
  absl::StatusOr<int64_t> Position(int64_t id, bool compile_only, const Viewer& viewer);

 private:
  struct Rank {
    int64_t all = 0;  // queued jobs up to this one
    int64_t gpu = 0;  // queued GPU (not compile-only) jobs up to this one
  };
  using Ranks = std::unordered_map<int64_t, Rank>;
  // The ranks of the queue `viewer` may see, read once (re-read once more when `id` is missing:
  // it may have been queued since).
  absl::StatusOr<const Ranks*> RanksFor(const Viewer& viewer, int64_t id);

  JobStore* jobs_;
  std::map<std::tuple<int64_t, std::string, bool>, absl::StatusOr<std::optional<v1::Job>>> done_;
  // By scope: (true, "") for admins, (false, key id) for a submitter's own queue.
  std::map<std::pair<bool, std::string>, std::pair<Ranks, bool /*re-read once*/>> ranks_;
};

class Watcher {
 public:
  virtual ~Watcher() = default;
  // `changed`: the ids it watches that changed (read them through `reads`); `positions`: the
  // queue it can see changed, so its queued jobs' positions may have moved. Sends what changed
  // for the viewer; finishes the call when done or when the server shuts down.
  virtual void Wake(RoundReads* reads, const std::vector<int64_t>& changed, bool positions) = 0;
  // The connected workers changed: the waiting_reason of its queued jobs may have (set or
  // cleared). Sends the jobs whose reason changed; must not block. Default: nothing to send.
  virtual void CapacityChanged() {}
};

struct StreamCaps {
  int per_key = 256;
  int total = 8192;
};

class WatchHub {
 public:
  // `capacity` (may be null: reasons are then never re-annotated) is read once per round.
  WatchHub(JobEvents* events, JobStore* jobs, StreamCaps caps, WorkerCapacityCache* capacity = nullptr);
  ~WatchHub();
  WatchHub(const WatchHub&) = delete;
  WatchHub& operator=(const WatchHub&) = delete;

  // Registers `watcher` of `ids` for `viewer` (key_id: whose caps it counts against).
  absl::Status Add(const std::string& key_id, const Viewer& viewer, std::shared_ptr<Watcher> watcher,
                   const std::vector<int64_t>& ids);
  // `watcher` (already added) watches `id` too: Evaluate's job exists only after Add.
  void Follow(const Watcher* watcher, int64_t id);
  void Remove(const Watcher* watcher);
  size_t size() const;

 private:
  struct Entry {
    std::string key_id;
    Viewer viewer;
    std::shared_ptr<Watcher> watcher;
    std::vector<int64_t> ids;
  };
  struct Wakeup {
    std::shared_ptr<Watcher> watcher;
    std::vector<int64_t> changed;
    bool positions = false;
    size_t cost = 0;  // about how many jobs the wakeup reads or re-ranks: cheapest go first
  };
  void Run();
  // One round: reads what changed since `*last_event` and wakes whom it concerns.
  void Round(int64_t* last_event);
  void FollowLocked(const Watcher* watcher, int64_t id);
  // Whether the connected workers differ from the last round's (true when there was none).
  bool CapacityMoved();
  // Runs CapacityChanged on every open watcher.
  void ReannotateAll();

  JobEvents* events_;
  JobStore* jobs_;
  StreamCaps caps_;
  WorkerCapacityCache* capacity_;
  std::optional<WorkerCapacity> last_capacity_;  // the hub thread's only
  mutable std::mutex mutex_;
  std::unordered_map<const Watcher*, Entry> watchers_;
  std::unordered_map<int64_t, std::unordered_set<const Watcher*>> by_job_;
  // Who sees a queue: submitters by key id, and the admins (every queue).
  std::unordered_map<std::string, std::unordered_set<const Watcher*>> by_viewer_key_;
  std::unordered_set<const Watcher*> admins_;
  std::map<std::string, int> per_key_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace kjudge::server
