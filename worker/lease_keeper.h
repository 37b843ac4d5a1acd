// LeaseKeeper: renews a job's lease in the background while the runner works on it.
//
// Contract: from construction until destruction it calls RenewLease every `period`, with the
// lease's token. If the server answers that the lease is no longer this worker's (or refuses
// this worker or its key: PERMISSION_DENIED, UNAUTHENTICATED after a revocation), `lost()`
// becomes true and stays true; the caller stops the job. Unreachable-server errors are
// tolerated (the server may be restarting).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "kjudge/v1/kjudge.grpc.pb.h"

namespace kjudge::worker {

class LeaseKeeper {
 public:
  LeaseKeeper(v1::WorkerService::Stub* stub, std::string api_key, std::string worker_id, std::string job_id,
              std::string lease_token, std::chrono::milliseconds period);
  ~LeaseKeeper();
  LeaseKeeper(const LeaseKeeper&) = delete;
  LeaseKeeper& operator=(const LeaseKeeper&) = delete;

  const std::atomic<bool>& lost() const { return lost_; }

 private:
  void Loop();

  v1::WorkerService::Stub* stub_;
  std::string api_key_;
  std::string worker_id_;
  std::string job_id_;
  std::string lease_token_;
  std::chrono::milliseconds period_;
  std::atomic<bool> lost_{false};
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace kjudge::worker
