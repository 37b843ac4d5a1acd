// CandidateProcess: the judge's handle on one kjudge-candidate child (worker/candidate/), the
// process that runs one job's submitted kernels in a CUDA context of its own, so that no device
// code can reach the judge's memory (its seed, expected outputs, pristine inputs).
//
// Contract:
//  * Spawn() starts the child with a socketpair at its fd 3 (the protocol, candidate.proto),
//    stdin from /dev/null, and stdout+stderr into one pipe that a thread drains into a capped
//    buffer (what submitted kernels print: captured, counted, reported, never parsed). The
//    child's environment holds only what CUDA needs (LD_LIBRARY_PATH, CUDA_*, NVIDIA_*): no
//    key or other secret of the worker reaches it. Spawn returns at once; the child then
//    initialises the CUDA driver (~100-180 ms on an H100) and waits. Open() tells it to create
//    its context (~100 ms more) without waiting; AwaitReady() opens if needed and waits for
//    the context, so a child spawned and opened ahead of its job costs nothing.
//  * Each call sends one request and waits for its reply up to the request timeout. A reply
//    that carries a verdict becomes that verdict's error Status (message and CUDA error kept;
//    never sticky for the judge: only the candidate's own context is lost). No reply in time
//    is TIMEOUT (the child is killed, which ends its kernels); a child that dies is
//    RUNTIME_ERROR saying how it ended. While a call waits, the heartbeat (SetHeartbeat) runs
//    every kHeartbeatEvery: the judge keeps reporting progress while a slow kernel runs, so
//    the worker's stall watchdog never ends the judge for a candidate's slowness; only the
//    candidate is killed, at the request timeout.
//  * Finish() closes the channel and returns what the child printed once its output pipe
//    closes (the child leaves at once when the channel closes; killed after a second if not).
//    The child is reaped in the background: its CUDA context's teardown by the driver costs the
//    judge nothing. The destructor does the same and discards the output.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "kjudge/v1/candidate.pb.h"
#include "worker/gpu/message_channel.h"
#include "worker/gpu/nvrtc_compiler.h"
#include "worker/gpu/timing.h"
#include "worker/process/child_process.h"

namespace kjudge::runner {

struct CandidateOutput {
  std::string text;   // the first kMaxCandidateOutput bytes
  int64_t cut = 0;    // bytes beyond those
};

inline constexpr size_t kMaxCandidateOutput = 64 * 1024;

// One buffer to share with the candidate (a tensor or a scratch buffer).
struct BindBuffer {
  std::string name;
  const DeviceBuffer* buffer = nullptr;  // shared (DeviceBuffer::AllocateGuardedShared)
  bool read_only = false;
};

class CandidateProcess {
 public:
  using Clock = std::chrono::steady_clock;
  // Well under the worker's --stall-timeout (20 s by default).
  static constexpr std::chrono::milliseconds kHeartbeatEvery{2000};

  static absl::StatusOr<std::unique_ptr<CandidateProcess>> Spawn(const std::string& path,
                                                                 int device,
                                                                 std::chrono::milliseconds timeout);
  ~CandidateProcess();
  CandidateProcess(const CandidateProcess&) = delete;
  CandidateProcess& operator=(const CandidateProcess&) = delete;

  // Sends the Open request (once); the ready reply is read by AwaitReady().
  absl::Status Open();
  absl::Status AwaitReady();
  // The job without anything the candidate must not know (seed, reference, baselines).
  absl::Status Load(const v1::RunSpec& run, const CompiledProgram& program);
  absl::Status Bind(int set, bool bench, int shape, const std::vector<BindBuffer>& buffers);
  absl::Status Run(int set, bool sync_each);
  absl::StatusOr<RawSample> Sample(int set);
  absl::Status Release(int set);
  CandidateOutput Finish();
  // Called every kHeartbeatEvery while a call waits for the child's reply (none by default).
  void SetHeartbeat(std::function<void()> beat) { heartbeat_ = std::move(beat); }
  pid_t pid() const { return pid_; }
  // The child's own start-up, from its ready reply (0 before AwaitReady succeeded).
  double init_ms() const { return init_ms_; }
  double context_ms() const { return context_ms_; }

 private:
  CandidateProcess(process::ChildProcess child, ScopedFd channel, ScopedFd output,
                   std::chrono::milliseconds timeout);
  absl::StatusOr<v1::CandidateReply> Call(const v1::CandidateRequest& request,
                                          const std::vector<int>& fds, std::string_view what);
  absl::Status Died(std::string_view what);
  void Reap(std::chrono::milliseconds grace);
  void Drain(int fd);

  process::ChildProcess child_;
  pid_t pid_;  // kept after the child is reaped
  MessageChannel channel_;
  std::chrono::milliseconds timeout_;
  std::function<void()> heartbeat_;
  bool opened_ = false;
  double init_ms_ = 0.0;
  double context_ms_ = 0.0;
  bool ready_ = false;
  bool reaped_ = false;
  std::mutex output_mu_;
  std::condition_variable drained_cv_;
  CandidateOutput output_;  // guarded by output_mu_
  bool drained_ = false;    // guarded by output_mu_: the pipe reached its end
  std::thread drainer_;
};

}  // namespace kjudge::runner

namespace kjudge::runner {

// CandidateLauncher: one fresh candidate per job, started in two steps while the job before
// it runs, so its CUDA start-up (~200-250 ms on an H100) is off the job's path.
//
// Contract: Take() hands over the process started ahead (or starts one now), opened and
// ready. Prestart() spawns the next one if none is waiting: it initialises the driver and
// waits, which may overlap timed runs (cuInit in another process moved no timing quantile of
// an 8 MB or 1 GB copy; bench/probes/ctx_interference.sh). Warm() also opens it: its context
// creation moved the median of a 10 us kernel by 1% and its p99 tail, and slowed another
// process's allocations and IPC imports 3-5x, so a job warms the next one only after its
// last timed run, never during one.
class CandidateLauncher {
 public:
  CandidateLauncher(std::string path, int device, std::chrono::milliseconds timeout)
      : path_(std::move(path)), device_(device), timeout_(timeout) {}
  absl::StatusOr<std::unique_ptr<CandidateProcess>> Take();
  void Prestart();
  void Warm();

 private:
  std::string path_;
  int device_;
  std::chrono::milliseconds timeout_;
  std::unique_ptr<CandidateProcess> next_;
};

}  // namespace kjudge::runner
