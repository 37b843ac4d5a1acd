// RunnerSupervisor: keeps one kjudge-runner child alive and runs jobs through it under a
// watchdog. The worker process itself never loads a submission.
//
// Contract:
//  * Start spawns the runner and reads its Hello (the GPU it drives, or compile-only mode).
//    The first Hello with complete measurements (ceilings and a calibrated event overhead) is
//    passed to every later runner as --measured-gpu, so a restart after a fault or a timeout
//    does not measure the GPU again (the runner checks that it describes the same GPU).
//  * Run sends one RunSpec and returns exactly one outcome:
//      - the runner's own result (it reported a verdict). When the result says runner_exits
//        (RUNTIME_ERROR after a sticky CUDA fault) the runner exits and is started afresh next
//        time; a non-sticky RUNTIME_ERROR (a guard band caught an out-of-bounds write) keeps it;
//      - a TIMEOUT verdict made here, when the runner went quiet for longer than the limit of
//        its current stage (compile limit while compiling, stall limit otherwise) or the job
//        ran past the job limit: the runner's whole process group is killed, which ends its
//        kernels and frees the GPU, and a fresh runner serves the next job;
//      - a hand-back, when the runner died without a verdict or should_abort() said so: the job
//        goes back to the queue (bounded attempts on the server).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kjudge/v1/runner.pb.h"
#include "worker/runner_process.h"

namespace kjudge::worker {

struct WatchdogLimits {
  std::chrono::milliseconds hello{60000};
  std::chrono::milliseconds compile{60000};
  std::chrono::milliseconds stall{20000};
  std::chrono::milliseconds job{600000};
};

struct RunOutcome {
  bool handed_back = false;
  v1::RunnerResult result;  // when !handed_back
  std::string reason;       // when handed_back
};

class RunnerSupervisor {
 public:
  // `compiles_ahead`: this runner is the worker's second, compile-only one (started with
  // --compile-only on purpose beside a GPU judge); its start is logged as that, not as the
  // "compile-only mode" warning that tells an operator the worker found no GPU.
  RunnerSupervisor(std::string runner_path, std::vector<std::string> runner_args, WatchdogLimits limits,
                   bool compiles_ahead = false)
      : runner_path_(std::move(runner_path)), runner_args_(std::move(runner_args)), limits_(limits),
        compiles_ahead_(compiles_ahead) {}

  absl::StatusOr<v1::GpuInfo> Start();
  const v1::GpuInfo& gpu() const { return gpu_; }
  int restarts() const { return restarts_; }

  using ProgressCallback = std::function<void(const v1::RunnerProgress&)>;
  // should_abort is polled at least every 200 ms.
  RunOutcome Run(const v1::RunSpec& spec, const ProgressCallback& on_progress,
                 const std::function<bool()>& should_abort);

 private:
  RunOutcome Timeout(v1::Stage stage, const v1::RunnerProgress& last, bool job_limit);
  RunOutcome HandBack(std::string reason);
  void Stop();

  std::string runner_path_;
  std::vector<std::string> runner_args_;
  WatchdogLimits limits_;
  bool compiles_ahead_;
  std::unique_ptr<RunnerProcess> process_;
  v1::GpuInfo gpu_;
  std::optional<v1::GpuInfo> measured_;  // the first runner's complete measurements
  int restarts_ = -1;
};

}  // namespace kjudge::worker
