// RunnerProcess: one kjudge-runner child, talked to over a socketpair at its descriptor 3
// (--protocol-fd 3): never its stdout, which goes to the worker's log like its stderr.
//
// Contract: Spawn starts the child in its own process group with a parent-death signal, so a
// worker that dies takes its runner (and the GPU context) with it. Lines are the runner
// protocol's JSON messages (proto/kjudge/v1/runner.proto). ReadLine waits at most until the
// deadline. Kill sends SIGKILL to the whole group and reaps it; the destructor kills a child
// still running. Nothing here blocks without a deadline.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "worker/process/child_process.h"

namespace kjudge::worker {

class RunnerProcess {
 public:
  using Clock = std::chrono::steady_clock;

  static absl::StatusOr<std::unique_ptr<RunnerProcess>> Spawn(const std::string& path,
                                                              const std::vector<std::string>& args);
  ~RunnerProcess();
  RunnerProcess(const RunnerProcess&) = delete;
  RunnerProcess& operator=(const RunnerProcess&) = delete;

  absl::Status WriteLine(const std::string& line);
  // A line without its newline; DeadlineExceeded on timeout; Unavailable at end of stream.
  absl::StatusOr<std::string> ReadLine(Clock::time_point deadline);
  void Kill();
  // Waits for the child to exit (up to `timeout`) and describes how it ended, e.g.
  // "exited with status 3" or "killed by signal 11 (Segmentation fault)".
  std::string WaitAndDescribe(std::chrono::milliseconds timeout);
  // The exit status once reaped, if it exited normally.
  std::optional<int> exit_code() const { return exit_code_; }
  pid_t pid() const { return pid_; }  // kept after the child is reaped

 private:
  RunnerProcess(process::ChildProcess child, int in_fd, int out_fd)
      : child_(std::move(child)), pid_(child_.pid()), in_fd_(in_fd), out_fd_(out_fd) {}

  process::ChildProcess child_;
  pid_t pid_;
  int in_fd_;
  int out_fd_;
  std::string buffer_;
  bool reaped_ = false;
  std::optional<int> exit_code_;
};

}  // namespace kjudge::worker
