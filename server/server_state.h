// ServerState: the parts of a running server that the RPC services share. Owned by main;
// every member outlives the gRPC server.
#pragma once

#include "server/authorizer.h"
#include "server/baseline_store.h"
#include "server/job_events.h"
#include "server/job_store.h"
#include "server/problem_catalog.h"
#include "server/rate_limiter.h"
#include "server/server_metrics.h"
#include "server/submission_intake.h"
#include "server/worker_capacity.h"
#include "server/worker_registry.h"

namespace kjudge::server {

struct ServerState {
  LiveCatalog* catalog = nullptr;  // replaced whole by `kjudge problems reload` or SIGHUP
  JobStore* jobs = nullptr;
  WorkerRegistry* workers = nullptr;
  BaselineStore* baselines = nullptr;
  JobEvents* events = nullptr;
  IntakeLimits limits;
  const Authorizer* auth = nullptr;
  RateLimiter* submit_rate = nullptr;
  int64_t max_active_jobs_per_key = 0;  // queued + running; 0: no cap
  ServerMetrics* metrics = nullptr;
  // Connected workers by kind: a queued job none can take says why (Job.waiting_reason).
  WorkerCapacityCache* capacity = nullptr;
};

}  // namespace kjudge::server
