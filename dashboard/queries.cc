#include "dashboard/queries.h"

#include <cmath>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "proto/proto_json.h"
#include "server/kernel_metrics.h"
#include "server/worker_capacity.h"
#include "common/status_macros.h"

namespace kjudge::dashboard {
namespace {

using server::Sql;
using server::Statement;

// The server's visibility rule (job_store.cc): ?1 = 1 for admins, else only jobs of key ?2.
constexpr char kVisible[] = "(?1 = 1 OR api_key_id = ?2)";
constexpr int64_t kMinuteMs = 60000;
constexpr int64_t kHourMs = 3600000;
// The runs index lists the tags of this many newest jobs (a scan of every job's tags would
// grow without bound); any tag can still be typed into the form.
constexpr int64_t kRunTagsWindow = 20000;

void BindViewer(Statement& stmt, const Viewer& viewer) {
  stmt.Bind(1, viewer.admin ? 1 : 0).Bind(2, viewer.key_id);
}

// Steps `stmt` to the end, calling `row` for each row.
template <typename RowFn>
absl::Status ForEachRow(Statement& stmt, RowFn row) {
  while (true) {
    absl::StatusOr<bool> more = stmt.Step();
    if (!more.ok()) return more.status();
    if (!*more) return absl::OkStatus();
    row(stmt);
  }
}

std::string VerdictName(int64_t verdict) {
  return v1::Verdict_IsValid(static_cast<int>(verdict)) ? v1::Verdict_Name(static_cast<v1::Verdict>(verdict))
                                                        : absl::StrCat("verdict ", verdict);
}

// A correct result's leaderboard figures: geomean of the shapes' medians, mean SOL%.
LeaderboardRow Score(const v1::JobResult& result) {
  LeaderboardRow row;
  double log_sum = 0, sol_sum = 0;
  int shapes = 0, sols = 0;
  for (const v1::ShapeTiming& t : result.timings()) {
    if (!(t.timing().median_us() > 0)) continue;
    log_sum += std::log(t.timing().median_us());
    ++shapes;
    if (t.timing().sol_percent() > 0) {
      sol_sum += t.timing().sol_percent();
      ++sols;
    }
  }
  row.time_us = shapes > 0 ? std::exp(log_sum / shapes) : 0;
  row.sol_percent = sols > 0 ? sol_sum / sols : 0;
  row.speedup = server::JobSpeedup(result, server::kReferenceBaseline);
  return row;
}

std::string TagValue(const std::string& tags_json, const std::string& key) {
  nlohmann::json tags = nlohmann::json::parse(tags_json, nullptr, /*allow_exceptions=*/false);
  if (!tags.is_object() || !tags.contains(key) || !tags[key].is_string()) return "";
  return tags[key].get<std::string>();
}

}  // namespace

Queries::Lane::Lane(std::unique_ptr<server::Database> db)
    : jobs(&shared, server::JobStoreOptions{}), keys(&shared), baselines(&shared) {
  shared.db = std::move(db);
  shared.now_ms = server::SystemNowMs;
}

Queries::Taken::Taken(Queries* owner, Lane* lane) : owner_(owner), lane_(lane) {
  limits_.emplace(*lane->shared.db, owner->read_budget_);
}

Queries::Taken::~Taken() {
  limits_.reset();
  {
    std::lock_guard lock(owner_->mutex_);
    owner_->free_.push_back(lane_);
  }
  owner_->lane_freed_.notify_one();
}

Queries::Taken Queries::Take() {
  std::unique_lock lock(mutex_);
  lane_freed_.wait(lock, [this] { return !free_.empty(); });
  Lane* lane = free_.back();
  free_.pop_back();
  return Taken(this, lane);
}

absl::StatusOr<std::unique_ptr<Queries>> Queries::Open(const std::string& db_path, int connections,
                                                       std::chrono::milliseconds read_budget) {
  std::unique_ptr<Queries> queries(new Queries());
  queries->read_budget_ = read_budget;
  for (int i = 0; i < std::max(1, connections); ++i) {
    absl::StatusOr<std::unique_ptr<server::Database>> db = server::Database::OpenReadOnly(db_path);
    if (!db.ok()) return db.status();
    // The schema must be the server's, as new as this dashboard's queries: a file the server
    // never migrated has no jobs table, one an older server migrated has no job_stats (0009).
    absl::StatusOr<Statement> probe = (*db)->Prepare(
        "SELECT public, baselines_only FROM jobs WHERE EXISTS (SELECT 1 FROM job_stats) LIMIT 1");
    if (!probe.ok()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "'", db_path, "' has no kjudge schema, or an older one (", probe.status().message(),
          "); point --db at the file kjudge-server uses, after a server of this version has started once"));
    }
    queries->lanes_.push_back(std::make_unique<Lane>(std::move(*db)));
    queries->free_.push_back(queries->lanes_.back().get());
  }
  return queries;
}

absl::StatusOr<std::optional<server::ApiKey>> Queries::LookupKey(const std::string& secret) {
  return Take()->keys.Lookup(secret);
}

absl::StatusOr<std::vector<WorkerRow>> Queries::Workers(Lane& lane) {
  std::lock_guard lock(lane.shared.mutex);
  // Per listed worker, counts over its range of jobs_by_worker (leased jobs only): a few seeks
  // and a count of the jobs it served, instead of grouping every leased job by worker first.
  absl::StatusOr<Statement> stmt = lane.shared.db->Prepare(
      "SELECT w.id, w.name, w.gpu_json, w.hardware_key, w.registered_unix_ms, w.last_seen_unix_ms, "
      "  COALESCE((SELECT MAX(id) FROM jobs WHERE worker_id = w.id AND state = 2), 0), "
      "  (SELECT COUNT(*) FROM jobs WHERE worker_id = w.id AND state = 3), "
      "  (SELECT COUNT(*) FROM jobs WHERE worker_id = w.id AND state = 3 AND verdict = ?1), "
      "  (SELECT COUNT(*) FROM workers e WHERE e.name = w.name AND e.registered_unix_ms < w.registered_unix_ms) "
      "FROM workers w ORDER BY w.last_seen_unix_ms DESC LIMIT 200");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, v1::INTERNAL_ERROR);
  std::vector<WorkerRow> rows;
  absl::Status status = ForEachRow(*stmt, [&](const Statement& s) {
    WorkerRow& row = rows.emplace_back();
    row.id = s.ColumnText(0);
    row.name = s.ColumnText(1);
    (void)FromJson(s.ColumnText(2), &row.gpu);
    row.hardware_key = s.ColumnText(3);
    row.registered_unix_ms = s.ColumnInt(4);
    row.last_seen_unix_ms = s.ColumnInt(5);
    row.job_in_hand = s.ColumnInt(6);
    row.jobs_served = s.ColumnInt(7);
    row.faults = s.ColumnInt(8);
    row.restarts = s.ColumnInt(9);
  });
  if (!status.ok()) return status;
  return rows;
}

absl::Status Queries::FillActivity(Lane& lane, const Viewer& viewer, int64_t now_ms, Overview* overview) {
  std::lock_guard lock(lane.shared.mutex);
  const int64_t hour_start = now_ms - kHourMs, day_start = now_ms - 24 * kHourMs;
  absl::StatusOr<Statement> minutes = lane.shared.db->Prepare(Sql::Join({
      "SELECT (finished_unix_ms - ?3) / ?4, COUNT(*) FROM jobs WHERE finished_unix_ms >= ?3 AND state = 3 AND ",
      kVisible, " GROUP BY 1"}));
  if (!minutes.ok()) return minutes.status();
  BindViewer(*minutes, viewer);
  minutes->Bind(3, hour_start).Bind(4, kMinuteMs);
  overview->per_minute.assign(60, 0);
  absl::Status status = ForEachRow(*minutes, [&](const Statement& s) {
    const int64_t bucket = s.ColumnInt(0);
    if (bucket >= 0 && bucket < 60) overview->per_minute[static_cast<size_t>(bucket)] = s.ColumnInt(1);
  });
  if (!status.ok()) return status;
  // The verdict mix: a COUNT per verdict and hour, each a range of jobs_done_by_verdict (schema
  // 0009), instead of grouping a day of jobs in a temporary b-tree. The verdicts are found by
  // skipping through the index (one seek each); a verdict gets a series when a visible job of
  // it finished in the window, as when the rows were grouped (a finish at or after now_ms has
  // no hour, but still makes its verdict's series).
  Sql hours_sql(
      "WITH RECURSIVE v(verdict) AS ("
      "  SELECT MIN(verdict) FROM jobs INDEXED BY jobs_done_by_verdict WHERE state = 3 UNION ALL "
      "  SELECT (SELECT MIN(verdict) FROM jobs INDEXED BY jobs_done_by_verdict WHERE state = 3 AND verdict > v.verdict) "
      "  FROM v WHERE v.verdict IS NOT NULL), "
      "h(i, lo) AS (SELECT 0, ?3 UNION ALL SELECT i + 1, lo + ?4 FROM h WHERE i < 23) "
      "SELECT v.verdict, h.i, (SELECT COUNT(*) FROM jobs INDEXED BY jobs_done_by_verdict WHERE state = 3 "
      "  AND verdict = v.verdict AND finished_unix_ms >= h.lo AND finished_unix_ms < h.lo + ?4 AND ");
  hours_sql.Append(kVisible).Append(
      ") FROM v, h WHERE v.verdict IS NOT NULL AND EXISTS (SELECT 1 FROM jobs INDEXED BY jobs_done_by_verdict "
      "  WHERE state = 3 AND verdict = v.verdict AND finished_unix_ms >= ?3 AND ");
  hours_sql.Append(kVisible).Append(")");
  absl::StatusOr<Statement> hours = lane.shared.db->Prepare(hours_sql);
  if (!hours.ok()) return hours.status();
  BindViewer(*hours, viewer);
  hours->Bind(3, day_start).Bind(4, kHourMs);
  return ForEachRow(*hours, [&](const Statement& s) {
    std::vector<int64_t>& series = overview->verdicts_per_hour[VerdictName(s.ColumnInt(0))];
    series.resize(24, 0);
    series[static_cast<size_t>(s.ColumnInt(1))] = s.ColumnInt(2);
  });
}

absl::StatusOr<Overview> Queries::GetOverview(const Viewer& viewer, int64_t now_ms, bool with_workers) {
  Overview overview;
  Taken lane = Take();
  if (viewer.admin) {
    absl::StatusOr<server::JobStore::Counts> counts = lane->jobs.CountByState();
    if (!counts.ok()) return counts.status();
    overview.queued = counts->queued;
    overview.running = counts->running;
    overview.done = counts->done;
  } else {
    // A tenant's cards count its own jobs only: three ranges of jobs_by_key (api_key_id, state).
    std::lock_guard lock(lane->shared.mutex);
    absl::StatusOr<Statement> counts = lane->shared.db->Prepare(
        "SELECT (SELECT COUNT(*) FROM jobs WHERE api_key_id = ?1 AND state = 1), "
        "(SELECT COUNT(*) FROM jobs WHERE api_key_id = ?1 AND state = 2), "
        "(SELECT COUNT(*) FROM jobs WHERE api_key_id = ?1 AND state = 3)");
    if (!counts.ok()) return counts.status();
    counts->Bind(1, viewer.key_id);
    absl::StatusOr<bool> row = counts->Step();
    if (!row.ok()) return row.status();
    if (*row) {
      overview.queued = counts->ColumnInt(0);
      overview.running = counts->ColumnInt(1);
      overview.done = counts->ColumnInt(2);
    }
  }
  {
    std::lock_guard lock(lane->shared.mutex);
    // Two statements, so each uses its index (jobs_by_state; jobs_queue_by_key for a tenant).
    absl::StatusOr<Statement> oldest =
        viewer.admin ? lane->shared.db->Prepare("SELECT MIN(created_unix_ms) FROM jobs WHERE state = 1")
                     : lane->shared.db->Prepare("SELECT MIN(created_unix_ms) FROM jobs WHERE state = 1 AND api_key_id = ?1");
    if (!oldest.ok()) return oldest.status();
    if (!viewer.admin) oldest->Bind(1, viewer.key_id);
    absl::StatusOr<bool> row = oldest->Step();
    if (!row.ok()) return row.status();
    overview.oldest_queued_unix_ms = *row && !oldest->ColumnIsNull(0) ? oldest->ColumnInt(0) : 0;
  }
  KJ_RETURN_IF_ERROR(FillActivity(*lane, viewer, now_ms, &overview));
  if (viewer.admin && with_workers) {
    absl::StatusOr<std::vector<WorkerRow>> workers = Workers(*lane);
    if (!workers.ok()) return workers.status();
    overview.workers = std::move(*workers);
  }
  return overview;
}

absl::StatusOr<std::vector<v1::Job>> Queries::ListJobs(const Viewer& viewer, const server::JobFilter& filter) {
  return Take()->jobs.List(viewer, filter);
}

absl::StatusOr<std::optional<JobDetail>> Queries::GetJob(int64_t id, const Viewer& viewer) {
  Taken lane = Take();
  absl::StatusOr<std::optional<v1::Job>> job = lane->jobs.GetFor(id, viewer);
  if (!job.ok()) return job.status();
  if (!job->has_value()) return std::optional<JobDetail>();
  JobDetail detail;
  detail.job = std::move(**job);
  absl::StatusOr<std::vector<server::JobEvent>> events = lane->jobs.Events(id, viewer);
  if (!events.ok()) return events.status();
  detail.events = std::move(*events);
  absl::StatusOr<std::vector<std::pair<std::string, std::vector<float>>>> samples = lane->jobs.Samples(id, viewer);
  if (!samples.ok()) return samples.status();
  detail.samples = std::move(*samples);
  // No silent waiting (issue 27 pt4): the connected workers, as the server counts them.
  std::optional<server::WorkerCapacity> capacity;
  if (detail.job.state() == v1::QUEUED) {
    server::WorkerCapacityCache workers(&lane->shared, std::chrono::milliseconds(0));
    absl::StatusOr<server::WorkerCapacity> read = workers.Get();
    if (!read.ok()) return read.status();
    capacity = *read;
  }
  std::lock_guard lock(lane->shared.mutex);
  absl::StatusOr<Statement> stmt = lane->shared.db->Prepare(
      "SELECT s.body, j.launch_plan, j.filename, j.seed, COALESCE(k.name, j.api_key_id), j.needs_torch FROM jobs j "
      "JOIN sources s ON s.sha256 = j.source_sha256 LEFT JOIN api_keys k ON k.id = j.api_key_id "
      "WHERE j.id = ?3 AND (?1 = 1 OR j.api_key_id = ?2)");
  if (!stmt.ok()) return stmt.status();
  BindViewer(*stmt, viewer);
  stmt->Bind(3, id);
  absl::StatusOr<bool> row = stmt->Step();
  if (!row.ok()) return row.status();
  if (*row) {
    detail.source = stmt->ColumnText(0);
    detail.launch_plan = stmt->ColumnText(1);
    detail.filename = stmt->ColumnText(2);
    detail.seed = stmt->ColumnInt(3);
    detail.owner = stmt->ColumnText(4);
    if (capacity) {
      detail.job.set_waiting_reason(server::WaitingReason(detail.job, stmt->ColumnInt(5) != 0, *capacity));
    }
  }
  return std::optional<JobDetail>(std::move(detail));
}

absl::StatusOr<std::vector<v1::BaselineTiming>> Queries::Baselines(const std::string& problem) {
  absl::StatusOr<std::vector<v1::BaselineTiming>> all = Take()->baselines.List(problem);
  if (!all.ok()) return all.status();
  std::vector<v1::BaselineTiming> exact;  // List matches a prefix; a problem page wants its own
  for (v1::BaselineTiming& b : *all) {
    if (b.problem() == problem) exact.push_back(std::move(b));
  }
  return exact;
}

absl::StatusOr<std::vector<LeaderboardRow>> Queries::Leaderboard(const std::string& problem, const std::string& by,
                                                                 const Viewer& viewer) {
  Taken lane = Take();
  std::lock_guard lock(lane->shared.mutex);
  // Leaderboards show what owners made public (GetStats public_only), plus the viewer's own.
  absl::StatusOr<Statement> stmt = lane->shared.db->Prepare(
      "SELECT j.id, j.api_key_id, k.name, j.tags_json, "
      "  '{\"timings\":' || json_extract(j.result_json, '$.timings') || ',\"speedups\":' || "
      "  json_extract(j.result_json, '$.speedups') || '}', j.public FROM jobs j "
      "LEFT JOIN api_keys k ON k.id = j.api_key_id WHERE j.problem = ?3 AND j.verdict = 1 AND j.state = 3 "
      "AND j.compile_only = 0 AND j.baselines_only = 0 AND (?1 = 1 OR j.public = 1 OR j.api_key_id = ?2)");
  if (!stmt.ok()) return stmt.status();
  BindViewer(*stmt, viewer);
  stmt->Bind(3, problem);  // verdict = 1 (CORRECT) is literal: it selects the partial index
  std::map<std::string, LeaderboardRow> best;
  absl::Status status = ForEachRow(*stmt, [&](const Statement& s) {
    v1::JobResult result;
    if (!FromJson(s.ColumnText(4), &result).ok()) return;
    LeaderboardRow row = Score(result);
    if (!(row.time_us > 0)) return;
    // Owners are keys (two keys may share a name): grouped by key id, shown as "name (id)".
    const std::string group = by == "model" ? TagValue(s.ColumnText(3), "model") : s.ColumnText(1);
    if (by == "model") {
      row.who = group.empty() ? "(no model tag)" : group;
    } else {
      row.who = group.empty() ? "(anonymous, auth off)" : absl::StrCat(s.ColumnText(2), " (", group, ")");
    }
    row.job_id = s.ColumnInt(0);
    row.is_public = s.ColumnInt(5) != 0;
    auto [it, inserted] = best.try_emplace(group, row);
    if (!inserted && row.time_us < it->second.time_us) it->second = row;
  });
  if (!status.ok()) return status;
  std::vector<LeaderboardRow> rows;
  rows.reserve(best.size());
  for (auto& [who, row] : best) rows.push_back(std::move(row));
  std::sort(rows.begin(), rows.end(), [](const LeaderboardRow& a, const LeaderboardRow& b) {
    return a.time_us != b.time_us ? a.time_us < b.time_us : a.job_id < b.job_id;
  });
  return rows;
}

absl::StatusOr<RunStats> Queries::Run(const std::map<std::string, std::string>& tags, const std::string& baseline,
                                      const server::LibraryNames& library, const Viewer& viewer,
                                      const std::vector<std::string>& problem_set) {
  absl::StatusOr<std::vector<server::JudgedResult>> results =
      Take()->jobs.FinishedResults(tags, "", server::StatsScope{viewer, /*public_only=*/false});
  if (!results.ok()) return results.status();
  RunStats run;
  run.tags = tags;
  std::vector<double> ps;
  for (int i = 0; i <= 40; ++i) ps.push_back(i * 0.05);
  run.stats = server::ComputeStats(*results, baseline, library, ps, &run.curve, problem_set);
  return run;
}

absl::StatusOr<std::vector<std::pair<std::string, int64_t>>> Queries::RunTags(const Viewer& viewer) {
  Taken lane = Take();
  std::lock_guard lock(lane->shared.mutex);
  // Admins: every job's tags, straight from the job_tags index. Tenants: their newest jobs'.
  absl::StatusOr<Statement> stmt = lane->shared.db->Prepare(viewer.admin ?
      Sql("SELECT key || '=' || value, COUNT(*) FROM job_tags WHERE key IN ('model', 'run') AND ?1 = 1 AND ?2 = ?2 "
      "AND ?3 = ?3 GROUP BY key, value ORDER BY 1 LIMIT 500") : Sql::Join({
      "SELECT t.key || '=' || t.value, COUNT(*) FROM (SELECT tags_json FROM jobs WHERE ", kVisible,
      " ORDER BY id DESC LIMIT ?3) j, json_each(j.tags_json) t WHERE t.key IN ('model', 'run') GROUP BY 1 ORDER BY 1 LIMIT 500"}));
  if (!stmt.ok()) return stmt.status();
  BindViewer(*stmt, viewer);
  stmt->Bind(3, kRunTagsWindow);
  std::vector<std::pair<std::string, int64_t>> out;
  absl::Status status =
      ForEachRow(*stmt, [&](const Statement& s) { out.emplace_back(s.ColumnText(0), s.ColumnInt(1)); });
  if (!status.ok()) return status;
  return out;
}

}  // namespace kjudge::dashboard
