// WorkerLoop: the life of one kjudge-worker: register the runner's GPU with the server, then
// lease, judge and report jobs until told to stop.
//
// Contract:
//  * The server may be down or restart at any time: every call is retried with backoff, and a
//    finished result is kept and re-sent until the server takes it (or says the lease is gone).
//  * A result the server refuses as such (RESOURCE_EXHAUSTED: over its message limit;
//    INVALID_ARGUMENT) is never re-sent unchanged: the compile log is always capped at 64 KiB,
//    then every text is capped and mismatch lists dropped, then an INTERNAL_ERROR saying so is
//    posted instead; past that the result is given up (the lease expires). No retry loop.
//  * A worker unknown to the server (its database was replaced) registers again.
//  * With a compile-ahead runner, the next job is leased (only if one is waiting: no long poll)
//    and compiled while the judge runs the current one (JobPrefetcher), so a worker holds at
//    most two leases: the job being judged and the one after it.
//  * The first stop request drains: the job in hand is finished, no new job is leased, and a
//    job leased ahead is handed back at once. The second hands the job in hand back too and
//    returns at once.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>

#include "kjudge/v1/kjudge.grpc.pb.h"
#include "worker/job_prefetcher.h"
#include "worker/runner_supervisor.h"

namespace kjudge::worker {

struct WorkerOptions {
  std::string server = "127.0.0.1:50051";
  std::string name;
  std::string api_key;  // a key with role worker, when the server requires auth
  std::string tls_ca;   // PEM: connect with TLS
  int lease_wait_ms = 5000;
  int max_jobs = 0;  // 0: no limit (tests use a limit)
};

class WorkerLoop {
 public:
  // compile_ahead: a started compile-only runner for JobPrefetcher, or nullptr (no prefetch).
  // Neither supervisor is owned.
  WorkerLoop(WorkerOptions options, RunnerSupervisor* supervisor, RunnerSupervisor* compile_ahead = nullptr);
  // stop_requests: incremented by the signal thread.
  int Run(const std::atomic<int>& stop_requests);

 private:
  bool Register(const std::atomic<int>& stop_requests);
  // true if a job was served. prefetch_next: lease and compile the next job while this one runs.
  bool ServeOne(const std::atomic<int>& stop_requests, bool prefetch_next);
  // One LeaseJob call; the job with its lease keeper started, or nullopt (no job, or an error:
  // a worker the server no longer knows registers again when may_register).
  std::optional<LeasedJob> LeaseOne(int wait_ms, const std::atomic<int>& stop_requests, bool may_register);
  // Gives a job never started back to the queue.
  void HandBack(const LeasedJob& job, const std::string& reason, const std::atomic<int>& stop_requests);
  void Prepare(grpc::ClientContext* context, std::chrono::milliseconds timeout) const;
  void Report(const std::string& job_id, const std::string& lease_token, const v1::RunnerProgress& progress);
  void Complete(const std::string& job_id, const std::string& lease_token, const RunOutcome& outcome,
                const std::atomic<int>& stop_requests);

  WorkerOptions options_;
  RunnerSupervisor* supervisor_;
  std::unique_ptr<v1::WorkerService::Stub> stub_;
  std::string worker_id_;
  int lease_seconds_ = 30;
  std::unique_ptr<JobPrefetcher> prefetcher_;  // null without a compile-ahead runner
};

}  // namespace kjudge::worker
