#include "worker/runner_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "absl/strings/str_cat.h"

namespace kjudge::worker {
namespace {

absl::Status Errno(absl::string_view what) {
  return absl::InternalError(absl::StrCat(what, ": ", std::strerror(errno)));
}

// The runner speaks the protocol on this descriptor (--protocol-fd), never on stdout.
constexpr int kProtocolFd = 3;

// In the child, between fork and exec: only async-signal-safe calls.
[[noreturn]] void ExecChild(int channel, const std::vector<char*>& argv) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  const int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (devnull >= 0) dup2(devnull, STDIN_FILENO);
  dup2(STDERR_FILENO, STDOUT_FILENO);  // anything printed lands in the log
  dup2(channel, kProtocolFd);
  // Close everything else we inherited (sockets, the database, other pipes).
  for (int fd = kProtocolFd + 1; fd < 1024; ++fd) close(fd);
  signal(SIGPIPE, SIG_DFL);
  execv(argv[0], argv.data());
  _exit(127);
}

}  // namespace

absl::StatusOr<std::unique_ptr<RunnerProcess>> RunnerProcess::Spawn(
    const std::string& path, const std::vector<std::string>& args) {
  if (access(path.c_str(), X_OK) != 0) {
    return absl::NotFoundError(absl::StrCat("runner '", path, "' is not an executable file (--runner PATH)"));
  }
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return Errno("socketpair");
  std::vector<std::string> storage = {path};
  storage.insert(storage.end(), args.begin(), args.end());
  storage.emplace_back("--protocol-fd");
  storage.emplace_back(std::to_string(kProtocolFd));
  std::vector<char*> argv;
  argv.reserve(storage.size() + 1);
  for (std::string& arg : storage) argv.push_back(arg.data());
  argv.push_back(nullptr);

  const pid_t pid = fork();
  if (pid < 0) {
    close(sv[0]);
    close(sv[1]);
    return Errno("fork");
  }
  if (pid == 0) ExecChild(sv[1], argv);
  setpgid(pid, pid);  // also from the parent, so Kill works even before the child ran
  close(sv[1]);
  return std::unique_ptr<RunnerProcess>(new RunnerProcess(pid, sv[0], sv[0]));
}

RunnerProcess::~RunnerProcess() {
  Kill();
  close(in_fd_);
  if (out_fd_ != in_fd_) close(out_fd_);
}

absl::Status RunnerProcess::WriteLine(const std::string& line) {
  std::string data = line + "\n";
  size_t written = 0;
  while (written < data.size()) {
    const ssize_t n = write(in_fd_, data.data() + written, data.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::UnavailableError(absl::StrCat("runner's stdin closed: ", std::strerror(errno)));
    }
    written += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> RunnerProcess::ReadLine(Clock::time_point deadline) {
  while (true) {
    const size_t newline = buffer_.find('\n');
    if (newline != std::string::npos) {
      std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      return line;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return absl::DeadlineExceededError("no message from the runner in time");
    pollfd fd{out_fd_, POLLIN, 0};
    const int ready = poll(&fd, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) return Errno("poll");
    if (ready <= 0) continue;
    char chunk[65536];
    const ssize_t n = read(out_fd_, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return absl::UnavailableError("the runner closed its output");
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

void RunnerProcess::Kill() {
  if (reaped_) return;
  kill(-pid_, SIGKILL);
  kill(pid_, SIGKILL);
  WaitAndDescribe(std::chrono::milliseconds(5000));
}

std::string RunnerProcess::WaitAndDescribe(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (!reaped_) {
    const pid_t done = waitpid(pid_, &wait_status_, WNOHANG);
    if (done == pid_) {
      reaped_ = true;
      break;
    }
    if (done < 0 && errno != EINTR) break;
    if (Clock::now() >= deadline) return "still running";
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!reaped_) return "in an unknown state";
  if (WIFEXITED(wait_status_)) {
    exit_code_ = WEXITSTATUS(wait_status_);
    return absl::StrCat("exited with status ", *exit_code_);
  }
  if (WIFSIGNALED(wait_status_)) {
    const int sig = WTERMSIG(wait_status_);
    return absl::StrCat("was killed by signal ", sig, " (", strsignal(sig), ")");
  }
  return "ended";
}

}  // namespace kjudge::worker
