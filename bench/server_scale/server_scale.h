// kjudge-bench-server-scale: the server's own ceiling (issue 32, docs/scale.md).
//
//   grow:  a template database (finished jobs made by a real server) multiplied to N stored
//          jobs through server::Database (grow_database.cc).
//   drive: against a running kjudge-server over loopback gRPC, C client threads and W fake GPU
//          workers (the real WorkerService RPCs: register, lease, progress reports, complete
//          with a CORRECT result carrying timings and samples); three timed phases: submit only,
//          work only (lease + progress + complete, draining what the submit phase queued), and
//          both at once. Prints the rates, latencies and the server's CPU (drive.cc).
// bench/server_scale/run.sh puts the two together; docs/scale.md has the figures.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/status.h"

namespace kjudge::bench {

// Multiplies the jobs of the database at `path` (all finished, ids 1..n) until it holds
// `target_jobs`; FAILED_PRECONDITION naming the fix when the template does not qualify.
absl::Status GrowDatabase(const std::string& path, int64_t target_jobs);

struct DriveOptions {
  std::string server = "127.0.0.1:50051";
  std::string submit_key, worker_key;  // "" sends none (a server with auth off)
  std::string problem = "level1/19_ReLU";
  std::string source;  // the submission; each job gets a distinct copy (a counter comment)
  int clients = 8;
  int workers = 8;
  double seconds = 10;   // per phase
  int progress_reports = 4;  // ReportProgress calls per job, as a real worker's stages
  int samples_per_shape = 100;
  int pid = 0;  // the server's process id: its CPU time per phase (0: not measured)
  bool drain = false;  // only submit, then work until the queue is empty (makes a template)
};

// Runs the phases and prints one line per phase; non-OK when an RPC kind failed throughout.
absl::Status Drive(const DriveOptions& options);

}  // namespace kjudge::bench
