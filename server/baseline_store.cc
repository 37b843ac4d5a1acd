#include "server/baseline_store.h"

#include "proto/proto_json.h"
#include "common/status_macros.h"

namespace kjudge::server {

absl::StatusOr<std::vector<v1::BaselineTiming>> BaselineStore::Find(
    const std::string& problem, const std::string& hardware_key) {
  std::lock_guard lock(shared_->mutex);
  QueryLimits limits(*shared_->db, kServerReadBudget);
  absl::StatusOr<Statement> stmt = shared_->db->Prepare(
      "SELECT shape, name, timing_json FROM baselines WHERE problem = ? AND hardware_key = ? "
      "ORDER BY shape, name");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, problem).Bind(2, hardware_key);
  std::vector<v1::BaselineTiming> out;
  while (true) {
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    v1::BaselineTiming baseline;
    baseline.set_problem(problem);
    baseline.set_shape(stmt->ColumnText(0));
    baseline.set_name(stmt->ColumnText(1));
    baseline.set_hardware_key(hardware_key);
    KJ_RETURN_IF_ERROR(FromJson(stmt->ColumnText(2), baseline.mutable_timing()));
    out.push_back(std::move(baseline));
  }
  return out;
}

namespace {

absl::StatusOr<std::vector<v1::BaselineTiming>> ReadRows(Statement& stmt) {
  std::vector<v1::BaselineTiming> out;
  while (true) {
    absl::StatusOr<bool> row = stmt.Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    v1::BaselineTiming baseline;
    baseline.set_problem(stmt.ColumnText(0));
    baseline.set_shape(stmt.ColumnText(1));
    baseline.set_name(stmt.ColumnText(2));
    baseline.set_hardware_key(stmt.ColumnText(3));
    KJ_RETURN_IF_ERROR(FromJson(stmt.ColumnText(4), baseline.mutable_timing()));
    out.push_back(std::move(baseline));
  }
  return out;
}

constexpr char kImportedPrefix[] = "imported|";

}  // namespace

absl::StatusOr<std::vector<v1::BaselineTiming>> BaselineStore::List(const std::string& problem_prefix) {
  std::lock_guard lock(shared_->mutex);
  QueryLimits limits(*shared_->db, kServerReadBudget);
  absl::StatusOr<Statement> stmt = shared_->db->Prepare(
      "SELECT problem, shape, name, hardware_key, timing_json FROM baselines "
      "WHERE substr(problem, 1, length(?1)) = ?1 ORDER BY hardware_key, problem, shape, name");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, problem_prefix);
  return ReadRows(*stmt);
}

absl::StatusOr<int64_t> BaselineStore::RemoveMeasured(const std::string& problem_prefix) {
  std::lock_guard lock(shared_->mutex);
  absl::StatusOr<Statement> stmt = shared_->db->Prepare(
      "DELETE FROM baselines WHERE substr(problem, 1, length(?1)) = ?1 "
      "AND substr(hardware_key, 1, length(?2)) != ?2");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, problem_prefix).Bind(2, std::string(kImportedPrefix));
  KJ_RETURN_IF_ERROR(stmt->Run());
  return shared_->db->Changes();
}

absl::StatusOr<std::vector<v1::BaselineTiming>> BaselineStore::FindImported(const std::string& problem,
                                                                            const std::string& gpu_name) {
  std::lock_guard lock(shared_->mutex);
  QueryLimits limits(*shared_->db, kServerReadBudget);
  absl::StatusOr<Statement> stmt = shared_->db->Prepare(
      "SELECT problem, shape, name, hardware_key, timing_json FROM baselines "
      "WHERE problem = ? AND hardware_key = ?");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, problem).Bind(2, std::string(kImportedPrefix) + gpu_name);
  return ReadRows(*stmt);
}

absl::Status BaselineStore::Put(const v1::BaselineTiming& baseline) {
  std::lock_guard lock(shared_->mutex);
  absl::StatusOr<Statement> stmt = shared_->db->Prepare(
      "INSERT INTO baselines(problem, shape, name, hardware_key, median_us, timing_json, "
      "measured_unix_ms) VALUES(?, ?, ?, ?, ?, ?, ?) ON CONFLICT(problem, shape, name, hardware_key) "
      "DO UPDATE SET median_us = excluded.median_us, timing_json = excluded.timing_json, "
      "measured_unix_ms = excluded.measured_unix_ms");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, baseline.problem()).Bind(2, baseline.shape()).Bind(3, baseline.name());
  stmt->Bind(4, baseline.hardware_key());
  stmt->BindDouble(5, baseline.timing().median_us());
  stmt->Bind(6, ToJson(baseline.timing())).Bind(7, shared_->now_ms());
  return stmt->Run();
}

}  // namespace kjudge::server
