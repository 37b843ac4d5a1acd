// kjudge-bench-server-scale grow: multiplies the finished jobs of a database made by a real
// server (the template) until it stores --jobs jobs, through the server's own Database class
// (migrations, SqlText): each round copies the jobs rows (their insert triggers fill job_tags,
// job_metrics and job_stats as the server's own inserts do) and their job_events and
// job_samples rows, in one transaction, without fsync (a benchmark's file, not a deployment's).
#include "bench/server_scale/server_scale.h"

#include <cstdio>

#include "server/database.h"
#include "server/migrations.h"

namespace kjudge::bench {
namespace {

using server::Database;
using server::Sql;
using server::Statement;

// The jobs columns a copy keeps as they are (all but id and idempotency_key, then the last three).
constexpr char kColumns[] =
    "problem, source_sha256, filename, launch_plan, plan_first_line, compile_only, tags_json, seed, state, "
    "stage, progress_done, progress_total, attempts, max_attempts, worker_id, lease_expires_unix_ms, verdict, "
    "result_json, created_unix_ms, started_unix_ms, finished_unix_ms, api_key_id, lease_token, public, ";
constexpr char kLastColumns[] = "idempotency_key, request_sha256, needs_torch, baselines_only";
constexpr char kCopiedLast[] = "'', request_sha256, needs_torch, baselines_only FROM jobs WHERE id <= ";

absl::StatusOr<int64_t> QueryInt(Database& db, server::SqlText sql) {
  absl::StatusOr<Statement> stmt = db.Prepare(sql);
  if (!stmt.ok()) return stmt.status();
  absl::StatusOr<bool> row = stmt->Step();
  if (!row.ok()) return row.status();
  return *row ? stmt->ColumnInt(0) : 0;
}

// Copies jobs 1..take as jobs offset+1..offset+take (ids are contiguous: checked by the caller),
// with their events and samples. Idempotency keys are dropped (they are unique per key).
absl::Status CopyRound(Database& db, int64_t offset, int64_t take) {
  absl::StatusOr<server::Transaction> txn = server::Transaction::Begin(db);
  if (!txn.ok()) return txn.status();
  Sql copy_jobs = Sql::Join({"INSERT INTO jobs(", kColumns, kLastColumns, ") SELECT ", kColumns, kCopiedLast});
  copy_jobs.AppendInteger(take).Append(" ORDER BY id");
  if (absl::Status s = db.Execute(copy_jobs); !s.ok()) return s;
  if (absl::Status s = db.Execute(
          Sql("INSERT INTO job_events(job_id, at_unix_ms, event, attempt, worker_id, stage, verdict, detail) SELECT job_id + ")
              .AppendInteger(offset)
              .Append(", at_unix_ms, event, attempt, worker_id, stage, verdict, detail FROM job_events WHERE job_id <= ")
              .AppendInteger(take)
              .Append(" ORDER BY id"));
      !s.ok()) {
    return s;
  }
  if (absl::Status s = db.Execute(Sql("INSERT INTO job_samples(job_id, idx, shape, samples) SELECT job_id + ")
                                      .AppendInteger(offset)
                                      .Append(", idx, shape, samples FROM job_samples WHERE job_id <= ")
                                      .AppendInteger(take));
      !s.ok()) {
    return s;
  }
  return txn->Commit();
}

}  // namespace

absl::Status GrowDatabase(const std::string& path, int64_t target_jobs) {
  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(path);
  if (!db.ok()) return db.status();
  if (absl::Status s = server::ApplyMigrations(**db, server::BuiltinMigrations()); !s.ok()) return s;
  if (absl::Status s = (*db)->Execute("PRAGMA synchronous=OFF"); !s.ok()) return s;
  absl::StatusOr<int64_t> unfinished = QueryInt(**db, "SELECT COUNT(*) FROM jobs WHERE state != 3");
  if (!unfinished.ok()) return unfinished.status();
  if (*unfinished != 0) {
    return absl::FailedPreconditionError(absl::StrCat(path, ": ", *unfinished,
                                                      " jobs are not finished; make the template with --drain"));
  }
  while (true) {
    absl::StatusOr<int64_t> count = QueryInt(**db, "SELECT COUNT(*) FROM jobs");
    absl::StatusOr<int64_t> max_id = QueryInt(**db, "SELECT COALESCE(MAX(id), 0) FROM jobs");
    absl::StatusOr<int64_t> sequence =
        QueryInt(**db, "SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'jobs'), 0)");
    if (!count.ok()) return count.status();
    if (!max_id.ok()) return max_id.status();
    if (!sequence.ok()) return sequence.status();
    if (*count == 0) return absl::FailedPreconditionError(absl::StrCat(path, ": no jobs to copy; run drive first"));
    if (*count != *max_id || *sequence != *count) {
      return absl::FailedPreconditionError(
          absl::StrCat(path, ": job ids are not 1..", *count, " (max ", *max_id, "); grow only a fresh template"));
    }
    if (*count >= target_jobs) break;
    const int64_t take = std::min(*count, target_jobs - *count);
    if (absl::Status s = CopyRound(**db, *count, take); !s.ok()) return s;
    const int64_t grown = *count + take;
    std::fprintf(stderr, "grow: %lld jobs\n", static_cast<long long>(grown));
  }
  // A checkpoint now, so the server under test starts with an empty WAL.
  return (*db)->Execute("PRAGMA wal_checkpoint(TRUNCATE)");
}

}  // namespace kjudge::bench
