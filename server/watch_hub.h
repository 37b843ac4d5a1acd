// WatchHub: serves every open job stream (WatchJob, WatchJobs, Evaluate) from one thread, so
// an open stream costs a small object, not a thread.
//
// Contract:
//  * Add admits a watcher only while its key has fewer than per_key and the server fewer than
//    total open streams; otherwise RESOURCE_EXHAUSTED with a message saying which cap.
//  * After every JobEvents change (and every fallback interval) the hub's thread calls Poll()
//    on each registered watcher; Poll must not block (it reads the database and starts at most
//    one write). Poll may race with gRPC's reactions on the same watcher: watchers lock.
//  * Remove drops the hub's reference; the watcher lives on while a Poll in flight holds one.
//  * The destructor stops the thread; watchers must be removed (their calls finished) first:
//    JobEvents::Shutdown makes every watcher finish with UNAVAILABLE on its next Poll.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "server/job_events.h"

namespace kjudge::server {

class Watcher {
 public:
  virtual ~Watcher() = default;
  // Re-reads the watched jobs and sends what changed; finishes the call when done.
  virtual void Poll() = 0;
};

struct StreamCaps {
  int per_key = 256;
  int total = 8192;
};

class WatchHub {
 public:
  WatchHub(JobEvents* events, StreamCaps caps);
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
  StreamCaps caps_;
  mutable std::mutex mutex_;
  std::map<const Watcher*, Entry> watchers_;
  std::map<std::string, int> per_key_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace kjudge::server
