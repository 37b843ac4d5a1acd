// ServerState: the parts of a running server that the RPC services share. Owned by main;
// every member outlives the gRPC server.
#pragma once

#include "server/baseline_store.h"
#include "server/job_events.h"
#include "server/job_store.h"
#include "server/problem_catalog.h"
#include "server/submission_intake.h"
#include "server/worker_registry.h"

namespace kjudge::server {

struct ServerState {
  const ProblemCatalog* catalog = nullptr;
  JobStore* jobs = nullptr;
  WorkerRegistry* workers = nullptr;
  BaselineStore* baselines = nullptr;
  JobEvents* events = nullptr;
  IntakeLimits limits;
};

}  // namespace kjudge::server
