// JobEvents: wakes up whoever waits for jobs to change (WatchJob streams, Evaluate calls,
// long-polling LeaseJob calls).
//
// Contract: every change to the job table is followed by Notify(). Waiters remember the
// version they last saw and WaitForChange returns once the version moves on, the deadline
// passes, or Shutdown() is called. Spurious wake-ups are allowed; callers re-read the DB.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace kjudge::server {

class JobEvents {
 public:
  uint64_t version() const {
    std::lock_guard lock(mutex_);
    return version_;
  }
  void Notify() {
    {
      std::lock_guard lock(mutex_);
      ++version_;
    }
    cv_.notify_all();
  }
  void Shutdown() {
    {
      std::lock_guard lock(mutex_);
      shutdown_ = true;
    }
    cv_.notify_all();
  }
  bool shutting_down() const {
    std::lock_guard lock(mutex_);
    return shutdown_;
  }
  // Returns the current version.
  uint64_t WaitForChange(uint64_t seen, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, timeout, [&] { return version_ != seen || shutdown_; });
    return version_;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  uint64_t version_ = 0;
  bool shutdown_ = false;
};

}  // namespace kjudge::server
