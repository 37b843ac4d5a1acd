// JobStore: the durable job queue and the results.
//
// Contract:
//  * Enqueue returns only after the job is committed to disk: an acknowledged submission
//    survives kill -9 of the server and is run after restart.
//  * LeaseNext hands a queued job this worker can run (compile-only workers get only
//    compile-only jobs; jobs of problems that need PyTorch, NewJob.needs_torch, go only to
//    workers that can run them, can_run_torch) to exactly one worker, for lease_ms, counts the attempt, and gives the
//    lease a fresh token (128 bits from a CSPRNG). Fair across submitting keys: among the keys
//    with a job this worker can run, the key with the fewest running jobs goes first, ties to
//    the key leased least recently; then that key's oldest job. So a burst from one key holds
//    another key's job back by at most one job per worker.
//  * Renew, UpdateProgress, Complete and Release act only on the current lease (LeaseRef:
//    job, worker, token) and only while it has not expired at the moment of the call: no
//    grace, whether or not ExpireLeases has run yet. A refused call changes nothing.
//  * A lease is kept alive by Renew or UpdateProgress; when it expires, ExpireLeases puts the
//    job back in the queue, or, after max_attempts, finishes it as INTERNAL_ERROR with the
//    reason. Jobs that were running when the server died are simply leases that expire.
//  * Complete is accepted once, for the current lease only, so no job gets two results.
//  * Baselines a lease was asked to measure (RequestBaselines) live and die with the lease;
//    Complete hands back the ones asked of the completing lease.
//  * Tenancy: the client-side reads (GetFor, List, Cancel, FinishedResults) take a Viewer and
//    see only that key's jobs (admins: all); a job the viewer may not see reads exactly like a
//    job that does not exist, and only admins see worker ids; a submitter reads no worker id
//    or other key's id in any text either (tenant_text.h). queue_position counts only the
//    queued jobs the viewer may see.
//  * Every state change of a job (queued, leased, a new stage reported, requeued, finished) adds
//    one job_events row in the transaction of the change itself, so the timeline never
//    disagrees with the job row. Events reads them.
//  * Enqueue checks the idempotency key and the active-job cap in the same transaction as the
//    insert, so concurrent submits can neither exceed the cap nor duplicate a retried job.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "kjudge/v1/kjudge.pb.h"
#include "server/kernel_metrics.h"  // JudgedResult
#include "server/shared_database.h"

namespace kjudge::server {

struct JobStoreOptions {
  int max_attempts = 3;
  int64_t lease_ms = 30000;
};

// Milliseconds that never step: the wall time at the first call plus the steady clock's
// progress since. Close to wall time (lease expiries stored with it read as dates), but only
// within this process: a restarted server gives every running lease a fresh period
// (JobStore::RestartLeases).
int64_t MonotonicWallMs();

struct NewJob {
  std::string problem;
  std::string source;
  std::string filename;
  std::string launch_plan;
  int plan_first_line = 1;
  bool compile_only = false;
  // The problem has no CUDA reference (only reference.py): unless compile_only, only a worker
  // with PyTorch may lease it.
  bool needs_torch = false;
  // No candidate (source and plan empty): a GPU worker only measures the problem's missing
  // baselines (SubmitRequest.baselines_only). Leased like any GPU job; never in stats.
  bool baselines_only = false;
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
  v1::Verdict verdict = v1::VERDICT_UNSPECIFIED;  // finished with this verdict; unset: any
  int64_t created_after_ms = 0;   // submitted at or after (Unix ms); 0: no bound
  int64_t created_before_ms = 0;  // submitted before (Unix ms); 0: no bound
};

struct StatsScope {
  Viewer viewer;
  bool public_only = false;  // every tenant's public jobs instead of the viewer's own
};

struct LeasedJob {
  int64_t id = 0;
  int attempt = 0;
  int64_t created_unix_ms = 0;
  std::string lease_token;  // the worker sends it back with every call on this lease
  v1::RunSpec spec;  // job fields only; the caller adds the problem's spec and reference
};

// One lease, as a worker names it: the job, the worker holding it and the lease's token.
struct LeaseRef {
  int64_t job_id = 0;
  std::string worker_id;
  std::string token;
};

// One row of a job's timeline (job_events, schema/0006).
struct JobEvent {
  int64_t at_unix_ms = 0;
  std::string event;      // queued, leased, stage, requeued, finished
  int64_t attempt = -1;   // -1: not recorded (events backfilled from jobs stored before 0006)
  std::string worker_id;  // the holder at the event; cleared for non-admins
  v1::Stage stage = v1::STAGE_UNSPECIFIED;
  v1::Verdict verdict = v1::VERDICT_UNSPECIFIED;
  std::string detail;
};

// What Complete did: whether the result was taken, and the baselines the server had asked
// that lease to measure (problem, shape, name, hardware_key set; no timing).
struct Completion {
  bool accepted = false;
  std::vector<v1::BaselineTiming> requested_baselines;
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
  // nullopt when nothing is queued for this worker, or when the key that registered the
  // worker is revoked (checked in the same transaction, so a long poll that began before the
  // revocation leases nothing after it).
  // Sets needs_torch of every queued job from the catalog the server loaded: 1 exactly for the
  // not-compile-only jobs of `torch_only` problems (no CUDA reference). So a catalog changed
  // between runs (a problem gained or lost its reference.cu) routes its waiting jobs by what
  // the problem is now. Returns how many jobs changed.
  absl::StatusOr<int64_t> RouteQueuedJobs(const std::vector<std::string>& torch_only);
  // can_run_gpu: the worker times jobs (not compile-only); can_run_torch: it also has the
  // PyTorch oracle (GpuInfo.torch_version), so it may take needs_torch jobs.
  absl::StatusOr<std::optional<LeasedJob>> LeaseNext(const std::string& worker_id, bool can_run_gpu,
                                                     bool can_run_torch = false);
  // Moves the lease's expiry to now + lease_ms; false (nothing changed) unless it is current.
  absl::StatusOr<bool> Renew(const LeaseRef& lease);
  absl::StatusOr<bool> UpdateProgress(const LeaseRef& lease, v1::Stage stage, int done, int total);
  // Stores the result of the current lease and ends it; accepted = false otherwise. Timing
  // samples (samples_us) go to job_samples, not into the stored result.
  absl::StatusOr<Completion> Complete(const LeaseRef& lease, const v1::JobResult& result);
  // The baselines RequestBaselines recorded for this lease (problem, shape, name, hardware_key;
  // no timing), as Complete would hand them back; empty when none or the lease is not current.
  absl::StatusOr<std::vector<v1::BaselineTiming>> RequestedBaselines(const LeaseRef& lease);
  // Records which baselines (problem, shape, name, hardware_key of each entry) the server asks
  // this lease to measure; replaces any earlier request for the job. false (nothing recorded)
  // unless the lease is current.
  absl::StatusOr<bool> RequestBaselines(const LeaseRef& lease, const std::vector<v1::BaselineTiming>& wanted);
  // Replaces the clock leases are judged by (lease_expires_unix_ms is in it), in ms. The
  // default, MonotonicWallMs, never steps: a step of the wall clock (shared->now_ms) neither
  // kills a live lease nor keeps a dead one. For tests that move time by hand.
  void SetLeaseClock(std::function<int64_t()> clock) { lease_clock_ms_ = std::move(clock); }
  // Returns how many expired leases were requeued or failed. Judged on the lease clock, never
  // on shared->now_ms.
  absl::StatusOr<int> ExpireLeases();
  // The holder gives a job back: requeued at once, or INTERNAL_ERROR with `reason` once its
  // attempts are used up. false when the lease was not current.
  absl::StatusOr<bool> Release(const LeaseRef& lease, const std::string& reason);
  // At server start: every running job's lease gets a full lease period from now on the lease
  // clock (the stored expiries are from the previous process's clock). Returns how many.
  absl::StatusOr<int64_t> RestartLeases();

  // Results of finished (not baselines-only, not cancelled) jobs whose tags contain every entry of
  // `tags` and whose problem starts with `problem_prefix`, oldest first, with each job's problem
  // and whether it was compile-only (ComputeStats counts those in compile_rate only).
  // Each result holds only what ComputeStats reads: verdict, gpu, speedups, and its
  // timings' shapes and median_us (no other Timing field), read from job_stats (schema 0009),
  // bit for bit job_metrics' values but for the sign of a zero.
  // `scope` limits them to the viewer's jobs (admin: all) or to public jobs.
  absl::StatusOr<std::vector<JudgedResult>> FinishedResults(const std::map<std::string, std::string>& tags,
                                                            const std::string& problem_prefix,
                                                            const StatsScope& scope);

  // The raw timing samples of each timed shape of the job's result (Timing.samples_us, which
  // Complete stores in job_samples instead of the result), in JobResult.timings order; empty
  // when `viewer` may not see the job (as GetFor) or none were sent.
  absl::StatusOr<std::vector<std::pair<std::string, std::vector<float>>>> Samples(int64_t id, const Viewer& viewer);
  // The job's timeline, oldest first; empty when `viewer` may not see the job (as GetFor).
  absl::StatusOr<std::vector<JobEvent>> Events(int64_t id, const Viewer& viewer);
  // The job's submission as stored (a REJECTED job's: the heads Enqueue kept; a baselines-only
  // job's: empty), uncapped; nullopt when `viewer` may not see the job (as GetFor).
  struct StoredSubmission {
    std::string filename, source, launch_plan;
  };
  absl::StatusOr<std::optional<StoredSubmission>> SubmissionFor(int64_t id, const Viewer& viewer);

  // For WatchHub, which re-reads only the jobs that changed. One job_events row is written in
  // the transaction of every state change (see the contract above), so its rows after
  // `after_event` are every change since, but progress within a stage (running jobs only:
  // RunningIds). Oldest first, at most `limit`.
  struct Change {
    int64_t event_id = 0;
    int64_t job_id = 0;
    std::string owner;           // the job's api_key_id ("" with auth off)
    bool queue_changed = false;  // the job may have entered or left the queue: positions move
  };
  absl::StatusOr<std::vector<Change>> ChangesSince(int64_t after_event, int limit);
  // The newest job_events row's id; 0 when there is none.
  absl::StatusOr<int64_t> LastEventId();
  // The ids of the running jobs (at most one per worker lease).
  absl::StatusOr<std::vector<int64_t>> RunningIds();
  // As GetFor, but queue_position is left 0: for callers that rank many jobs at once from
  // QueuedFor instead of counting the queue per job.
  absl::StatusOr<std::optional<v1::Job>> GetForUnranked(int64_t id, const Viewer& viewer);
  // The queued jobs `viewer` may see (a submitter its own, an admin all) as (id,
  // compile_only), oldest first: what queue_position counts.
  absl::StatusOr<std::vector<std::pair<int64_t, bool>>> QueuedFor(const Viewer& viewer);

  // Queued + running jobs submitted with this key.
  absl::StatusOr<int64_t> CountActiveForKey(const std::string& api_key_id);

  struct Counts {
    int64_t queued = 0, running = 0, done = 0;
  };
  absl::StatusOr<Counts> CountByState();

  const JobStoreOptions& options() const { return options_; }

 private:
  int64_t LeaseNowMs() const;
  absl::StatusOr<std::optional<v1::Job>> GetLocked(int64_t id);
  // queue_position among the queued jobs `viewer` may see (its own; admins: all), so a
  // position tells a tenant nothing about other tenants' load.
  absl::Status AddQueuePositionLocked(v1::Job* job, const Viewer& viewer);
  // For Enqueue: the job already stored under job.idempotency_key (0: none), or ALREADY_EXISTS.
  absl::StatusOr<int64_t> FindRetryLocked(const NewJob& job);
  absl::Status CheckCapLocked(const NewJob& job);
  absl::Status FinishLocked(int64_t id, const v1::JobResult& result);
  // UpdateProgress's transaction: the stage event (when the stage changes) and the update.
  absl::StatusOr<bool> UpdateProgressLocked(const LeaseRef& lease, v1::Stage stage, int done, int total, int64_t now);
  // Whether `lease` is the job's current, unexpired lease (inside the caller's lock).
  absl::StatusOr<bool> IsCurrentLocked(const LeaseRef& lease);
  // Moves this key's turn to the back of the fair-scheduling order.
  absl::Status TakeTurnLocked(const std::string& api_key_id);
  // Requeues a running job, or fails it when no attempts are left.
  absl::Status RequeueOrFailLocked(int64_t id, int64_t attempts, int64_t max_attempts,
                                   const std::string& reason);

  SharedDatabase* shared_;
  JobStoreOptions options_;
  std::function<int64_t()> lease_clock_ms_;  // empty: MonotonicWallMs
};

// Inside the caller's transaction on `db`: hands every job leased by a worker registered with
// `api_key_id` back to the queue as if it had never been leased (the attempt is not counted),
// and returns how many. ApiKeys::Revoke calls it in the revocation's own transaction, so a
// revoked worker key holds no lease from the moment the revocation commits.
// Each requeued job gets a 'requeued' event at now_ms.
absl::StatusOr<int> RequeueLeasesOfKey(Database& db, const std::string& api_key_id, int64_t now_ms);

}  // namespace kjudge::server
