// JobStore: the durable job queue and the results.
//
// Contract:
//  * Enqueue returns only after the job is committed to disk: an acknowledged submission
//    survives kill -9 of the server and is run after restart.
//  * LeaseNext hands the oldest queued job this worker can run (compile-only workers get only
//    compile-only jobs) to exactly one worker, for lease_ms, and counts the attempt.
//  * A lease is kept alive by Renew or UpdateProgress; when it expires, ExpireLeases puts the
//    job back in the queue, or, after max_attempts, finishes it as INTERNAL_ERROR with the
//    reason. Jobs that were running when the server died are simply leases that expire.
//  * Complete is accepted only from the worker holding the lease, and only once: a late
//    report from a worker whose lease expired is refused, so no job gets two results.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kjudge/v1/kjudge.pb.h"
#include "server/shared_database.h"

namespace kjudge::server {

struct JobStoreOptions {
  int max_attempts = 3;
  int64_t lease_ms = 30000;
};

struct NewJob {
  std::string problem;
  std::string source;
  std::string filename;
  std::string launch_plan;
  int plan_first_line = 1;
  bool compile_only = false;
  std::map<std::string, std::string> tags;
  uint64_t seed = 0;
  std::string api_key_id;  // who submitted it ("" with auth off)
  // Set for requests judged at submission (REJECTED): stored as already done.
  std::optional<v1::JobResult> immediate_result;
};

struct LeasedJob {
  int64_t id = 0;
  int attempt = 0;
  int64_t created_unix_ms = 0;
  v1::RunSpec spec;  // job fields only; the caller adds the problem's spec and reference
};

class JobStore {
 public:
  JobStore(SharedDatabase* shared, JobStoreOptions options) : shared_(shared), options_(options) {}

  absl::StatusOr<int64_t> Enqueue(const NewJob& job);
  absl::StatusOr<std::optional<v1::Job>> Get(int64_t id);
  absl::StatusOr<std::optional<LeasedJob>> LeaseNext(const std::string& worker_id, bool can_run_gpu);
  absl::StatusOr<bool> Renew(int64_t id, const std::string& worker_id);
  absl::StatusOr<bool> UpdateProgress(int64_t id, const std::string& worker_id, v1::Stage stage,
                                      int done, int total);
  absl::StatusOr<bool> Complete(int64_t id, const std::string& worker_id, const v1::JobResult& result);
  // Returns how many expired leases were requeued or failed.
  absl::StatusOr<int> ExpireLeases();
  // The holder gives a job back: requeued at once, or INTERNAL_ERROR with `reason` once its
  // attempts are used up. false when the worker did not hold it.
  absl::StatusOr<bool> Release(int64_t id, const std::string& worker_id, const std::string& reason);

  // Results of finished, fully judged (not compile-only) jobs whose tags contain every entry of
  // `tags` and whose problem starts with `problem_prefix`, oldest first.
  absl::StatusOr<std::vector<v1::JobResult>> FinishedResults(const std::map<std::string, std::string>& tags,
                                                             const std::string& problem_prefix);

  // Queued + running jobs submitted with this key.
  absl::StatusOr<int64_t> CountActiveForKey(const std::string& api_key_id);

  struct Counts {
    int64_t queued = 0, running = 0, done = 0;
  };
  absl::StatusOr<Counts> CountByState();

  const JobStoreOptions& options() const { return options_; }

 private:
  absl::StatusOr<std::optional<v1::Job>> GetLocked(int64_t id);
  absl::Status FinishLocked(int64_t id, const v1::JobResult& result);
  // Requeues a running job, or fails it when no attempts are left.
  absl::Status RequeueOrFailLocked(int64_t id, int64_t attempts, int64_t max_attempts,
                                   const std::string& reason);

  SharedDatabase* shared_;
  JobStoreOptions options_;
};

}  // namespace kjudge::server
