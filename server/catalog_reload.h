// ReloadCatalog: `kjudge problems reload` and SIGHUP (issue 27 pt9). Re-reads the server's
// problems directory into state->catalog (LiveCatalog::Reload: all or nothing), reroutes queued
// jobs whose problem gained or lost a CUDA reference (JobStore::RouteQueuedJobs, as at start-up)
// and wakes job streams so waiting reasons follow the new catalog.
//
// Contract: on a broken problem returns FAILED_PRECONDITION naming the file and the reason, and
// the previous catalog keeps serving. Otherwise fills the counts and up to 100 names per list
// and logs one line. Safe to call from any thread; reloads are serialised.
#pragma once

#include "absl/status/statusor.h"
#include "kjudge/v1/kjudge.pb.h"
#include "server/server_state.h"

namespace kjudge::server {

absl::StatusOr<v1::ReloadProblemsResponse> ReloadCatalog(ServerState* state);

}  // namespace kjudge::server
