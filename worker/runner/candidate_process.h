// CandidateProcess: the judge's handle on one kjudge-candidate child (worker/candidate/), the
// process that runs one job's submitted kernels in a CUDA context of its own, so that no device
// code can reach the judge's memory (its seed, expected outputs, pristine inputs).
//
// Contract:
//  * Spawn() starts the child with a socketpair at its fd 3 (the protocol, candidate.proto),
//    stdin from /dev/null, and stdout+stderr into one pipe that a thread drains into a capped
//    buffer (what submitted kernels print: captured, counted, reported, never parsed). The
//    child's environment holds only what CUDA needs (LD_LIBRARY_PATH, CUDA_*, NVIDIA_*): no
//    key or other secret of the worker reaches it. Spawn returns at once; AwaitReady() waits
//    for the child's CUDA context (~150 ms), so a child spawned ahead of its job costs nothing.
//  * Each call sends one request and waits for its reply up to the request timeout. A reply
//    that carries a verdict becomes that verdict's error Status (message and CUDA error kept;
//    never sticky for the judge: only the candidate's own context is lost). No reply in time
//    is TIMEOUT (the child is killed, which ends its kernels); a child that dies is
//    RUNTIME_ERROR saying how it ended.
//  * Finish() closes the channel and returns what the child printed once its output pipe
//    closes (the child leaves at once when the channel closes; killed after a second if not).
//    The child is reaped in the background: its CUDA context's teardown by the driver costs the
//    judge nothing. The destructor does the same and discards the output.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "kjudge/v1/candidate.pb.h"
#include "worker/runner/message_channel.h"
#include "worker/runner/nvrtc_compiler.h"
#include "worker/runner/timing.h"

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

  static absl::StatusOr<std::unique_ptr<CandidateProcess>> Spawn(const std::string& path,
                                                                 int device,
                                                                 std::chrono::milliseconds timeout);
  ~CandidateProcess();
  CandidateProcess(const CandidateProcess&) = delete;
  CandidateProcess& operator=(const CandidateProcess&) = delete;

  absl::Status AwaitReady();
  // The job without anything the candidate must not know (seed, reference, baselines).
  absl::Status Load(const v1::RunSpec& run, const CompiledProgram& program);
  absl::Status Bind(int set, bool bench, int shape, const std::vector<BindBuffer>& buffers);
  absl::Status Run(int set, bool sync_each);
  absl::StatusOr<RawSample> Sample(int set);
  absl::Status Release(int set);
  CandidateOutput Finish();
  pid_t pid() const { return pid_; }

 private:
  CandidateProcess(pid_t pid, ScopedFd channel, ScopedFd output,
                   std::chrono::milliseconds timeout);
  absl::StatusOr<v1::CandidateReply> Call(const v1::CandidateRequest& request,
                                          const std::vector<int>& fds, std::string_view what);
  absl::Status Died(std::string_view what);
  void Reap(std::chrono::milliseconds grace);
  void Drain(int fd);

  pid_t pid_;
  MessageChannel channel_;
  std::chrono::milliseconds timeout_;
  bool ready_ = false;
  bool reaped_ = false;
  int wait_status_ = 0;
  std::mutex output_mu_;
  std::condition_variable drained_cv_;
  CandidateOutput output_;  // guarded by output_mu_
  bool drained_ = false;    // guarded by output_mu_: the pipe reached its end
  std::thread drainer_;
};

}  // namespace kjudge::runner

namespace kjudge::runner {

// CandidateLauncher: one fresh candidate per job, each started while the job before it is
// still being finished, so its CUDA start-up (~150 ms) is off the job's path.
//
// Contract: Take() hands over the process started ahead (or starts one now); Prestart()
// starts the next one if none is waiting. A job starts the next one as it ends, so its CUDA
// start-up overlaps the worker's round trip and the next job's compile and reference runs.
// Starting it earlier (when a job takes its own, awaited before the timed samples) was
// measured slower on an H100: context creation slowed the running job's checks 3-5x.
class CandidateLauncher {
 public:
  CandidateLauncher(std::string path, int device, std::chrono::milliseconds timeout)
      : path_(std::move(path)), device_(device), timeout_(timeout) {}
  absl::StatusOr<std::unique_ptr<CandidateProcess>> Take();
  void Prestart();

 private:
  std::string path_;
  int device_;
  std::chrono::milliseconds timeout_;
  std::unique_ptr<CandidateProcess> next_;
};

}  // namespace kjudge::runner
