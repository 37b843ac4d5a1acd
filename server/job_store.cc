#include "server/job_store.h"

#include <openssl/rand.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <chrono>
#include <cstring>
#include <limits>
#include <string_view>
#include <tuple>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "proto/proto_json.h"
#include "proto/request_checks.h"
#include "proto/result_caps.h"
#include "common/sha256.h"
#include "server/tenant_text.h"
#include "common/status_macros.h"
#include "server/job_outcome.h"

namespace kjudge::server {
namespace {

// Most tags one filter may name (the request limit): each is one clause of the statement.
constexpr size_t kMaxFilterTags = SubmitLimits{}.max_tags;

constexpr char kJobColumns[] =
    "id, problem, state, stage, progress_done, progress_total, attempts, compile_only, "
    "tags_json, worker_id, result_json, created_unix_ms, finished_unix_ms, started_unix_ms, public, "
    "idempotency_key, baselines_only";

// The one visibility rule: ?1 = 1 for admins, else only jobs of key ?2.
constexpr char kVisible[] = "(?1 = 1 OR api_key_id = ?2)";

std::string TagsToJson(const std::map<std::string, std::string>& tags) {
  return nlohmann::json(tags).dump();
}

void TagsFromJson(const std::string& text, google::protobuf::Map<std::string, std::string>* out) {
  nlohmann::json parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object()) return;
  for (const auto& [key, value] : parsed.items()) {
    if (value.is_string()) (*out)[key] = value.get<std::string>();
  }
}

// Reads a row selected with kJobColumns.
v1::Job JobFromRow(const Statement& row) {
  v1::Job job;
  job.set_id(std::to_string(row.ColumnInt(0)));
  job.set_problem(row.ColumnText(1));
  job.set_state(static_cast<v1::JobState>(row.ColumnInt(2)));
  job.set_stage(static_cast<v1::Stage>(row.ColumnInt(3)));
  job.set_progress_done(static_cast<int32_t>(row.ColumnInt(4)));
  job.set_progress_total(static_cast<int32_t>(row.ColumnInt(5)));
  job.set_attempts(static_cast<int32_t>(row.ColumnInt(6)));
  job.set_compile_only(row.ColumnInt(7) != 0);
  TagsFromJson(row.ColumnText(8), job.mutable_tags());
  job.set_worker(row.ColumnText(9));
  if (!row.ColumnIsNull(10)) (void)FromJson(row.ColumnText(10), job.mutable_result());
  job.set_created_unix_ms(row.ColumnInt(11));
  job.set_finished_unix_ms(row.ColumnInt(12));
  job.set_started_unix_ms(row.ColumnInt(13));
  job.set_public_(row.ColumnInt(14) != 0);
  job.set_idempotency_key(row.ColumnText(15));
  job.set_baselines_only(row.ColumnInt(16) != 0);
  job.set_succeeded(JobSucceeded(job));
  return job;
}

// The one rule for "this call acts on the job's current lease": the job is running, held by
// this worker under this token, and the lease has not expired at this moment (no grace: the
// housekeeping thread's ExpireLeases may not have run yet). Parameters ?1 job id, ?2 worker
// id, ?3 token, ?4 now; BindLease binds them.
constexpr char kCurrentLease[] =
    "id = ?1 AND state = 2 AND worker_id = ?2 AND lease_token = ?3 AND lease_expires_unix_ms >= ?4";

void BindLease(Statement& stmt, const LeaseRef& lease, int64_t now) {
  stmt.Bind(1, lease.job_id).Bind(2, lease.worker_id).Bind(3, lease.token).Bind(4, now);
}

// What a job that goes back to the queue loses: its holder, its lease, its progress.
constexpr char kRequeueSet[] =
    "state = 1, stage = 1, worker_id = NULL, lease_token = NULL, lease_expires_unix_ms = NULL, "
    "progress_done = 0, progress_total = 0";

// 128 bits from OpenSSL's CSPRNG (the source API keys come from), as hex.
absl::StatusOr<std::string> NewLeaseToken() {
  constexpr int kBytes = 16;
  std::string raw(kBytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), kBytes) != 1) {
    return absl::InternalError("the random generator failed; cannot make a lease token");
  }
  return absl::BytesToHexString(raw);
}

// A lease's baseline requests end with the lease (finished, requeued or revoked).
absl::Status DropBaselineRequests(Database& db, int64_t id) {
  absl::StatusOr<Statement> stmt = db.Prepare("DELETE FROM baseline_requests WHERE job_id = ?");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, id);
  return stmt->Run();
}

// Runs a statement that only refreshes soft state (lease expiry, progress): losing it in a
// power cut costs nothing (the lease expires sooner, progress is re-reported), so it commits
// without an fsync; everything else keeps synchronous=FULL. A process crash loses nothing
// either way (WAL).
absl::Status RunWithoutFsync(Database& db, Statement& stmt) {
  KJ_RETURN_IF_ERROR(db.Execute("PRAGMA synchronous=NORMAL"));
  absl::Status status = stmt.Run();
  absl::Status restore = db.Execute("PRAGMA synchronous=FULL");
  return status.ok() ? restore : status;
}

// The event columns a state change records besides the job's own attempt and worker.
struct EventFacts {
  const char* event;
  v1::Stage stage = v1::STAGE_UNSPECIFIED;
  v1::Verdict verdict = v1::VERDICT_UNSPECIFIED;
  std::string_view detail;
};

// Longest result message a 'finished' event copies (the whole one stays in result_json).
constexpr size_t kEventDetailMax = 300;
// The head of a rejected submission's source and plan that is kept (Enqueue).
constexpr size_t kMaxRejectedTextBytes = 16 << 10;

// Adds a job_events row for job `id` at `now`, taking attempt and worker from the job's row as
// it is at this point of the caller's transaction (the caller orders it around its update).
absl::Status RecordEvent(Database& db, int64_t id, int64_t now, const EventFacts& facts) {
  absl::StatusOr<Statement> stmt = db.Prepare(
      "INSERT INTO job_events(job_id, at_unix_ms, event, attempt, worker_id, stage, verdict, detail) "
      "SELECT id, ?2, ?3, attempts, worker_id, ?4, ?5, ?6 FROM jobs WHERE id = ?1");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, id).Bind(2, now).Bind(3, facts.event).Bind(4, facts.stage).Bind(5, facts.verdict);
  // "" rather than a null view: sqlite binds a null pointer as NULL, which detail refuses.
  stmt->Bind(6, facts.detail.empty() ? std::string_view("") : facts.detail.substr(0, kEventDetailMax));
  return stmt->Run();
}

}  // namespace

int64_t SystemNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

absl::StatusOr<int64_t> JobStore::FindRetryLocked(const NewJob& job) {
  if (job.idempotency_key.empty()) return 0;
  absl::StatusOr<Statement> stmt = shared_->db->Prepare(
      "SELECT id, request_sha256 FROM jobs WHERE api_key_id = ? AND idempotency_key = ?");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, job.api_key_id).Bind(2, job.idempotency_key);
  absl::StatusOr<bool> row = stmt->Step();
  if (!row.ok()) return row.status();
  if (!*row) return 0;
  if (stmt->ColumnText(1) != job.request_sha256) {
    return absl::AlreadyExistsError(absl::StrCat(
        "idempotency_key '", job.idempotency_key, "' was already used by this key for job ", stmt->ColumnInt(0),
        " with a different request; use a new idempotency key for a new submission"));
  }
  return stmt->ColumnInt(0);
}

absl::Status JobStore::CheckCapLocked(const NewJob& job) {
  if (job.active_cap <= 0 || job.immediate_result.has_value()) return absl::OkStatus();
  absl::StatusOr<Statement> stmt =
      shared_->db->Prepare("SELECT COUNT(*) FROM jobs WHERE api_key_id = ? AND state IN (1, 2)");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, job.api_key_id);
  absl::StatusOr<bool> row = stmt->Step();
  if (!row.ok()) return row.status();
  const int64_t active = stmt->ColumnInt(0);
  if (active < job.active_cap) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrCat("this key has ", active, " jobs queued or running (the cap is ",
                                                   job.active_cap, "); retry when some have finished"));
}

absl::StatusOr<int64_t> JobStore::Enqueue(const NewJob& job) {
  std::lock_guard lock(shared_->mutex);
  Database& db = *shared_->db;
  const int64_t now = shared_->now_ms();
  absl::StatusOr<Transaction> txn = Transaction::Begin(db);
  if (!txn.ok()) return txn.status();
  absl::StatusOr<int64_t> retry = FindRetryLocked(job);
  if (!retry.ok() || *retry != 0) return retry;
  KJ_RETURN_IF_ERROR(CheckCapLocked(job));

  // A submission rejected at intake keeps the head of its source and plan (kMaxRejectedTextBytes
  // each), so its owner can read what was refused (the dashboard's job page), while a stream of
  // refusals (which never count against the active-job cap) stores little. std::string's data()
  // is never null, so an empty one binds as '' (body refuses NULL).
  const bool done = job.immediate_result.has_value();
  const std::string rejected_source = done ? CapText(job.source, kMaxRejectedTextBytes) : std::string();
  const std::string rejected_plan = done ? CapText(job.launch_plan, kMaxRejectedTextBytes) : std::string();
  const std::string_view body = done ? std::string_view(rejected_source) : std::string_view(job.source);
  const std::string sha = Sha256Hex(body);
  absl::StatusOr<Statement> source = db.Prepare(
      "INSERT INTO sources(sha256, body, created_unix_ms) VALUES(?, ?, ?) "
      "ON CONFLICT(sha256) DO NOTHING");
  if (!source.ok()) return source.status();
  source->Bind(1, sha).Bind(2, body).Bind(3, now);
  KJ_RETURN_IF_ERROR(source->Run());

  absl::StatusOr<Statement> insert = db.Prepare(
      "INSERT INTO jobs(problem, source_sha256, filename, launch_plan, plan_first_line, "
      "compile_only, tags_json, seed, state, stage, max_attempts, verdict, result_json, "
      "created_unix_ms, finished_unix_ms, api_key_id, public, idempotency_key, request_sha256, "
      "needs_torch, baselines_only) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  if (!insert.ok()) return insert.status();
  insert->Bind(1, job.problem).Bind(2, sha).Bind(3, job.filename).Bind(4, done ? std::string_view(rejected_plan) : std::string_view(job.launch_plan));
  insert->Bind(5, job.plan_first_line).Bind(6, job.compile_only ? 1 : 0);
  insert->Bind(7, TagsToJson(job.tags)).Bind(8, static_cast<int64_t>(job.seed));
  insert->Bind(9, done ? v1::DONE : v1::QUEUED).Bind(10, done ? v1::STAGE_DONE : v1::STAGE_QUEUED);
  insert->Bind(11, options_.max_attempts);
  if (done) {
    insert->Bind(12, job.immediate_result->verdict()).Bind(13, ToJson(*job.immediate_result));
    insert->Bind(15, now);
  } else {
    insert->BindNull(12).BindNull(13).BindNull(15);
  }
  insert->Bind(14, now).Bind(16, job.api_key_id).Bind(17, job.is_public ? 1 : 0);
  insert->Bind(18, job.idempotency_key).Bind(19, job.request_sha256);
  insert->Bind(20, job.needs_torch && !job.compile_only ? 1 : 0);  // compile-only runs anywhere
  insert->Bind(21, job.baselines_only ? 1 : 0);
  KJ_RETURN_IF_ERROR(insert->Run());
  const int64_t id = db.LastInsertRowId();
  const EventFacts event = done ? EventFacts{"finished", v1::STAGE_DONE, job.immediate_result->verdict(),
                                             job.immediate_result->message()}
                                : EventFacts{"queued", v1::STAGE_QUEUED, {}, {}};
  KJ_RETURN_IF_ERROR(RecordEvent(db, id, now, event));
  KJ_RETURN_IF_ERROR(txn->Commit());
  return id;
}

absl::StatusOr<std::optional<v1::Job>> JobStore::Get(int64_t id) {
  std::lock_guard lock(shared_->mutex);
  QueryLimits limits(*shared_->db, kServerReadBudget);
  return GetLocked(id);
}

absl::StatusOr<std::optional<v1::Job>> JobStore::GetLocked(int64_t id) {
  Database& db = *shared_->db;
  absl::StatusOr<Statement> stmt =
      db.Prepare(Sql::Join({"SELECT ", kJobColumns, " FROM jobs WHERE id = ?"}));
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, id);
  absl::StatusOr<bool> row = stmt->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<v1::Job>();
  v1::Job job = JobFromRow(*stmt);
  KJ_RETURN_IF_ERROR(AddQueuePositionLocked(&job, Viewer{"", true}));
  return std::optional<v1::Job>(std::move(job));
}

namespace {

// Whether the key that registered this worker has been revoked (another process may have
// revoked it since the worker's call was authorised).
absl::StatusOr<bool> WorkerKeyRevoked(Database& db, const std::string& worker_id) {
  absl::StatusOr<Statement> stmt = db.Prepare(
      "SELECT 1 FROM workers w JOIN api_keys k ON k.id = w.api_key_id "
      "WHERE w.id = ? AND k.revoked_unix_ms IS NOT NULL");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, worker_id);
  return stmt->Step();
}

// The job to lease next, fair across submitting keys (see the contract in job_store.h):
// nullopt when none is queued for this worker. Index seeks only (jobs_queue_by_key): the keys
// with queued jobs are walked one seek each, and each key's oldest compile-only, oldest GPU
// and oldest GPU + PyTorch job (needs_torch, schema 0006) are one seek each, so a lease costs O(keys * log jobs), not a scan of the queue
// (a GROUP BY over 100,000 queued jobs took 25 ms per lease; this takes 0.03 ms).
absl::StatusOr<std::optional<int64_t>> PickFairly(Database& db, bool can_run_gpu, bool can_run_torch) {
  absl::StatusOr<Statement> pick = db.Prepare(
      "WITH RECURSIVE keys(k) AS ("
      "  SELECT (SELECT MIN(api_key_id) FROM jobs WHERE state = 1) UNION ALL"
      "  SELECT (SELECT MIN(api_key_id) FROM jobs WHERE state = 1 AND api_key_id > k) FROM keys"
      "  WHERE k IS NOT NULL), "
      "heads AS (SELECT k AS api_key_id,"
      "  (SELECT MIN(id) FROM jobs WHERE state = 1 AND api_key_id = k AND compile_only = 1"
      "   AND needs_torch = 0) AS c,"
      "  (SELECT MIN(id) FROM jobs WHERE state = 1 AND api_key_id = k AND compile_only = 0"
      "   AND needs_torch = 0 AND ?1 = 1) AS g,"
      "  (SELECT MIN(id) FROM jobs WHERE state = 1 AND api_key_id = k AND compile_only = 0"
      "   AND needs_torch = 1 AND ?1 = 1 AND ?2 = 1) AS t"
      "  FROM keys WHERE k IS NOT NULL), "
      "eligible AS (SELECT api_key_id, MIN(COALESCE(c, ?3), COALESCE(g, ?3), COALESCE(t, ?3)) AS head"
      "  FROM heads WHERE c IS NOT NULL OR g IS NOT NULL OR t IS NOT NULL), "
      "busy AS (SELECT api_key_id, COUNT(*) AS running FROM jobs WHERE state = 2 GROUP BY api_key_id) "
      "SELECT e.head FROM eligible e LEFT JOIN busy b ON b.api_key_id = e.api_key_id "
      "LEFT JOIN lease_turns t ON t.api_key_id = e.api_key_id "
      "ORDER BY COALESCE(b.running, 0), COALESCE(t.last_lease_seq, 0), e.head LIMIT 1");
  if (!pick.ok()) return pick.status();
  pick->Bind(1, can_run_gpu ? 1 : 0).Bind(2, can_run_torch ? 1 : 0);
  pick->Bind(3, std::numeric_limits<int64_t>::max());  // "no head" in the MIN over the three
  absl::StatusOr<bool> row = pick->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<int64_t>();
  return std::optional<int64_t>(pick->ColumnInt(0));
}

}  // namespace

absl::Status JobStore::TakeTurnLocked(const std::string& api_key_id) {
  absl::StatusOr<Statement> stmt = shared_->db->Prepare(
      "INSERT INTO lease_turns(api_key_id, last_lease_seq) "
      "VALUES(?1, (SELECT COALESCE(MAX(last_lease_seq), 0) + 1 FROM lease_turns)) "
      "ON CONFLICT(api_key_id) DO UPDATE SET last_lease_seq = excluded.last_lease_seq");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, api_key_id);
  return stmt->Run();
}

absl::Status JobStore::AddQueuePositionLocked(v1::Job* job, const Viewer& viewer) {
  if (job->state() != v1::QUEUED) return absl::OkStatus();
  // A compile-only job waits behind every job ahead of it, a GPU job only behind GPU jobs. A
  // submitter's count is bounded to its own queue (an index range of jobs_queue_by_key: at
  // most its active-job cap), an admin's is the whole queue.
  absl::StatusOr<Statement> pos =
      viewer.admin ? shared_->db->Prepare("SELECT COUNT(*) FROM jobs WHERE state = 1 AND id <= ?1 AND "
                                          "(compile_only = ?2 OR compile_only = 0)")
                   : shared_->db->Prepare("SELECT COUNT(*) FROM jobs WHERE state = 1 AND api_key_id = ?3 AND "
                                          "compile_only IN (0, ?2) AND needs_torch IN (0, 1) AND id <= ?1");
  if (!pos.ok()) return pos.status();
  pos->Bind(1, std::stoll(job->id())).Bind(2, job->compile_only() ? 1 : 0);
  if (!viewer.admin) pos->Bind(3, viewer.key_id);
  absl::StatusOr<bool> prow = pos->Step();
  if (!prow.ok()) return prow.status();
  job->set_queue_position(pos->ColumnInt(0));
  return absl::OkStatus();
}

absl::StatusOr<std::optional<v1::Job>> JobStore::GetFor(int64_t id, const Viewer& viewer) {
  std::lock_guard lock(shared_->mutex);
  QueryLimits limits(*shared_->db, kServerReadBudget);
  absl::StatusOr<Statement> stmt =
      shared_->db->Prepare(Sql::Join({"SELECT ", kJobColumns, " FROM jobs WHERE ", kVisible, " AND id = ?3"}));
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, viewer.admin ? 1 : 0).Bind(2, viewer.key_id).Bind(3, id);
  absl::StatusOr<bool> row = stmt->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<v1::Job>();
  v1::Job job = JobFromRow(*stmt);
  if (!viewer.admin) RedactJobForTenant(&job, viewer.key_id);
  KJ_RETURN_IF_ERROR(AddQueuePositionLocked(&job, viewer));
  return std::optional<v1::Job>(std::move(job));
}

absl::StatusOr<std::vector<v1::Job>> JobStore::List(const Viewer& viewer, const JobFilter& filter) {
  std::lock_guard lock(shared_->mutex);
  QueryLimits limits(*shared_->db, kServerReadBudget);
  if (filter.tags.size() > kMaxFilterTags) {
    return absl::InvalidArgumentError(
        absl::StrCat("at most ", kMaxFilterTags, " tags in one filter (", filter.tags.size(), " given)"));
  }
  Sql sql = Sql::Join({"SELECT ", kJobColumns, " FROM jobs WHERE ", kVisible});
  sql.Append(" AND (?3 = 0 OR state = ?3) AND (?4 = '' OR problem = ?4)"
             " AND (?5 = 0 OR id < ?5) AND (?7 = 0 OR verdict = ?7)"
             " AND (?8 = 0 OR created_unix_ms >= ?8) AND (?9 = 0 OR created_unix_ms < ?9)");
  // Each tag is one seek of job_tags (schema 0005); its key and its value are both bound
  // parameters, so no byte of a request reaches the SQL text.
  constexpr int kFirstTagParam = 10;
  int next = kFirstTagParam;
  for (size_t i = 0; i < filter.tags.size(); ++i) {
    sql.Append(" AND EXISTS (SELECT 1 FROM job_tags WHERE job_id = jobs.id AND key = ").AppendParameter(next);
    sql.Append(" AND value = ").AppendParameter(next + 1).Append(")");
    next += 2;
  }
  sql.Append(" ORDER BY id DESC LIMIT ?6");
  absl::StatusOr<Statement> stmt = shared_->db->Prepare(sql);
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, viewer.admin ? 1 : 0).Bind(2, viewer.key_id).Bind(3, static_cast<int>(filter.state));
  stmt->Bind(4, filter.problem).Bind(5, filter.before_id).Bind(6, filter.limit);
  stmt->Bind(7, static_cast<int>(filter.verdict)).Bind(8, filter.created_after_ms).Bind(9, filter.created_before_ms);
  next = kFirstTagParam;
  for (const auto& [key, value] : filter.tags) {
    stmt->Bind(next, key).Bind(next + 1, value);
    next += 2;
  }
  std::vector<v1::Job> jobs;
  jobs.reserve(static_cast<size_t>(filter.limit));
  while (true) {
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    jobs.push_back(JobFromRow(*stmt));
    if (!viewer.admin) RedactJobForTenant(&jobs.back(), viewer.key_id);
  }
  for (v1::Job& job : jobs) {
    KJ_RETURN_IF_ERROR(AddQueuePositionLocked(&job, viewer));
  }
  return jobs;
}

absl::StatusOr<v1::Job> JobStore::Cancel(int64_t id, const Viewer& viewer) {
  std::lock_guard lock(shared_->mutex);
  Database& db = *shared_->db;
  absl::StatusOr<Transaction> txn = Transaction::Begin(db);
  if (!txn.ok()) return txn.status();
  absl::StatusOr<Statement> check =
      db.Prepare(Sql::Join({"SELECT state FROM jobs WHERE ", kVisible, " AND id = ?3"}));
  if (!check.ok()) return check.status();
  check->Bind(1, viewer.admin ? 1 : 0).Bind(2, viewer.key_id).Bind(3, id);
  absl::StatusOr<bool> row = check->Step();
  if (!row.ok()) return row.status();
  if (!*row) return absl::NotFoundError(absl::StrCat("no job ", id));
  if (check->ColumnInt(0) == v1::DONE) {
    return absl::FailedPreconditionError(absl::StrCat("job ", id, " is already done; there is nothing to cancel"));
  }
  v1::JobResult result;
  result.set_verdict(v1::CANCELLED);
  // No key id: the owner knows its own, and an admin's is not the tenant's to see (the
  // server's log names the key).
  result.set_message(viewer.admin && !viewer.key_id.empty() ? "cancelled by an administrator"
                                                            : "cancelled by its owner");
  // state 3 (done): the worker holding it, if any, no longer matches "state = 2 AND worker_id"
  // and so loses the lease on its next renew, progress report or completion.
  KJ_RETURN_IF_ERROR(FinishLocked(id, result));
  KJ_RETURN_IF_ERROR(txn->Commit());
  absl::StatusOr<std::optional<v1::Job>> job = GetLocked(id);
  if (!job.ok()) return job.status();
  if (!viewer.admin) RedactJobForTenant(&**job, viewer.key_id);
  return std::move(**job);
}

absl::StatusOr<std::optional<LeasedJob>> JobStore::LeaseNext(const std::string& worker_id,
                                                             bool can_run_gpu, bool can_run_torch) {
  absl::StatusOr<std::string> token = NewLeaseToken();
  if (!token.ok()) return token.status();
  std::lock_guard lock(shared_->mutex);
  Database& db = *shared_->db;
  const int64_t now = shared_->now_ms();
  absl::StatusOr<Transaction> txn = Transaction::Begin(db);
  if (!txn.ok()) return txn.status();
  absl::StatusOr<bool> revoked = WorkerKeyRevoked(db, worker_id);
  if (!revoked.ok()) return revoked.status();
  if (*revoked) return std::optional<LeasedJob>();
  absl::StatusOr<std::optional<int64_t>> picked = PickFairly(db, can_run_gpu, can_run_torch);
  if (!picked.ok()) return picked.status();
  if (!picked->has_value()) return std::optional<LeasedJob>();
  absl::StatusOr<Statement> pick = db.Prepare(
      "SELECT j.id, j.attempts, j.problem, s.body, j.filename, j.launch_plan, j.plan_first_line, "
      "j.compile_only, j.seed, j.created_unix_ms, j.api_key_id, j.baselines_only FROM jobs j "
      "JOIN sources s ON s.sha256 = j.source_sha256 WHERE j.id = ?");
  if (!pick.ok()) return pick.status();
  pick->Bind(1, **picked);
  absl::StatusOr<bool> row = pick->Step();
  if (!row.ok()) return row.status();
  if (!*row) return absl::InternalError(absl::StrCat("queued job ", **picked, " has no source row"));
  LeasedJob leased;
  leased.id = pick->ColumnInt(0);
  leased.attempt = static_cast<int>(pick->ColumnInt(1)) + 1;
  leased.lease_token = *std::move(token);
  v1::RunSpec& spec = leased.spec;
  spec.set_job_id(std::to_string(leased.id));
  spec.set_problem(pick->ColumnText(2));
  spec.set_source(pick->ColumnText(3));
  spec.set_filename(pick->ColumnText(4));
  spec.set_launch_plan(pick->ColumnText(5));
  spec.set_plan_first_line(static_cast<int32_t>(pick->ColumnInt(6)));
  spec.set_compile_only(pick->ColumnInt(7) != 0);
  spec.set_seed(static_cast<uint64_t>(pick->ColumnInt(8)));
  leased.created_unix_ms = pick->ColumnInt(9);
  spec.set_baselines_only(pick->ColumnInt(11) != 0);
  KJ_RETURN_IF_ERROR(TakeTurnLocked(pick->ColumnText(10)));

  absl::StatusOr<Statement> update = db.Prepare(
      "UPDATE jobs SET state = 2, stage = 2, progress_done = 0, progress_total = 0, "
      "attempts = attempts + 1, worker_id = ?, lease_token = ?, lease_expires_unix_ms = ?, "
      "started_unix_ms = COALESCE(started_unix_ms, ?) WHERE id = ?");
  if (!update.ok()) return update.status();
  update->Bind(1, worker_id).Bind(2, leased.lease_token).Bind(3, LeaseNowMs() + options_.lease_ms);
  update->Bind(4, now).Bind(5, leased.id);
  KJ_RETURN_IF_ERROR(update->Run());
  KJ_RETURN_IF_ERROR(RecordEvent(db, leased.id, now, {"leased", v1::STAGE_COMPILING, {}, {}}));
  KJ_RETURN_IF_ERROR(txn->Commit());
  return std::optional<LeasedJob>(std::move(leased));
}

absl::StatusOr<int64_t> JobStore::RouteQueuedJobs(const std::vector<std::string>& torch_only) {
  std::lock_guard lock(shared_->mutex);
  Database& db = *shared_->db;
  absl::StatusOr<Statement> stmt = db.Prepare(
      "UPDATE jobs SET needs_torch = NOT needs_torch WHERE state = 1 AND "
      "needs_torch != (compile_only = 0 AND problem IN (SELECT value FROM json_each(?1)))");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, nlohmann::json(torch_only).dump());
  KJ_RETURN_IF_ERROR(stmt->Run());
  return db.Changes();
}

absl::StatusOr<bool> JobStore::Renew(const LeaseRef& lease) {
  std::lock_guard lock(shared_->mutex);
  Database& db = *shared_->db;
  absl::StatusOr<Statement> stmt =
      db.Prepare(Sql::Join({"UPDATE jobs SET lease_expires_unix_ms = ?5 WHERE ", kCurrentLease}));
  if (!stmt.ok()) return stmt.status();
  const int64_t now = LeaseNowMs();
  BindLease(*stmt, lease, now);
  stmt->Bind(5, now + options_.lease_ms);
  KJ_RETURN_IF_ERROR(RunWithoutFsync(db, *stmt));
  return db.Changes() == 1;
}

absl::StatusOr<bool> JobStore::UpdateProgress(const LeaseRef& lease, v1::Stage stage, int done,
                                              int total) {
  std::lock_guard lock(shared_->mutex);
  Database& db = *shared_->db;
  const int64_t now = LeaseNowMs();
  // A new stage is a state change: its event is written in the same transaction as the
  // update. Both are soft state (see RunWithoutFsync), so the pair commits without an fsync.
  KJ_RETURN_IF_ERROR(db.Execute("PRAGMA synchronous=NORMAL"));
  absl::StatusOr<bool> changed = UpdateProgressLocked(lease, stage, done, total, now);
  absl::Status restore = db.Execute("PRAGMA synchronous=FULL");
  if (!changed.ok()) return changed.status();
  if (!restore.ok()) return restore;
  return *changed;
}

absl::StatusOr<bool> JobStore::UpdateProgressLocked(const LeaseRef& lease, v1::Stage stage, int done, int total,
                                                    int64_t now) {
  Database& db = *shared_->db;
  absl::StatusOr<Transaction> txn = Transaction::Begin(db);
  if (!txn.ok()) return txn.status();
  absl::StatusOr<Statement> event = db.Prepare(Sql::Join({
      "INSERT INTO job_events(job_id, at_unix_ms, event, attempt, worker_id, stage) "
      "SELECT id, ?6, 'stage', attempts, worker_id, ?5 FROM jobs WHERE stage != ?5 AND ", kCurrentLease}));
  if (!event.ok()) return event.status();
  BindLease(*event, lease, now);
  event->Bind(5, stage).Bind(6, shared_->now_ms());  // the event's time is wall time, for display
  KJ_RETURN_IF_ERROR(event->Run());
  absl::StatusOr<Statement> stmt = db.Prepare(Sql::Join({
      "UPDATE jobs SET stage = ?5, progress_done = ?6, progress_total = ?7, "
      "lease_expires_unix_ms = ?8 WHERE ", kCurrentLease}));
  if (!stmt.ok()) return stmt.status();
  BindLease(*stmt, lease, now);
  stmt->Bind(5, stage).Bind(6, done).Bind(7, total).Bind(8, now + options_.lease_ms);
  KJ_RETURN_IF_ERROR(stmt->Run());
  const bool updated = db.Changes() == 1;
  KJ_RETURN_IF_ERROR(txn->Commit());
  return updated;
}

absl::StatusOr<bool> JobStore::IsCurrentLocked(const LeaseRef& lease) {
  absl::StatusOr<Statement> check =
      shared_->db->Prepare(Sql::Join({"SELECT 1 FROM jobs WHERE ", kCurrentLease}));
  if (!check.ok()) return check.status();
  BindLease(*check, lease, LeaseNowMs());
  return check->Step();
}

absl::StatusOr<bool> JobStore::RequestBaselines(const LeaseRef& lease,
                                                const std::vector<v1::BaselineTiming>& wanted) {
  std::lock_guard lock(shared_->mutex);
  Database& db = *shared_->db;
  absl::StatusOr<Transaction> txn = Transaction::Begin(db);
  if (!txn.ok()) return txn.status();
  absl::StatusOr<bool> current = IsCurrentLocked(lease);
  if (!current.ok()) return current.status();
  if (!*current) return false;
  KJ_RETURN_IF_ERROR(DropBaselineRequests(db, lease.job_id));
  for (const v1::BaselineTiming& b : wanted) {
    absl::StatusOr<Statement> insert = db.Prepare(
        "INSERT OR IGNORE INTO baseline_requests(job_id, lease_token, problem, shape, name, hardware_key) "
        "VALUES(?, ?, ?, ?, ?, ?)");
    if (!insert.ok()) return insert.status();
    insert->Bind(1, lease.job_id).Bind(2, lease.token).Bind(3, b.problem()).Bind(4, b.shape());
    insert->Bind(5, b.name()).Bind(6, b.hardware_key());
    KJ_RETURN_IF_ERROR(insert->Run());
  }
  KJ_RETURN_IF_ERROR(txn->Commit());
  return true;
}

namespace {

// Moves each timing's samples_us out of `result` into job_samples rows of job `id` (float32,
// little-endian: the byte order of every host kjudge runs on, checked at compile time).
absl::Status StoreSamples(Database& db, int64_t id, v1::JobResult* result) {
  static_assert(std::endian::native == std::endian::little, "job_samples stores little-endian float32");
  for (int i = 0; i < result->timings_size(); ++i) {
    v1::Timing* timing = result->mutable_timings(i)->mutable_timing();
    if (timing->samples_us().empty()) continue;
    const std::string_view bytes(reinterpret_cast<const char*>(timing->samples_us().data()),
                                 sizeof(float) * static_cast<size_t>(timing->samples_us_size()));
    absl::StatusOr<Statement> insert =
        db.Prepare("INSERT OR REPLACE INTO job_samples(job_id, idx, shape, samples) VALUES(?, ?, ?, ?)");
    if (!insert.ok()) return insert.status();
    insert->Bind(1, id).Bind(2, i).Bind(3, result->timings(i).shape()).BindBlob(4, bytes);
    KJ_RETURN_IF_ERROR(insert->Run());
    timing->clear_samples_us();
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status JobStore::FinishLocked(int64_t id, const v1::JobResult& given) {
  v1::JobResult result = given;
  KJ_RETURN_IF_ERROR(StoreSamples(*shared_->db, id, &result));
  absl::StatusOr<Statement> stmt = shared_->db->Prepare(
      "UPDATE jobs SET state = 3, stage = 6, verdict = ?, result_json = ?, finished_unix_ms = ?, "
      "lease_token = NULL, lease_expires_unix_ms = NULL WHERE id = ?");
  if (!stmt.ok()) return stmt.status();
  const int64_t now = shared_->now_ms();
  stmt->Bind(1, result.verdict()).Bind(2, ToJson(result)).Bind(3, now).Bind(4, id);
  KJ_RETURN_IF_ERROR(stmt->Run());
  if (absl::Status s = RecordEvent(*shared_->db, id, now, {"finished", v1::STAGE_DONE, result.verdict(), result.message()});
      !s.ok()) {
    return s;
  }
  return DropBaselineRequests(*shared_->db, id);
}

namespace {

absl::StatusOr<std::vector<v1::BaselineTiming>> RequestedOf(Database& db, const LeaseRef& lease) {
  absl::StatusOr<Statement> stmt = db.Prepare(
      "SELECT problem, shape, name, hardware_key FROM baseline_requests "
      "WHERE job_id = ? AND lease_token = ? ORDER BY shape, name");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, lease.job_id).Bind(2, lease.token);
  std::vector<v1::BaselineTiming> out;
  while (true) {
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    v1::BaselineTiming& b = out.emplace_back();
    b.set_problem(stmt->ColumnText(0));
    b.set_shape(stmt->ColumnText(1));
    b.set_name(stmt->ColumnText(2));
    b.set_hardware_key(stmt->ColumnText(3));
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<v1::BaselineTiming>> JobStore::RequestedBaselines(const LeaseRef& lease) {
  std::lock_guard lock(shared_->mutex);
  absl::StatusOr<bool> current = IsCurrentLocked(lease);
  if (!current.ok()) return current.status();
  if (!*current) return std::vector<v1::BaselineTiming>();
  return RequestedOf(*shared_->db, lease);
}

absl::StatusOr<Completion> JobStore::Complete(const LeaseRef& lease, const v1::JobResult& result) {
  std::lock_guard lock(shared_->mutex);
  Database& db = *shared_->db;
  absl::StatusOr<Transaction> txn = Transaction::Begin(db);
  if (!txn.ok()) return txn.status();
  absl::StatusOr<bool> current = IsCurrentLocked(lease);
  if (!current.ok()) return current.status();
  Completion completion;
  if (!*current) return completion;
  absl::StatusOr<std::vector<v1::BaselineTiming>> requested = RequestedOf(db, lease);
  if (!requested.ok()) return requested.status();
  KJ_RETURN_IF_ERROR(FinishLocked(lease.job_id, result));
  KJ_RETURN_IF_ERROR(txn->Commit());
  completion.accepted = true;
  completion.requested_baselines = *std::move(requested);
  return completion;
}

int64_t MonotonicWallMs() {
  // Anchored once, at the first call: wall time then, plus the steady clock's progress since.
  static const auto anchor_steady = std::chrono::steady_clock::now();
  static const int64_t anchor_wall = SystemNowMs();
  return anchor_wall + std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                              anchor_steady)
                           .count();
}

int64_t JobStore::LeaseNowMs() const {
  return lease_clock_ms_ ? lease_clock_ms_() : MonotonicWallMs();
}

absl::StatusOr<int64_t> JobStore::RestartLeases() {
  std::lock_guard lock(shared_->mutex);
  Database& db = *shared_->db;
  absl::StatusOr<Statement> stmt = db.Prepare("UPDATE jobs SET lease_expires_unix_ms = ? WHERE state = 2");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, LeaseNowMs() + options_.lease_ms);
  KJ_RETURN_IF_ERROR(stmt->Run());
  return db.Changes();
}

absl::StatusOr<int> JobStore::ExpireLeases() {
  std::lock_guard lock(shared_->mutex);
  Database& db = *shared_->db;
  const int64_t now = LeaseNowMs();
  absl::StatusOr<Transaction> txn = Transaction::Begin(db);
  if (!txn.ok()) return txn.status();
  absl::StatusOr<Statement> expired = db.Prepare(
      "SELECT id, attempts, max_attempts, worker_id FROM jobs "
      "WHERE state = 2 AND lease_expires_unix_ms < ?");
  if (!expired.ok()) return expired.status();
  expired->Bind(1, now);
  struct Row {
    int64_t id, attempts, max_attempts;
    std::string worker;
  };
  std::vector<Row> rows;
  while (true) {
    absl::StatusOr<bool> row = expired->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    rows.push_back({expired->ColumnInt(0), expired->ColumnInt(1), expired->ColumnInt(2),
                    expired->ColumnText(3)});
  }
  for (const Row& row : rows) {
    // No worker id in the text: tenants read it (the event's worker_id names it for admins).
    const std::string reason = "its worker stopped renewing its lease";
    if (absl::Status s = RequeueOrFailLocked(row.id, row.attempts, row.max_attempts, reason); !s.ok()) {
      return s;
    }
  }
  KJ_RETURN_IF_ERROR(txn->Commit());
  return static_cast<int>(rows.size());
}

absl::Status JobStore::RequeueOrFailLocked(int64_t id, int64_t attempts, int64_t max_attempts,
                                           const std::string& reason) {
  if (attempts >= max_attempts) {
    v1::JobResult result;
    result.set_verdict(v1::INTERNAL_ERROR);
    result.set_message(absl::StrCat("gave up after ", attempts, " attempts; the last ended with: ", reason));
    return FinishLocked(id, result);
  }
  // Recorded before the update, while the row still names the worker that lost the job.
  if (absl::Status s = RecordEvent(*shared_->db, id, shared_->now_ms(), {"requeued", v1::STAGE_QUEUED, {}, reason});
      !s.ok()) {
    return s;
  }
  absl::StatusOr<Statement> requeue =
      shared_->db->Prepare(Sql::Join({"UPDATE jobs SET ", kRequeueSet, " WHERE id = ?"}));
  if (!requeue.ok()) return requeue.status();
  requeue->Bind(1, id);
  KJ_RETURN_IF_ERROR(requeue->Run());
  return DropBaselineRequests(*shared_->db, id);
}

absl::StatusOr<bool> JobStore::Release(const LeaseRef& lease, const std::string& reason) {
  std::lock_guard lock(shared_->mutex);
  Database& db = *shared_->db;
  absl::StatusOr<Transaction> txn = Transaction::Begin(db);
  if (!txn.ok()) return txn.status();
  absl::StatusOr<Statement> check =
      db.Prepare(Sql::Join({"SELECT attempts, max_attempts FROM jobs WHERE ", kCurrentLease}));
  if (!check.ok()) return check.status();
  BindLease(*check, lease, LeaseNowMs());
  absl::StatusOr<bool> held = check->Step();
  if (!held.ok()) return held.status();
  if (!*held) return false;
  if (absl::Status s = RequeueOrFailLocked(lease.job_id, check->ColumnInt(0), check->ColumnInt(1), reason);
      !s.ok()) {
    return s;
  }
  KJ_RETURN_IF_ERROR(txn->Commit());
  return true;
}

absl::StatusOr<int> RequeueLeasesOfKey(Database& db, const std::string& api_key_id, int64_t now_ms) {
  static constexpr char kLeasedByKey[] =
      "state = 2 AND worker_id IN (SELECT id FROM workers WHERE api_key_id = ?1)";
  absl::StatusOr<Statement> drop = db.Prepare(Sql::Join({
      "DELETE FROM baseline_requests WHERE job_id IN (SELECT id FROM jobs WHERE ", kLeasedByKey, ")"}));
  if (!drop.ok()) return drop.status();
  drop->Bind(1, api_key_id);
  KJ_RETURN_IF_ERROR(drop->Run());
  absl::StatusOr<Statement> events = db.Prepare(Sql::Join({
      "INSERT INTO job_events(job_id, at_unix_ms, event, attempt, worker_id, stage, detail) "
      "SELECT id, ?2, 'requeued', attempts, worker_id, ?3, 'the key of its worker was revoked (attempt not counted)' "
      "FROM jobs WHERE ", kLeasedByKey}));
  if (!events.ok()) return events.status();
  events->Bind(1, api_key_id).Bind(2, now_ms).Bind(3, v1::STAGE_QUEUED);
  KJ_RETURN_IF_ERROR(events->Run());
  // The attempt is given back: the job did nothing wrong, its worker's key was revoked.
  absl::StatusOr<Statement> requeue = db.Prepare(Sql::Join({
      "UPDATE jobs SET ", kRequeueSet, ", attempts = MAX(attempts - 1, 0) WHERE ", kLeasedByKey}));
  if (!requeue.ok()) return requeue.status();
  requeue->Bind(1, api_key_id);
  KJ_RETURN_IF_ERROR(requeue->Run());
  return db.Changes();
}

namespace {

// FinishedResults' jobs: finished (a job_stats row, schema 0009), judged or compile-only, matching the
// prefix, the scope and every tag (through job_tags: indexed, keys and values bound). ?1..?5 as
// bound by BindFinished, tags from ?6 on; `s` is the job_stats row. With tags, the rows come
// from the first tag's range of job_tags (ordered by job id) and each is one job_stats seek:
// CROSS JOIN keeps SQLite from scanning job_stats instead. The prefix and scope tests are
// written so that SQLite decides the bound part once and skips the rest (no prefix, an admin).
Sql FinishedSql(size_t tag_count) {
  Sql sql("SELECT s.job_id, s.verdict, s.problem, s.metrics, s.compile_only FROM ");
  sql.Append(tag_count == 0 ? SqlText("job_stats s WHERE ")
                            : SqlText("job_tags t CROSS JOIN job_stats s ON s.job_id = t.job_id "
                                      "WHERE t.key = ?6 AND t.value = ?7 AND "));
  sql.Append("s.baselines_only = 0 AND s.verdict != ?5 "
             "AND (?3 = '' OR substr(s.problem, 1, length(?3)) = ?3) "
             "AND (?4 = 0 OR s.public = 1) AND (?4 = 1 OR ?1 = 1 OR s.api_key_id = ?2)");
  for (size_t i = 1; i < tag_count; ++i) {
    const int key = 6 + (2 * static_cast<int>(i));
    sql.Append(" AND EXISTS (SELECT 1 FROM job_tags WHERE key = ").AppendParameter(key);
    sql.Append(" AND value = ").AppendParameter(key + 1).Append(" AND job_id = s.job_id)");
  }
  sql.Append(tag_count == 0 ? SqlText(" ORDER BY s.job_id") : SqlText(" ORDER BY t.job_id"));
  return sql;
}

// At least as many jobs as FinishedResults can return (the first tag's jobs, or every
// finished job), so that its vector is allocated once: growing it moved each result about
// twice (a tenth of the time of a run of 20,000).
absl::StatusOr<int64_t> FinishedBound(Database& db, const std::map<std::string, std::string>& tags) {
  absl::StatusOr<Statement> stmt = db.Prepare(tags.empty() ? SqlText("SELECT COUNT(*) FROM job_stats")
                                                           : SqlText("SELECT COUNT(*) FROM job_tags WHERE key = ?1 AND value = ?2"));
  if (!stmt.ok()) return stmt.status();
  if (!tags.empty()) stmt->Bind(1, tags.begin()->first).Bind(2, tags.begin()->second);
  absl::StatusOr<bool> row = stmt->Step();
  if (!row.ok()) return row.status();
  return *row ? stmt->ColumnInt(0) : 0;
}

void BindFinished(Statement& stmt, const std::map<std::string, std::string>& tags, const std::string& problem_prefix,
                  const StatsScope& scope) {
  stmt.Bind(1, scope.viewer.admin ? 1 : 0).Bind(2, scope.viewer.key_id).Bind(3, problem_prefix);
  stmt.Bind(4, scope.public_only ? 1 : 0).Bind(5, v1::CANCELLED);  // never judged: not counted
  int next = 6;
  for (const auto& [key, value] : tags) {
    stmt.Bind(next, key).Bind(next + 1, value);
    next += 2;
  }
}

// One entry of job_stats.metrics, i.e. one job_metrics row: kind 0 the GPU (label), 1 a timed
// shape's median (label = shape), 2 a speedup (label = shape, baseline); idx its position in
// the result's array.
struct MetricEntry {
  int64_t kind = 0;
  int64_t idx = 0;
  double value = 0;
  std::string_view label, baseline;
};

// Takes the characters before the next space from the front of `text`, and the space.
bool TakeToken(std::string_view& text, std::string_view* out) {
  const size_t space = text.find(' ');
  if (space == std::string_view::npos) return false;
  *out = text.substr(0, space);
  text.remove_prefix(space + 1);
  return true;
}

// A token that is a number as a whole (from_chars: correctly rounded for doubles).
template <typename T>
bool ParseNumber(std::string_view token, T* out) {
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), *out);
  return ec == std::errc() && end == token.data() + token.size();
}

template <typename T>
bool TakeNumber(std::string_view& text, T* out) {
  std::string_view token;
  return TakeToken(text, &token) && ParseNumber(token, out);
}

// Takes `bytes` bytes from the front of `text` (negative or too many: false).
bool TakeBytes(std::string_view& text, int64_t bytes, std::string_view* out) {
  if (bytes < 0 || static_cast<size_t>(bytes) > text.size()) return false;
  *out = text.substr(0, static_cast<size_t>(bytes));
  text.remove_prefix(static_cast<size_t>(bytes));
  return true;
}

// Splits job_stats.metrics (format in schema/0009_dashboard_stats.sql) into `entries`, in the
// order job_metrics' primary key gives (kind, idx). Each value was printed with 21 significant
// digits, so the correctly rounded parse gives back job_metrics.value exactly (the GPU's entry
// has none to parse).
absl::Status ParseMetrics(std::string_view text, std::vector<MetricEntry>* entries) {
  entries->clear();
  while (!text.empty()) {
    MetricEntry& e = entries->emplace_back();
    int64_t label_bytes = 0, baseline_bytes = 0;
    std::string_view value;
    if (!TakeNumber(text, &e.kind) || !TakeNumber(text, &e.idx) || !TakeToken(text, &value) ||
        !TakeNumber(text, &label_bytes) || !TakeNumber(text, &baseline_bytes) || !TakeBytes(text, label_bytes, &e.label) ||
        !TakeBytes(text, baseline_bytes, &e.baseline) || (e.kind != 0 && !ParseNumber(value, &e.value))) {
      return absl::DataLossError("job_stats.metrics is malformed");
    }
  }
  std::sort(entries->begin(), entries->end(),
            [](const MetricEntry& a, const MetricEntry& b) { return std::tie(a.kind, a.idx) < std::tie(b.kind, b.idx); });
  return absl::OkStatus();
}

// One entry into the result it came from (as the job_metrics row it copies). An empty GPU is
// left unset: the same result, one allocation fewer.
void AddMetric(const MetricEntry& entry, v1::JobResult* result) {
  switch (entry.kind) {
    case 0:
      if (!entry.label.empty()) result->set_gpu(entry.label.data(), entry.label.size());
      break;
    case 1: {
      v1::ShapeTiming* timing = result->add_timings();
      timing->set_shape(entry.label.data(), entry.label.size());
      timing->mutable_timing()->set_median_us(entry.value);
      break;
    }
    case 2: {
      v1::Speedup* speedup = result->add_speedups();
      speedup->set_shape(entry.label.data(), entry.label.size());
      speedup->set_baseline(entry.baseline.data(), entry.baseline.size());
      speedup->set_speedup(entry.value);
      break;
    }
    default: break;  // a kind this server does not know (a newer schema's): not for stats
  }
}

}  // namespace

absl::StatusOr<std::vector<JudgedResult>> JobStore::FinishedResults(
    const std::map<std::string, std::string>& tags, const std::string& problem_prefix, const StatsScope& scope) {
  if (tags.size() > kMaxFilterTags) {
    return absl::InvalidArgumentError(
        absl::StrCat("at most ", kMaxFilterTags, " tags in one filter (", tags.size(), " given)"));
  }
  std::lock_guard lock(shared_->mutex);
  QueryLimits limits(*shared_->db, kServerReadBudget);
  // Only what ComputeStats reads comes back: each job's verdict, problem and job_metrics rows
  // (GPU, medians, speedups), from one job_stats row per job (schema 0009: kept by triggers in
  // the transaction of each change), so stats over a run read neither jobs nor job_metrics.
  absl::StatusOr<int64_t> bound = FinishedBound(*shared_->db, tags);
  if (!bound.ok()) return bound.status();
  absl::StatusOr<Statement> stmt = shared_->db->Prepare(FinishedSql(tags.size()));
  if (!stmt.ok()) return stmt.status();
  BindFinished(*stmt, tags, problem_prefix, scope);
  std::vector<JudgedResult> out;
  out.reserve(static_cast<size_t>(*bound));
  std::vector<MetricEntry> entries;  // reused: one job's entries at a time
  while (true) {
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    JudgedResult& judged = out.emplace_back();
    judged.problem = stmt->ColumnText(2);
    judged.result.set_verdict(static_cast<v1::Verdict>(stmt->ColumnInt(1)));
    judged.compile_only = stmt->ColumnInt(4) != 0;  // counted in compile_rate only
    const std::string metrics = stmt->ColumnText(3);
    if (absl::Status s = ParseMetrics(metrics, &entries); !s.ok()) {
      return absl::DataLossError(absl::StrCat("job ", stmt->ColumnInt(0), ": ", s.message()));
    }
    for (const MetricEntry& entry : entries) AddMetric(entry, &judged.result);
  }
  return out;
}

absl::StatusOr<std::vector<std::pair<std::string, std::vector<float>>>> JobStore::Samples(int64_t id,
                                                                                         const Viewer& viewer) {
  std::lock_guard lock(shared_->mutex);
  QueryLimits limits(*shared_->db, kServerReadBudget);
  absl::StatusOr<Statement> stmt = shared_->db->Prepare(Sql::Join({
      "SELECT shape, samples FROM job_samples WHERE job_id = ?3 AND EXISTS (SELECT 1 FROM jobs WHERE id = ?3 AND ",
      kVisible, ") ORDER BY idx"}));
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, viewer.admin ? 1 : 0).Bind(2, viewer.key_id).Bind(3, id);
  std::vector<std::pair<std::string, std::vector<float>>> out;
  while (true) {
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    const std::string bytes = stmt->ColumnBlob(1);
    std::vector<float> samples(bytes.size() / sizeof(float));
    std::memcpy(samples.data(), bytes.data(), samples.size() * sizeof(float));
    out.emplace_back(stmt->ColumnText(0), std::move(samples));
  }
  return out;
}

absl::StatusOr<std::optional<JobStore::StoredSubmission>> JobStore::SubmissionFor(int64_t id,
                                                                                    const Viewer& viewer) {
  std::lock_guard lock(shared_->mutex);
  QueryLimits limits(*shared_->db, kServerReadBudget);
  absl::StatusOr<Statement> stmt = shared_->db->Prepare(Sql::Join({
      "SELECT j.filename, s.body, j.launch_plan FROM jobs j JOIN sources s ON s.sha256 = j.source_sha256 "
      "WHERE j.id = ?3 AND ", kVisible}));
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, viewer.admin ? 1 : 0).Bind(2, viewer.key_id).Bind(3, id);
  absl::StatusOr<bool> row = stmt->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<StoredSubmission>();
  return std::optional<StoredSubmission>(
      StoredSubmission{stmt->ColumnText(0), stmt->ColumnText(1), stmt->ColumnText(2)});
}

absl::StatusOr<std::vector<JobEvent>> JobStore::Events(int64_t id, const Viewer& viewer) {
  std::lock_guard lock(shared_->mutex);
  QueryLimits limits(*shared_->db, kServerReadBudget);
  absl::StatusOr<Statement> stmt = shared_->db->Prepare(Sql::Join({
      "SELECT e.at_unix_ms, e.event, COALESCE(e.attempt, -1), COALESCE(e.worker_id, ''), e.stage, e.verdict, e.detail "
      "FROM job_events e WHERE e.job_id = ?3 AND EXISTS (SELECT 1 FROM jobs WHERE id = ?3 AND ", kVisible,
      ") ORDER BY e.id"}));
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, viewer.admin ? 1 : 0).Bind(2, viewer.key_id).Bind(3, id);
  std::vector<JobEvent> events;
  while (true) {
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    JobEvent& e = events.emplace_back();
    e.at_unix_ms = stmt->ColumnInt(0);
    e.event = stmt->ColumnText(1);
    e.attempt = stmt->ColumnInt(2);
    if (viewer.admin) e.worker_id = stmt->ColumnText(3);
    e.stage = static_cast<v1::Stage>(stmt->ColumnInt(4));
    e.verdict = static_cast<v1::Verdict>(stmt->ColumnInt(5));
    e.detail = viewer.admin ? stmt->ColumnText(6) : RedactForTenant(stmt->ColumnText(6), viewer.key_id);
  }
  return events;
}

absl::StatusOr<int64_t> JobStore::CountActiveForKey(const std::string& api_key_id) {
  std::lock_guard lock(shared_->mutex);
  QueryLimits limits(*shared_->db, kServerReadBudget);
  absl::StatusOr<Statement> stmt =
      shared_->db->Prepare("SELECT COUNT(*) FROM jobs WHERE api_key_id = ? AND state IN (1, 2)");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, api_key_id);
  absl::StatusOr<bool> row = stmt->Step();
  if (!row.ok()) return row.status();
  return stmt->ColumnInt(0);
}

absl::StatusOr<JobStore::Counts> JobStore::CountByState() {
  std::lock_guard lock(shared_->mutex);
  QueryLimits limits(*shared_->db, kServerReadBudget);
  // Queued and running jobs are few and counted on jobs_by_state. Done jobs are nearly all of
  // them: counted as all jobs (SQLite counts a whole b-tree page by page) less the others,
  // instead of stepping through 100,000 index entries.
  absl::StatusOr<Statement> stmt = shared_->db->Prepare(
      "SELECT (SELECT COUNT(*) FROM jobs WHERE state = 1), (SELECT COUNT(*) FROM jobs WHERE state = 2), "
      "(SELECT COUNT(*) FROM jobs) - (SELECT COUNT(*) FROM jobs WHERE state < 3) - "
      "(SELECT COUNT(*) FROM jobs WHERE state > 3)");
  if (!stmt.ok()) return stmt.status();
  absl::StatusOr<bool> row = stmt->Step();
  if (!row.ok()) return row.status();
  if (!*row) return absl::InternalError("CountByState: no row");
  Counts counts;
  counts.queued = stmt->ColumnInt(0);
  counts.running = stmt->ColumnInt(1);
  counts.done = stmt->ColumnInt(2);
  return counts;
}

absl::StatusOr<std::vector<JobStore::Change>> JobStore::ChangesSince(int64_t after_event, int limit) {
  std::lock_guard lock(shared_->mutex);
  // job_events' primary key: one range seek, then one jobs seek per row for the owner.
  absl::StatusOr<Statement> stmt = shared_->db->Prepare(
      "SELECT e.id, e.job_id, e.event, COALESCE(j.api_key_id, '') FROM job_events e JOIN jobs j ON j.id = e.job_id "
      "WHERE e.id > ?1 ORDER BY e.id LIMIT ?2");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, after_event).Bind(2, limit);
  std::vector<Change> out;
  while (true) {
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    Change& change = out.emplace_back();
    change.event_id = stmt->ColumnInt(0);
    change.job_id = stmt->ColumnInt(1);
    // Every event but a new stage of a running job may move the job in or out of the queue
    // (queued, leased, requeued, finished: a cancelled queued job leaves it).
    change.queue_changed = stmt->ColumnText(2) != "stage";
    change.owner = stmt->ColumnText(3);
  }
  return out;
}

absl::StatusOr<int64_t> JobStore::LastEventId() {
  std::lock_guard lock(shared_->mutex);
  absl::StatusOr<Statement> stmt = shared_->db->Prepare("SELECT COALESCE(MAX(id), 0) FROM job_events");
  if (!stmt.ok()) return stmt.status();
  absl::StatusOr<bool> row = stmt->Step();
  if (!row.ok()) return row.status();
  return *row ? stmt->ColumnInt(0) : 0;
}

absl::StatusOr<std::vector<int64_t>> JobStore::RunningIds() {
  std::lock_guard lock(shared_->mutex);
  absl::StatusOr<Statement> stmt = shared_->db->Prepare("SELECT id FROM jobs WHERE state = 2");
  if (!stmt.ok()) return stmt.status();
  std::vector<int64_t> out;
  while (true) {
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    out.push_back(stmt->ColumnInt(0));
  }
  return out;
}

namespace {

// GetForUnranked's statement: kJobColumns (checked below) of one job the viewer may see.
constexpr char kSelectVisibleJob[] =
    "SELECT id, problem, state, stage, progress_done, progress_total, attempts, compile_only, "
    "tags_json, worker_id, result_json, created_unix_ms, finished_unix_ms, started_unix_ms, public, "
    "idempotency_key, baselines_only FROM jobs WHERE (?1 = 1 OR api_key_id = ?2) AND id = ?3";
static_assert(std::string_view(kSelectVisibleJob).substr(7, sizeof(kJobColumns) - 1) == kJobColumns,
              "kSelectVisibleJob must select kJobColumns, in order (JobFromRow reads them)");

}  // namespace

absl::StatusOr<std::optional<v1::Job>> JobStore::GetForUnranked(int64_t id, const Viewer& viewer) {
  std::lock_guard lock(shared_->mutex);
  QueryLimits limits(*shared_->db, kServerReadBudget);
  absl::StatusOr<Statement> stmt = shared_->db->Prepare(kSelectVisibleJob);
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, viewer.admin ? 1 : 0).Bind(2, viewer.key_id).Bind(3, id);
  absl::StatusOr<bool> row = stmt->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<v1::Job>();
  v1::Job job = JobFromRow(*stmt);
  if (!viewer.admin) RedactJobForTenant(&job, viewer.key_id);
  return std::optional<v1::Job>(std::move(job));
}

absl::StatusOr<std::vector<std::pair<int64_t, bool>>> JobStore::QueuedFor(const Viewer& viewer) {
  std::lock_guard lock(shared_->mutex);
  // A submitter's: one range of jobs_queue_by_key (at most its active-job cap), then sorted.
  absl::StatusOr<Statement> stmt =
      viewer.admin ? shared_->db->Prepare("SELECT id, compile_only FROM jobs WHERE state = 1 ORDER BY id")
                   : shared_->db->Prepare("SELECT id, compile_only FROM jobs WHERE state = 1 AND api_key_id = ?1 "
                                          "ORDER BY id");
  if (!stmt.ok()) return stmt.status();
  if (!viewer.admin) stmt->Bind(1, viewer.key_id);
  std::vector<std::pair<int64_t, bool>> out;
  while (true) {
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    out.emplace_back(stmt->ColumnInt(0), stmt->ColumnInt(1) != 0);
  }
  return out;
}

}  // namespace kjudge::server
