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
//  * Tenancy: the client-side reads (GetFor, List, Cancel, FinishedResults) take a Viewer and
//    see only that key's jobs (admins: all); a job the viewer may not see reads exactly like a
//    job that does not exist, and only admins see worker ids.
//  * Enqueue checks the idempotency key and the active-job cap in the same transaction as the
//    insert, so concurrent submits can neither exceed the cap nor duplicate a retried job.
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
  // Set for requests judged at submission (REJECTED): stored as already done, without its
  // source or plan (a rejected submission leaves only a small record).
  std::optional<v1::JobResult> immediate_result;
  bool is_public = false;
  std::string idempotency_key;  // "" = none
  std::string request_sha256;   // of the whole request: tells a retry from a reused key
  int64_t active_cap = 0;       // refuse when api_key_id has this many queued + running; 0: no cap
};

// Who reads jobs: a submitter sees its own, an admin (and everyone with auth off) all.
struct Viewer {
  std::string key_id;
  bool admin = false;
};

struct JobFilter {
  std::map<std::string, std::string> tags;  // keys are already validated (tag charset)
  v1::JobState state = v1::JOB_STATE_UNSPECIFIED;
  std::string problem;
  int64_t before_id = 0;  // paging: only jobs with id < before_id; 0: from the newest
  int limit = 50;
};

struct StatsScope {
  Viewer viewer;
  bool public_only = false;  // every tenant's public jobs instead of the viewer's own
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

  // The new job's id; with an idempotency key already used by this api key for the same
  // request, the first job's id (ALREADY_EXISTS for a different request). RESOURCE_EXHAUSTED
  // when active_cap is reached; nothing is stored then.
  absl::StatusOr<int64_t> Enqueue(const NewJob& job);
  // Any job, for the server's own use (workers, logs): no tenancy check.
  absl::StatusOr<std::optional<v1::Job>> Get(int64_t id);
  // The job as `viewer` may see it: nullopt when it does not exist or belongs to another
  // tenant; worker id cleared unless admin.
  absl::StatusOr<std::optional<v1::Job>> GetFor(int64_t id, const Viewer& viewer);
  // Jobs visible to `viewer` matching `filter`, newest first; at most filter.limit.
  absl::StatusOr<std::vector<v1::Job>> List(const Viewer& viewer, const JobFilter& filter);
  // Ends a queued or running job as CANCELLED (a running job's worker then loses its lease).
  // NOT_FOUND as GetFor; FAILED_PRECONDITION when it is already done.
  absl::StatusOr<v1::Job> Cancel(int64_t id, const Viewer& viewer);
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

  // Results of finished, fully judged (not compile-only, not cancelled) jobs whose tags contain every entry of
  // `tags` and whose problem starts with `problem_prefix`, oldest first.
  // `scope` limits them to the viewer's jobs (admin: all) or to public jobs.
  absl::StatusOr<std::vector<v1::JobResult>> FinishedResults(const std::map<std::string, std::string>& tags,
                                                             const std::string& problem_prefix,
                                                             const StatsScope& scope);

  // Queued + running jobs submitted with this key.
  absl::StatusOr<int64_t> CountActiveForKey(const std::string& api_key_id);

  struct Counts {
    int64_t queued = 0, running = 0, done = 0;
  };
  absl::StatusOr<Counts> CountByState();

  const JobStoreOptions& options() const { return options_; }

 private:
  absl::StatusOr<std::optional<v1::Job>> GetLocked(int64_t id);
  absl::Status AddQueuePositionLocked(v1::Job* job);
  // For Enqueue: the job already stored under job.idempotency_key (0: none), or ALREADY_EXISTS.
  absl::StatusOr<int64_t> FindRetryLocked(const NewJob& job);
  absl::Status CheckCapLocked(const NewJob& job);
  absl::Status FinishLocked(int64_t id, const v1::JobResult& result);
  // Requeues a running job, or fails it when no attempts are left.
  absl::Status RequeueOrFailLocked(int64_t id, int64_t attempts, int64_t max_attempts,
                                   const std::string& reason);

  SharedDatabase* shared_;
  JobStoreOptions options_;
};

}  // namespace kjudge::server
