// DatabaseCheck: is the server's SQLite file whole after a crash, a kill -9 or a full disk?
//
// `kjudge-server --db FILE check` runs it (no server needed; safe while one serves the file: it
// only reads). Three checks, each SQLite's or the queue's own promise:
//   - PRAGMA integrity_check: every page, index and constraint of the file;
//   - PRAGMA foreign_key_check: every reference (a job's source, a tag's job, ...) resolves;
//   - the queue's states: a DONE job has a verdict, a result and a finish time; a RUNNING job has
//     a worker and a lease; a QUEUED job has neither a verdict nor a lease.
// Operators run it after an incident; the fault-injection tests run it after their kills.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/database.h"

namespace kjudge::server {

// What the checks found: one line per problem, at most `max_problems` (the file is whole when
// the list is empty). A check SQLite cannot finish on a damaged file is reported as a problem.
absl::StatusOr<std::vector<std::string>> CheckDatabase(Database& db, int max_problems = 100);

// `kjudge-server --db FILE check [--json]`: prints "ok" (or {"ok":true,...}) and returns 0, or
// prints each problem and returns 1; 2 when the file cannot be opened.
int CheckDatabaseCommand(const std::string& db_path, bool json);

}  // namespace kjudge::server
