// JobPrefetcher: while the judge runs one job, leases the worker's next job and has a
// compile-only kjudge-runner compile it into the shared cubin cache, so the judge's own
// compile of that job is a cache hit and the GPU never waits for NVRTC.
//
// Contract:
//  * Begin() starts one background step: lease (through the caller's function, which starts
//    the job's LeaseKeeper, so the lease is renewed from the moment it is taken), then compile
//    a compile-only copy of the job in the compile-ahead runner (a baselines-only job has no
//    candidate: it is leased and not compiled). At most one step is in flight:
//    Begin() while one is must not be called (Take() first).
//  * Take() waits for the step and returns the job it leased, or nullopt when there was none
//    (or Begin() was not called). The job is returned even when the compile failed or timed out:
//    the compile-ahead's verdict is thrown away and the judge decides, compiling again on a
//    cache miss (compile errors are never cached). A hostile source therefore costs at most one
//    extra sandboxed compile, overlapped with the job before it.
//  * The compile-ahead runner never touches a GPU (--compile-only) and shares only the cubin
//    cache directory with the judge. Entries are written atomically (CubinCache), and the key
//    covers everything the judge's key covers (source, options, arch, NVRTC version, names),
//    so a compile-ahead can only ever save the judge work, never change what it runs.
//  * Not thread-safe: one WorkerLoop calls it. The destructor waits for a step in flight; a job
//    leased but never taken is the caller's to hand back (WorkerLoop does, when it stops).
#pragma once

#include <functional>
#include <future>
#include <memory>
#include <optional>

#include "kjudge/v1/kjudge.grpc.pb.h"
#include "worker/lease_keeper.h"
#include "worker/runner_supervisor.h"

namespace kjudge::worker {

// A job this worker holds, and the keeper renewing its lease for as long as it is held.
struct LeasedJob {
  v1::LeaseJobResponse lease;
  std::unique_ptr<LeaseKeeper> keeper;
};

class JobPrefetcher {
 public:
  using LeaseFn = std::function<std::optional<LeasedJob>()>;
  using AbortFn = std::function<bool()>;

  // compile_ahead: a started RunnerSupervisor whose runner runs with --compile-only and the
  // judge's --arch and --cache-dir. Not owned; outlives this object.
  explicit JobPrefetcher(RunnerSupervisor* compile_ahead) : compile_ahead_(compile_ahead) {}
  ~JobPrefetcher();
  JobPrefetcher(const JobPrefetcher&) = delete;
  JobPrefetcher& operator=(const JobPrefetcher&) = delete;

  // Leases (lease()) and compiles the next job in the background; should_abort ends a compile
  // early (the worker was told to quit now).
  void Begin(LeaseFn lease, AbortFn should_abort);
  // The job the last Begin() leased, once its compile-ahead has ended; nullopt if none.
  std::optional<LeasedJob> Take();

 private:
  RunnerSupervisor* compile_ahead_;
  std::future<std::optional<LeasedJob>> next_;
};

}  // namespace kjudge::worker
