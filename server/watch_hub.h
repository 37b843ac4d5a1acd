// WatchHub: serves every open job stream (WatchJob, WatchJobs, Evaluate) from one thread, so
// an open stream costs a small object, not a thread.
//
// Contract:
//  * Add admits a watcher only while its key has fewer than per_key and the server fewer than
//    total open streams; otherwise RESOURCE_EXHAUSTED with a message saying which cap. Key ""
//    (auth off: one local tenant) has only the total cap.
//  * After every JobEvents change (and every fallback interval) the hub's thread calls Poll()
//    on each registered watcher; Poll must not block (it reads the database and starts at most
//    one write). Poll may race with gRPC's reactions on the same watcher: watchers lock.
//    Rounds are paced (a pause as long as the round, up to kMaxPause) so that watchers take at
//    most about half of the database's time from Submit and the workers.
//  * Remove drops the hub's reference; the watcher lives on while a Poll in flight holds one.
//  * The destructor stops the thread; watchers must be removed (their calls finished) first:
//    JobEvents::Shutdown makes every watcher finish with UNAVAILABLE on its next Poll.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>

#include "absl/status/status.h"
#include "server/job_events.h"
#include "server/job_store.h"

namespace kjudge::server {

// The reads of one notifier round: many streams watching the same job (as the same viewer)
// cost one database read per round, not one each.
class RoundReads {
 public:
  explicit RoundReads(JobStore* jobs) : jobs_(jobs) {}
  absl::StatusOr<std::optional<v1::Job>> Get(int64_t id, const Viewer& viewer);

 private:
  JobStore* jobs_;
  std::map<std::tuple<int64_t, std::string, bool>, absl::StatusOr<std::optional<v1::Job>>> done_;
};

class Watcher {
 public:
  virtual ~Watcher() = default;
  // Re-reads the watched jobs (through `reads`) and sends what changed; finishes the call
  // when done.
  virtual void Poll(RoundReads* reads) = 0;
};

struct StreamCaps {
  int per_key = 256;
  int total = 8192;
};

class WatchHub {
 public:
  WatchHub(JobEvents* events, JobStore* jobs, StreamCaps caps);
  ~WatchHub();
  WatchHub(const WatchHub&) = delete;
  WatchHub& operator=(const WatchHub&) = delete;

  absl::Status Add(const std::string& key_id, std::shared_ptr<Watcher> watcher);
  void Remove(const Watcher* watcher);
  size_t size() const;

 private:
  void Run();

  struct Entry {
    std::string key_id;
    std::shared_ptr<Watcher> watcher;
  };
  JobEvents* events_;
  JobStore* jobs_;
  StreamCaps caps_;
  mutable std::mutex mutex_;
  std::map<const Watcher*, Entry> watchers_;
  std::map<std::string, int> per_key_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace kjudge::server
