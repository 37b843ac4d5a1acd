#include "server/worker_capacity.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "proto/proto_json.h"
#include "server/problem_catalog.h"
#include "spdlog/spdlog.h"

namespace kjudge::server {
namespace {

std::string Count(int64_t n, const char* what) {
  return absl::StrCat(n, " ", what, " worker", n == 1 ? "" : "s");
}

// "1 compile-only worker, 2 GPU workers without PyTorch", or "none".
std::string Connected(const WorkerCapacity& c) {
  std::vector<std::string> parts;
  if (c.compile_only > 0) parts.push_back(Count(c.compile_only, "compile-only"));
  if (c.gpu > 0) parts.push_back(Count(c.gpu, "GPU") + " without PyTorch");
  if (c.gpu_torch > 0) parts.push_back(Count(c.gpu_torch, "GPU") + " with PyTorch");
  if (parts.empty()) return "no worker is connected";
  return absl::StrJoin(parts, ", ");
}

}  // namespace

std::string WaitingReason(const v1::Job& job, bool needs_pytorch, const WorkerCapacity& capacity) {
  if (job.state() != v1::QUEUED) return "";
  const int64_t gpu = capacity.gpu + capacity.gpu_torch;
  if (job.compile_only()) {
    if (capacity.compile_only + gpu > 0) return "";
    return "no connected worker can judge this job: no worker is connected; start a worker "
           "(kjudge-worker --server ADDRESS; without a GPU it compiles only)";
  }
  const bool torch = needs_pytorch && !job.baselines_only();
  if (torch ? capacity.gpu_torch > 0 : gpu > 0) return "";
  const std::string connected = Connected(capacity);
  if (torch) {
    return absl::StrCat("no connected worker can judge this job: its problem has no CUDA reference and needs a "
                        "GPU worker with PyTorch (python3 with torch); connected: ", connected,
                        "; submit with --compile-only or start a GPU worker with PyTorch");
  }
  if (job.baselines_only()) {
    return absl::StrCat("no connected worker can judge this job: a baselines-only job needs a GPU worker; "
                        "connected: ", connected, "; start a GPU worker");
  }
  return absl::StrCat("no connected worker can judge this job: ", connected,
                      "; submit with --compile-only or start a GPU worker");
}

absl::StatusOr<WorkerCapacity> WorkerCapacityCache::Get() {
  std::lock_guard lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  if (have_ && now - read_at_ < max_age_) return cached_;
  absl::StatusOr<WorkerCapacity> read = Read();
  if (!read.ok()) return read.status();
  cached_ = *read;
  read_at_ = now;
  have_ = true;
  return cached_;
}

void WorkerCapacityCache::Invalidate() {
  std::lock_guard lock(mutex_);
  have_ = false;
}

absl::StatusOr<WorkerCapacity> WorkerCapacityCache::Read() {
  std::lock_guard lock(shared_->mutex);
  QueryLimits limits(*shared_->db, kServerReadBudget);
  // Connected: called in within the window, or holding a running job's lease (state 2).
  absl::StatusOr<Statement> stmt = shared_->db->Prepare(
      "SELECT gpu_json FROM workers w WHERE w.last_seen_unix_ms >= ? OR EXISTS "
      "(SELECT 1 FROM jobs j WHERE j.worker_id = w.id AND j.state = 2)");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, shared_->now_ms() - kConnectedWindowMs);
  WorkerCapacity capacity;
  while (true) {
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    v1::GpuInfo gpu;
    if (absl::Status s = FromJson(stmt->ColumnText(0), &gpu); !s.ok()) continue;  // unreadable: not counted
    if (gpu.compile_only()) {
      ++capacity.compile_only;
    } else if (!gpu.torch_version().empty()) {
      ++capacity.gpu_torch;
    } else {
      ++capacity.gpu;
    }
  }
  return capacity;
}

void WorkerCapacityCache::Annotate(const ProblemCatalog* catalog, v1::Job* job) {
  job->clear_waiting_reason();
  if (job->state() != v1::QUEUED) return;
  absl::StatusOr<WorkerCapacity> capacity = Get();
  if (!capacity.ok()) {
    spdlog::warn("worker capacity unreadable: {}", capacity.status().ToString());
    return;
  }
  const CatalogEntry* entry = catalog == nullptr ? nullptr : catalog->Find(job->problem());
  const bool needs_pytorch = entry != nullptr && entry->proto.needs_pytorch();
  job->set_waiting_reason(WaitingReason(*job, needs_pytorch, *capacity));
}

}  // namespace kjudge::server
