// ChildProcess: one child process of kjudge, started from a SpawnSpec that says exactly what it
// gets (argv, environment, descriptors, signal dispositions, process group), and owned until it
// is reaped. The worker starts the judge with it, the judge its candidates, the compiler client
// each kjudge-compiler: one way to start a child instead of three.
//
// Contract:
//  * Spawn() gives the child: stdin /dev/null; stdout and stderr as the spec says (inherited,
//    /dev/null or a descriptor of ours); `channel_fd` as its descriptor 3 (close-on-exec
//    cleared); no other descriptor above 3 (whatever this process holds, close-on-exec or not);
//    exactly `env` as its environment (or ours when unset). Standard descriptors are set up
//    before descriptor 3, so a stdout/stderr descriptor numbered 3 is not overwritten first.
//  * It uses posix_spawn (cheap even from a process with a large address space, e.g. a CUDA
//    process) unless `die_with_parent` asks for PR_SET_PDEATHSIG, which only code running in
//    the child between fork and exec can set; then fork + execv with only async-signal-safe
//    calls in the child. Both give the child the same thing for the same spec.
//  * Errors: INTERNAL with "<call>: <strerror>", the call being "posix_spawn_file_actions",
//    "posix_spawnattr", `spawn_call` (default "posix_spawn") or "fork"; nothing is left
//    running. A child whose exec fails exits with status 127.
//  * The destructor kills (SIGKILL, its group too when it leads one) and reaps a child still
//    owned: a ChildProcess never leaks a running child or a zombie. Release() hands the pid to
//    a caller that reaps it some other way. Not thread-safe.
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace kjudge::process {

struct SpawnSpec {
  static constexpr int kInherit = -1;  // stdout/stderr: the parent's
  static constexpr int kDevNull = -2;  // stdout/stderr: /dev/null (write-only)

  std::string path;               // the executable, also argv[0]
  std::vector<std::string> args;  // argv[1...]
  // The child's whole environment ("NAME=value" each); unset: this process's environ.
  std::optional<std::vector<std::string>> env;
  int channel_fd = -1;            // becomes the child's descriptor 3; -1: none
  int stdout_fd = kInherit;       // kInherit, kDevNull or a descriptor of ours
  int stderr_fd = kInherit;
  bool default_sigpipe = false;   // SIGPIPE back to SIG_DFL (the parent may ignore it)
  bool own_process_group = false; // the child leads a new process group (Kill() hits it all)
  bool die_with_parent = false;   // PR_SET_PDEATHSIG SIGKILL (fork + exec; see above)
  std::string spawn_call = "posix_spawn";  // how the posix_spawn call is named in errors
};

class ChildProcess {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Poll { kRunning, kReaped, kError };

  static absl::StatusOr<ChildProcess> Spawn(const SpawnSpec& spec);

  ChildProcess() = default;
  ~ChildProcess();
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // -1 when empty (default-constructed, moved from or released).
  pid_t pid() const { return pid_; }
  // Spawned, owned and not yet reaped (nor lost to a wait error).
  bool running() const { return pid_ > 0 && !gone_; }

  // SIGKILL to the child (and to its process group when it leads one); nothing once it is
  // reaped, so a recycled pid is never hit.
  void Kill() const;
  // Reaps the child if it has ended, without blocking. kError: the wait failed (e.g. the child
  // is not ours to wait for); it counts as gone from then on.
  Poll PollExit();
  // Waits for the child to end until `deadline` (polling every 2 ms), then kills it and waits.
  // Always returns with the child reaped (or gone); true when it had to be killed.
  bool ReapBy(Clock::time_point deadline);
  // Gives up ownership without killing or reaping: the caller reaps the returned pid.
  pid_t Release();

  // Of the reaped child (zero before): wait status and resource usage (wait4).
  int wait_status() const { return wait_status_; }
  const rusage& usage() const { return usage_; }
  // "exited with status N", "was killed by signal N (Name)" or "ended".
  std::string DescribeExit() const;

 private:
  ChildProcess(pid_t pid, bool group_leader) : pid_(pid), group_leader_(group_leader) {}
  void Reset();

  pid_t pid_ = -1;
  bool group_leader_ = false;
  bool gone_ = false;  // reaped, or lost to a wait error
  int wait_status_ = 0;
  rusage usage_{};
};

}  // namespace kjudge::process
