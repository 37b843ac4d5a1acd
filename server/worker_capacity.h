// WorkerCapacity: which kinds of connected workers the server has, and why a queued job none of
// them can take waits (issue 27 point 4: no silent waiting).
//
// Contract: a worker is connected when it called in (LeaseNext) within kConnectedWindowMs, or
// holds a running job's lease (a busy worker does not poll). Each connected worker is one of
// three kinds, from the GpuInfo it registered: compile-only (no GPU), a GPU worker without the
// PyTorch oracle, a GPU worker with it (GpuInfo.torch_version). Who can take what mirrors
// JobStore::LeaseNext: a compile-only job any worker; a GPU job (baselines-only included) a GPU
// worker; a GPU job of a PyTorch-only problem (no reference.cu) a GPU worker with the oracle.
// WaitingReason is "" for a job that is not queued or that some connected worker can take;
// otherwise one sentence that says what is missing, what is connected and what to do. A reason
// follows the workers on open streams too: WatchHub re-annotates the queued jobs of every open
// stream when the capacity changes (a worker registers: at once; one leaves the window: within
// the hub's fallback round, about 2.5 s).
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "kjudge/v1/kjudge.pb.h"
#include "server/shared_database.h"

namespace kjudge::server {

class ProblemCatalog;

inline constexpr int64_t kConnectedWindowMs = 60000;

struct WorkerCapacity {
  int64_t compile_only = 0;  // connected workers without a GPU
  int64_t gpu = 0;           // connected GPU workers without the PyTorch oracle
  int64_t gpu_torch = 0;     // connected GPU workers with it
  bool operator==(const WorkerCapacity&) const = default;
};

// "" when `job` is not queued or some worker counted in `capacity` can take it; else why not
// (e.g. "no connected worker can judge this job: 1 compile-only worker; submit with
// --compile-only or start a GPU worker"). `needs_pytorch`: the job's problem has no CUDA
// reference (ProblemSummary.needs_pytorch).
std::string WaitingReason(const v1::Job& job, bool needs_pytorch, const WorkerCapacity& capacity);

// Reads the connected workers from the database at most once per `max_age` (every job a client
// reads would otherwise cost a scan of the workers table); thread-safe.
class WorkerCapacityCache {
 public:
  explicit WorkerCapacityCache(SharedDatabase* shared,
                               std::chrono::milliseconds max_age = std::chrono::milliseconds(500))
      : shared_(shared), max_age_(max_age) {}

  absl::StatusOr<WorkerCapacity> Get();
  // The next Get reads the database: a worker registered (WorkerService::RegisterWorker), so
  // the open streams' reasons (WatchHub) must not wait out max_age.
  void Invalidate();
  // Sets job->waiting_reason (proto field 43) from the current capacity and the catalog; leaves
  // it empty when the capacity cannot be read (a database error is logged, never shown).
  void Annotate(const ProblemCatalog* catalog, v1::Job* job);

 private:
  absl::StatusOr<WorkerCapacity> Read();

  SharedDatabase* shared_;
  std::chrono::milliseconds max_age_;
  std::mutex mutex_;
  bool have_ = false;
  std::chrono::steady_clock::time_point read_at_;
  WorkerCapacity cached_;
};

}  // namespace kjudge::server
