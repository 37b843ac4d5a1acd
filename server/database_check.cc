#include "server/database_check.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "spdlog/spdlog.h"

namespace kjudge::server {
namespace {

// Appends each row's columns, joined, to `problems` (until the cap). `ok_row` is the one row
// that means "nothing found" (integrity_check answers a single "ok").
absl::Status CollectRows(Database& db, SqlText sql, std::string_view ok_row, int max_problems,
                         std::vector<std::string>* problems) {
  absl::StatusOr<Statement> statement = db.Prepare(sql);
  if (!statement.ok()) return statement.status();
  for (;;) {
    absl::StatusOr<bool> row = statement->Step();
    if (!row.ok()) return row.status();
    if (!*row) return absl::OkStatus();
    std::string line = statement->ColumnText(0);
    for (int column = 1; column < 4 && !statement->ColumnIsNull(column); ++column) {
      absl::StrAppend(&line, " ", statement->ColumnText(column));
    }
    if (line == ok_row) continue;
    if (static_cast<int>(problems->size()) < max_problems) problems->push_back(std::move(line));
  }
}

}  // namespace

absl::StatusOr<std::vector<std::string>> CheckDatabase(Database& db, int max_problems) {
  std::vector<std::string> problems;
  // A check SQLite cannot finish (SQLITE_CORRUPT: "database disk image is malformed") is itself
  // the finding; the other checks still run.
  const auto run = [&](SqlText sql, std::string_view ok_row) {
    if (absl::Status s = CollectRows(db, sql, ok_row, max_problems, &problems); !s.ok()) {
      if (static_cast<int>(problems.size()) < max_problems) {
        problems.push_back(absl::StrCat("SQLite cannot read the file: ", s.message()));
      }
    }
  };
  // integrity_check's argument caps the rows it returns; foreign_key_check's rows are (table,
  // rowid, parent table, constraint index).
  run("PRAGMA integrity_check(100)", "ok");
  run("SELECT 'foreign key: ' || \"table\", rowid, 'references missing', parent FROM pragma_foreign_key_check", "");
  // The queue's states (kjudge.v1.JobState: 1 QUEUED, 2 RUNNING, 3 DONE).
  run("SELECT 'job ' || id, CASE "
      "  WHEN state = 3 AND (verdict IS NULL OR result_json IS NULL OR finished_unix_ms IS NULL) "
      "    THEN 'is DONE without a verdict, a result or a finish time' "
      "  WHEN state = 2 AND (worker_id IS NULL OR lease_expires_unix_ms IS NULL) "
      "    THEN 'is RUNNING without a worker or a lease' "
      "  WHEN state = 1 AND (verdict IS NOT NULL OR lease_expires_unix_ms IS NOT NULL) "
      "    THEN 'is QUEUED with a verdict or a lease' "
      "  ELSE 'has an unknown state ' || state END "
      "FROM jobs WHERE NOT ("
      "  (state = 3 AND verdict IS NOT NULL AND result_json IS NOT NULL AND finished_unix_ms IS NOT NULL) OR "
      "  (state = 2 AND worker_id IS NOT NULL AND lease_expires_unix_ms IS NOT NULL) OR "
      "  (state = 1 AND verdict IS NULL AND lease_expires_unix_ms IS NULL)) "
      "ORDER BY id LIMIT 100",
      "");
  return problems;
}

int CheckDatabaseCommand(const std::string& db_path, bool json) {
  absl::StatusOr<std::unique_ptr<Database>> db = Database::OpenReadOnly(db_path);
  if (!db.ok()) {
    spdlog::error("{}", std::string(db.status().message()));
    return 2;
  }
  absl::StatusOr<std::vector<std::string>> problems = CheckDatabase(**db);
  if (!problems.ok()) {
    spdlog::error("cannot check {}: {}", db_path, std::string(problems.status().message()));
    return 2;
  }
  if (json) {
    const nlohmann::json report = {{"ok", problems->empty()}, {"problems", *problems}};
    std::printf("%s\n", report.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace).c_str());
  } else if (problems->empty()) {
    std::printf("ok: %s passes SQLite's integrity and foreign-key checks and the queue's states\n", db_path.c_str());
  } else {
    for (const std::string& problem : *problems) std::printf("%s\n", problem.c_str());
    std::fprintf(stderr, "%zu problem(s) in %s: restore it from a backup or copy out what still reads (server/README.md, section The database)\n", problems->size(),
                 db_path.c_str());
  }
  return problems->empty() ? 0 : 1;
}

}  // namespace kjudge::server
