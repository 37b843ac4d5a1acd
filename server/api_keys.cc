#include "server/api_keys.h"

#include <openssl/rand.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/escaping.h"
#include "common/log.h"
#include "common/sha256.h"
#include "server/job_store.h"
#include "common/status_macros.h"

namespace kjudge::server {
namespace {

std::string RandomHex(int bytes) {
  std::string raw(static_cast<size_t>(bytes), '\0');
  RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), bytes);
  return absl::BytesToHexString(raw);
}

}  // namespace

std::string RoleName(Role role) {
  switch (role) {
    case Role::kSubmitter: return "submitter";
    case Role::kWorker: return "worker";
    case Role::kAdmin: return "admin";
  }
  return "?";
}

absl::StatusOr<Role> ParseRole(const std::string& name) {
  if (name == "submitter") return Role::kSubmitter;
  if (name == "worker") return Role::kWorker;
  if (name == "admin") return Role::kAdmin;
  return absl::InvalidArgumentError(absl::StrCat("unknown role '", name, "': submitter, worker or admin"));
}

bool RoleAllows(Role have, Role need) { return have == Role::kAdmin || have == need; }

absl::StatusOr<CreatedKey> ApiKeys::Create(const std::string& name, Role role) {
  CreatedKey created;
  created.key.id = absl::StrCat("kj_", RandomHex(4));
  created.key.name = name;
  created.key.role = role;
  created.secret = absl::StrCat(created.key.id, "_", RandomHex(24));
  std::lock_guard lock(shared_->mutex);
  absl::StatusOr<Statement> stmt = shared_->db->Prepare(
      "INSERT INTO api_keys(id, name, role, sha256, created_unix_ms) VALUES(?, ?, ?, ?, ?)");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, created.key.id).Bind(2, name).Bind(3, RoleName(role)).Bind(4, Sha256Hex(created.secret));
  stmt->Bind(5, shared_->now_ms());
  KJ_RETURN_IF_ERROR(stmt->Run());
  return created;
}

absl::StatusOr<std::optional<ApiKey>> ApiKeys::Lookup(const std::string& secret) {
  std::lock_guard lock(shared_->mutex);
  QueryLimits limits(*shared_->db, kServerReadBudget);
  absl::StatusOr<Statement> stmt = shared_->db->Prepare(
      "SELECT id, name, role FROM api_keys WHERE sha256 = ? AND revoked_unix_ms IS NULL");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, Sha256Hex(secret));
  absl::StatusOr<bool> row = stmt->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<ApiKey>();
  absl::StatusOr<Role> role = ParseRole(stmt->ColumnText(2));
  if (!role.ok()) return role.status();
  return std::optional<ApiKey>(ApiKey{stmt->ColumnText(0), stmt->ColumnText(1), *role});
}

absl::StatusOr<bool> ApiKeys::Revoke(const std::string& id) {
  std::lock_guard lock(shared_->mutex);
  Database& db = *shared_->db;
  absl::StatusOr<Transaction> txn = Transaction::Begin(db);
  if (!txn.ok()) return txn.status();
  absl::StatusOr<Statement> stmt =
      db.Prepare("UPDATE api_keys SET revoked_unix_ms = ? WHERE id = ? AND revoked_unix_ms IS NULL");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, shared_->now_ms()).Bind(2, id);
  KJ_RETURN_IF_ERROR(stmt->Run());
  if (db.Changes() != 1) return false;
  // A stolen worker key must not keep the jobs it holds: they go back to the queue now.
  absl::StatusOr<int> requeued = RequeueLeasesOfKey(db, id, shared_->now_ms());
  if (!requeued.ok()) return requeued.status();
  KJ_RETURN_IF_ERROR(txn->Commit());
  spdlog::info("key {} revoked; {} job lease(s) of its workers requeued", id, *requeued);
  return true;
}

absl::StatusOr<std::vector<ApiKey>> ApiKeys::List() {
  std::lock_guard lock(shared_->mutex);
  QueryLimits limits(*shared_->db, kServerReadBudget);
  absl::StatusOr<Statement> stmt =
      shared_->db->Prepare("SELECT id, name, role FROM api_keys WHERE revoked_unix_ms IS NULL ORDER BY created_unix_ms");
  if (!stmt.ok()) return stmt.status();
  std::vector<ApiKey> out;
  while (true) {
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    absl::StatusOr<Role> role = ParseRole(stmt->ColumnText(2));
    if (role.ok()) out.push_back(ApiKey{stmt->ColumnText(0), stmt->ColumnText(1), *role});
  }
  return out;
}

absl::StatusOr<int64_t> ApiKeys::Count() {
  absl::StatusOr<std::vector<ApiKey>> keys = List();
  if (!keys.ok()) return keys.status();
  return static_cast<int64_t>(keys->size());
}

}  // namespace kjudge::server
