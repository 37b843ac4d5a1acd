#include "server/worker_registry.h"

#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "proto/proto_json.h"
#include "common/status_macros.h"

namespace kjudge::server {
namespace {

std::string NewWorkerId() {
  std::random_device device;
  std::uniform_int_distribution<uint64_t> dist;
  return absl::StrFormat("w-%016x", dist(device));
}

}  // namespace

absl::StatusOr<WorkerRecord> WorkerRegistry::Register(const std::string& name,
                                                      const v1::GpuInfo& gpu,
                                                      const std::string& api_key_id) {
  WorkerRecord record{NewWorkerId(), name, gpu, HardwareKey(gpu), api_key_id};
  std::lock_guard lock(shared_->mutex);
  absl::StatusOr<Statement> stmt = shared_->db->Prepare(
      "INSERT INTO workers(id, name, gpu_json, hardware_key, registered_unix_ms, last_seen_unix_ms, "
      "api_key_id) VALUES(?, ?, ?, ?, ?, ?, ?)");
  if (!stmt.ok()) return stmt.status();
  const int64_t now = shared_->now_ms();
  stmt->Bind(1, record.id).Bind(2, name).Bind(3, ToJson(gpu)).Bind(4, record.hardware_key);
  stmt->Bind(5, now).Bind(6, now).Bind(7, api_key_id);
  KJ_RETURN_IF_ERROR(stmt->Run());
  return record;
}

absl::StatusOr<std::optional<WorkerRecord>> WorkerRegistry::Find(const std::string& id) {
  std::lock_guard lock(shared_->mutex);
  QueryLimits limits(*shared_->db, kServerReadBudget);
  absl::StatusOr<Statement> stmt =
      shared_->db->Prepare("SELECT name, gpu_json, hardware_key, api_key_id FROM workers WHERE id = ?");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, id);
  absl::StatusOr<bool> row = stmt->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<WorkerRecord>();
  WorkerRecord record;
  record.id = id;
  record.name = stmt->ColumnText(0);
  KJ_RETURN_IF_ERROR(FromJson(stmt->ColumnText(1), &record.gpu));
  record.hardware_key = stmt->ColumnText(2);
  record.api_key_id = stmt->ColumnText(3);
  return std::optional<WorkerRecord>(std::move(record));
}

absl::Status WorkerRegistry::Touch(const std::string& id) {
  std::lock_guard lock(shared_->mutex);
  absl::StatusOr<Statement> stmt =
      shared_->db->Prepare("UPDATE workers SET last_seen_unix_ms = ? WHERE id = ?");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, shared_->now_ms()).Bind(2, id);
  return stmt->Run();
}

absl::StatusOr<int64_t> WorkerRegistry::CountSeenSince(int64_t since_unix_ms) {
  std::lock_guard lock(shared_->mutex);
  QueryLimits limits(*shared_->db, kServerReadBudget);
  absl::StatusOr<Statement> stmt =
      shared_->db->Prepare("SELECT COUNT(*) FROM workers WHERE last_seen_unix_ms >= ?");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, since_unix_ms);
  absl::StatusOr<bool> row = stmt->Step();
  if (!row.ok()) return row.status();
  return stmt->ColumnInt(0);
}

}  // namespace kjudge::server
