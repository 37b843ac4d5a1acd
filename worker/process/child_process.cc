#include "worker/process/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"

extern char** environ;

namespace kjudge::process {
namespace {

constexpr int kChannelFd = 3;

absl::Status Failed(const std::string& call, int err) {
  return absl::InternalError(absl::StrCat(call, ": ", std::strerror(err)));
}

// argv / envp arrays pointing into `storage`, which must outlive them.
std::vector<char*> NullTerminated(std::vector<std::string>& storage) {
  std::vector<char*> out;
  out.reserve(storage.size() + 1);
  for (std::string& s : storage) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

class FileActions {
 public:
  FileActions() { posix_spawn_file_actions_init(&actions_); }
  ~FileActions() { posix_spawn_file_actions_destroy(&actions_); }
  FileActions(const FileActions&) = delete;
  FileActions& operator=(const FileActions&) = delete;
  posix_spawn_file_actions_t* get() { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_{};
};

class SpawnAttr {
 public:
  SpawnAttr() { posix_spawnattr_init(&attr_); }
  ~SpawnAttr() { posix_spawnattr_destroy(&attr_); }
  SpawnAttr(const SpawnAttr&) = delete;
  SpawnAttr& operator=(const SpawnAttr&) = delete;
  posix_spawnattr_t* get() { return &attr_; }

 private:
  posix_spawnattr_t attr_{};
};

// One standard output stream of the child as the spec says (0 when there is nothing to do).
int AddOutput(posix_spawn_file_actions_t* actions, int target, int fd) {
  if (fd == SpawnSpec::kInherit) return 0;
  if (fd == SpawnSpec::kDevNull) {
    return posix_spawn_file_actions_addopen(actions, target, "/dev/null", O_WRONLY, 0);
  }
  return posix_spawn_file_actions_adddup2(actions, fd, target);
}

absl::StatusOr<pid_t> PosixSpawn(const SpawnSpec& spec, char* const* argv, char* const* envp) {
  FileActions actions;
  int rc = posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  if (rc == 0) rc = AddOutput(actions.get(), STDOUT_FILENO, spec.stdout_fd);
  if (rc == 0) rc = AddOutput(actions.get(), STDERR_FILENO, spec.stderr_fd);
  // dup2 onto 3 clears close-on-exec (also when channel_fd is already 3: glibc >= 2.29).
  if (rc == 0 && spec.channel_fd >= 0) {
    rc = posix_spawn_file_actions_adddup2(actions.get(), spec.channel_fd, kChannelFd);
  }
  if (rc == 0) rc = posix_spawn_file_actions_addclosefrom_np(actions.get(), kChannelFd + 1);
  if (rc != 0) return Failed("posix_spawn_file_actions", rc);

  SpawnAttr attr;
  short flags = 0;
  sigset_t defaults;
  sigemptyset(&defaults);
  if (spec.default_sigpipe) {
    sigaddset(&defaults, SIGPIPE);
    rc = posix_spawnattr_setsigdefault(attr.get(), &defaults);
    flags |= POSIX_SPAWN_SETSIGDEF;
  }
  if (rc == 0 && spec.own_process_group) {
    rc = posix_spawnattr_setpgroup(attr.get(), 0);
    flags |= POSIX_SPAWN_SETPGROUP;
  }
  if (rc == 0) rc = posix_spawnattr_setflags(attr.get(), flags);
  if (rc != 0) return Failed("posix_spawnattr", rc);

  pid_t pid = -1;
  rc = posix_spawn(&pid, spec.path.c_str(), actions.get(), attr.get(), argv, envp);
  if (rc != 0) return Failed(spec.spawn_call, rc);
  return pid;
}

void DupOutput(int target, int fd) {
  if (fd == SpawnSpec::kInherit) return;
  if (fd == SpawnSpec::kDevNull) {
    const int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (devnull >= 0) dup2(devnull, target);
    return;
  }
  dup2(fd, target);
}

// In the child, between fork and exec: only async-signal-safe calls.
[[noreturn]] void ExecChild(const SpawnSpec& spec, char* const* argv, char* const* envp) {
  if (spec.own_process_group) setpgid(0, 0);
  if (spec.die_with_parent) prctl(PR_SET_PDEATHSIG, SIGKILL);
  const int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (devnull >= 0) dup2(devnull, STDIN_FILENO);
  DupOutput(STDOUT_FILENO, spec.stdout_fd);
  DupOutput(STDERR_FILENO, spec.stderr_fd);
  if (spec.channel_fd >= 0) {
    if (spec.channel_fd == kChannelFd) {
      fcntl(kChannelFd, F_SETFD, 0);  // dup2 onto itself would leave close-on-exec set
    } else {
      dup2(spec.channel_fd, kChannelFd);
    }
  }
  // Close everything else we inherited (sockets, the database, other pipes).
  if (syscall(SYS_close_range, kChannelFd + 1, ~0U, 0) != 0) {
    for (int fd = kChannelFd + 1; fd < 1024; ++fd) close(fd);
  }
  if (spec.default_sigpipe) signal(SIGPIPE, SIG_DFL);
  if (envp == environ) {
    execv(argv[0], argv);
  } else {
    execve(argv[0], argv, envp);
  }
  _exit(127);
}

absl::StatusOr<pid_t> ForkExec(const SpawnSpec& spec, char* const* argv, char* const* envp) {
  const pid_t pid = fork();
  if (pid < 0) return Failed("fork", errno);
  if (pid == 0) ExecChild(spec, argv, envp);
  if (spec.own_process_group) setpgid(pid, pid);  // also here, so Kill works before it ran
  return pid;
}

}  // namespace

absl::StatusOr<ChildProcess> ChildProcess::Spawn(const SpawnSpec& spec) {
  std::vector<std::string> arg_storage = {spec.path};
  arg_storage.insert(arg_storage.end(), spec.args.begin(), spec.args.end());
  const std::vector<char*> argv = NullTerminated(arg_storage);
  std::vector<std::string> env_storage = spec.env.value_or(std::vector<std::string>{});
  const std::vector<char*> envp = NullTerminated(env_storage);
  char* const* env = spec.env.has_value() ? envp.data() : environ;
  absl::StatusOr<pid_t> pid = spec.die_with_parent ? ForkExec(spec, argv.data(), env)
                                                   : PosixSpawn(spec, argv.data(), env);
  if (!pid.ok()) return pid.status();
  return ChildProcess(*pid, spec.own_process_group);
}

ChildProcess::~ChildProcess() { Reset(); }

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      group_leader_(other.group_leader_),
      gone_(other.gone_),
      wait_status_(other.wait_status_),
      usage_(other.usage_) {}

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this != &other) {
    Reset();
    pid_ = std::exchange(other.pid_, -1);
    group_leader_ = other.group_leader_;
    gone_ = other.gone_;
    wait_status_ = other.wait_status_;
    usage_ = other.usage_;
  }
  return *this;
}

void ChildProcess::Reset() {
  if (running()) ReapBy(Clock::now());
  pid_ = -1;
  gone_ = false;
}

void ChildProcess::Kill() const {
  if (!running()) return;
  if (group_leader_) kill(-pid_, SIGKILL);
  kill(pid_, SIGKILL);
}

ChildProcess::Poll ChildProcess::PollExit() {
  if (pid_ <= 0) return Poll::kError;
  if (gone_) return Poll::kReaped;
  while (true) {
    const pid_t r = wait4(pid_, &wait_status_, WNOHANG, &usage_);
    if (r == pid_) {
      gone_ = true;
      return Poll::kReaped;
    }
    if (r == 0) return Poll::kRunning;
    if (errno != EINTR) {
      gone_ = true;
      return Poll::kError;
    }
  }
}

bool ChildProcess::ReapBy(Clock::time_point deadline) {
  while (PollExit() == Poll::kRunning) {
    if (Clock::now() >= deadline) {
      Kill();
      while (wait4(pid_, &wait_status_, 0, &usage_) < 0 && errno == EINTR) {
      }
      gone_ = true;
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return false;
}

pid_t ChildProcess::Release() {
  gone_ = false;
  return std::exchange(pid_, -1);
}

std::string ChildProcess::DescribeExit() const {
  if (WIFEXITED(wait_status_)) return absl::StrCat("exited with status ", WEXITSTATUS(wait_status_));
  if (WIFSIGNALED(wait_status_)) {
    const int sig = WTERMSIG(wait_status_);
    return absl::StrCat("was killed by signal ", sig, " (", strsignal(sig), ")");
  }
  return "ended";
}

}  // namespace kjudge::process
