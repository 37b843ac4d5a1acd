#include "server/baseline_store.h"

#include "proto/proto_json.h"

namespace kjudge::server {

absl::StatusOr<std::vector<v1::BaselineTiming>> BaselineStore::Find(
    const std::string& problem, const std::string& hardware_key) {
  std::lock_guard lock(shared_->mutex);
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
    if (absl::Status s = FromJson(stmt->ColumnText(2), baseline.mutable_timing()); !s.ok()) return s;
    out.push_back(std::move(baseline));
  }
  return out;
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
