// Queries: everything the dashboard reads, over one read-only SQLite connection.
//
// Contract: every read goes through a connection opened with Database::OpenReadOnly (the
// dashboard can never write or hold the write lock, so it never blocks the server), and every
// read that returns jobs applies the server's tenancy rule: JobStore's own reads (GetFor, List,
// FinishedResults) where they fit, and the same rule ("admin, or api_key_id = the viewer's")
// in the few queries of its own (source, leaderboard: public jobs plus the viewer's own).
// Speedups, fast_p and geomeans come from server/kernel_metrics, the one place they are
// computed. Thread-safe: the connection is serialised by SharedDatabase's mutex.
//
// Bounded: every call runs under a deadline (`read_budget`, 2 s unless told) and a row cap
// per statement (server::QueryLimits), so no request can run long, hang a page or pin the
// server's WAL; a call that runs out answers DEADLINE_EXCEEDED ("the query took longer than
// 2 s; narrow the filter") or RESOURCE_EXHAUSTED, never SQL text.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kjudge/v1/kjudge.pb.h"
#include "server/api_keys.h"
#include "server/baseline_store.h"
#include "server/job_store.h"

namespace kjudge::dashboard {

using server::Viewer;

struct WorkerRow {
  std::string id;
  std::string name;
  v1::GpuInfo gpu;
  std::string hardware_key;
  int64_t registered_unix_ms = 0;
  int64_t last_seen_unix_ms = 0;
  int64_t job_in_hand = 0;  // 0: idle
  int64_t jobs_served = 0;  // finished jobs it judged
  int64_t faults = 0;       // of those, INTERNAL_ERROR (the judge, not the kernel, failed)
  int64_t restarts = 0;     // earlier registrations under the same name (a restart registers anew)
};

struct Overview {
  // The viewer's own jobs (an admin's: everyone's), by state.
  int64_t queued = 0, running = 0, done = 0;
  int64_t oldest_queued_unix_ms = 0;  // of the viewer's queued jobs; 0: none queued
  // Finished jobs visible to the viewer per minute over the last hour, oldest first.
  std::vector<int64_t> per_minute;
  // Visible finished jobs per hour over the last 24 hours, by verdict name, oldest hour first.
  std::map<std::string, std::vector<int64_t>> verdicts_per_hour;
  std::vector<WorkerRow> workers;  // admins only (submitters never see worker ids)
};

struct JobDetail {
  v1::Job job;
  std::string source;
  std::string launch_plan;
  std::string filename;
  int64_t seed = 0;
  std::string owner;  // the submitting key's name ("" with auth off)
  std::vector<server::JobEvent> events;  // the whole timeline (job_events), oldest first
  // Raw timing samples per bench shape (job_samples), in JobResult.timings order.
  std::vector<std::pair<std::string, std::vector<float>>> samples;
};

struct LeaderboardRow {
  std::string who;  // owner key name, or the model tag
  int64_t job_id = 0;
  double time_us = 0;     // geometric mean of the bench shapes' medians
  double speedup = 0;     // JobSpeedup against "reference" (0: none)
  double sol_percent = 0; // mean over shapes that have one (0: unknown)
  bool is_public = false;
};

struct RunStats {
  std::map<std::string, std::string> tags;
  v1::Stats stats;
  std::vector<v1::FastP> curve;  // p from 0 to 2 in steps of 0.05
};

class Queries {
 public:
  // `connections` read-only connections: that many pages can read at once (and a run
  // comparison reads its two runs in parallel).
  static constexpr std::chrono::milliseconds kDefaultReadBudget{2000};
  static absl::StatusOr<std::unique_ptr<Queries>> Open(const std::string& db_path, int connections = 4,
                                                       std::chrono::milliseconds read_budget = kDefaultReadBudget);

  // The key behind `secret` (nullopt: unknown or revoked), verified as the server does.
  absl::StatusOr<std::optional<server::ApiKey>> LookupKey(const std::string& secret);
  // Workers are read only for admins, and only when `with_workers` (the polled numbers skip them).
  absl::StatusOr<Overview> GetOverview(const Viewer& viewer, int64_t now_ms, bool with_workers = true);
  absl::StatusOr<std::vector<v1::Job>> ListJobs(const Viewer& viewer, const server::JobFilter& filter);
  absl::StatusOr<std::optional<JobDetail>> GetJob(int64_t id, const Viewer& viewer);
  absl::StatusOr<std::vector<v1::BaselineTiming>> Baselines(const std::string& problem);
  // Best CORRECT job per owner (by = "owner") or per model tag (by = "model"), fastest first;
  // non-admins see public jobs and their own.
  absl::StatusOr<std::vector<LeaderboardRow>> Leaderboard(const std::string& problem, const std::string& by,
                                                           const Viewer& viewer);
  // Stats of the viewer's finished jobs carrying every tag (admins: everyone's), as GetStats
  // computes them: baseline "" is each problem's default denominator, chosen among `library`.
  // `problem_set`: the run's problems for the per-problem metrics (kernel_metrics.h: one with no
  // judged job is a failure); empty: the problems with a judged job.
  absl::StatusOr<RunStats> Run(const std::map<std::string, std::string>& tags, const std::string& baseline,
                               const server::LibraryNames& library, const Viewer& viewer,
                               const std::vector<std::string>& problem_set = {});
  // Values of the `model` and `run` tags on the viewer's 20,000 newest jobs, with job counts.
  absl::StatusOr<std::vector<std::pair<std::string, int64_t>>> RunTags(const Viewer& viewer);

 private:
  // One read-only connection and the server's stores over it.
  struct Lane {
    explicit Lane(std::unique_ptr<server::Database> db);
    server::SharedDatabase shared;
    server::JobStore jobs;
    server::ApiKeys keys;
    server::BaselineStore baselines;
  };
  // A lane taken from the pool for one call, under the call's deadline; given back on
  // destruction.
  class Taken {
   public:
    Taken(Queries* owner, Lane* lane);
    ~Taken();
    Taken(const Taken&) = delete;
    Taken& operator=(const Taken&) = delete;
    Lane* operator->() const { return lane_; }
    Lane& operator*() const { return *lane_; }

   private:
    Queries* owner_;
    Lane* lane_;
    // Ended before the lane goes back to the pool (the next taker installs its own).
    std::optional<server::QueryLimits> limits_;
  };

  Queries() = default;
  Taken Take();
  static absl::StatusOr<std::vector<WorkerRow>> Workers(Lane& lane);
  static absl::Status FillActivity(Lane& lane, const Viewer& viewer, int64_t now_ms, Overview* overview);

  std::chrono::milliseconds read_budget_ = kDefaultReadBudget;
  std::vector<std::unique_ptr<Lane>> lanes_;
  std::mutex mutex_;
  std::condition_variable lane_freed_;
  std::vector<Lane*> free_;
};

}  // namespace kjudge::dashboard
