#include "server/migrations.h"

#include "absl/strings/str_cat.h"
#include "common/log.h"

namespace kjudge::server {
namespace {

absl::StatusOr<int> UserVersion(Database& db) {
  absl::StatusOr<Statement> stmt = db.Prepare("PRAGMA user_version");
  if (!stmt.ok()) return stmt.status();
  absl::StatusOr<bool> row = stmt->Step();
  if (!row.ok()) return row.status();
  return static_cast<int>(stmt->ColumnInt(0));
}

}  // namespace

absl::Status ApplyMigrations(Database& db, const std::vector<Migration>& migrations) {
  absl::StatusOr<int> current = UserVersion(db);
  if (!current.ok()) return current.status();
  const int newest = migrations.empty() ? 0 : migrations.back().version;
  if (*current > newest) {
    return absl::FailedPreconditionError(absl::StrCat(
        "database schema version ", *current, " is newer than this server knows (", newest,
        "): run a newer kjudge-server, or point --db at another file"));
  }
  for (const Migration& migration : migrations) {
    if (migration.version <= *current) continue;
    absl::StatusOr<Transaction> txn = Transaction::Begin(db);
    if (!txn.ok()) return txn.status();
    absl::Status status = db.Execute(migration.sql);
    if (status.ok()) status = db.Execute(Sql("PRAGMA user_version = ").AppendInteger(migration.version));
    if (status.ok()) status = txn->Commit();
    if (!status.ok()) {
      return absl::InternalError(
          absl::StrCat("migration ", migration.version, " (", std::string(migration.name), ") failed: ", status.message()));
    }
    spdlog::info("applied schema migration {} ({})", migration.version, migration.name);
  }
  return absl::OkStatus();
}

}  // namespace kjudge::server
