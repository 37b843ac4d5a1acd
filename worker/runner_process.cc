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

}  // namespace

absl::StatusOr<std::unique_ptr<RunnerProcess>> RunnerProcess::Spawn(
    const std::string& path, const std::vector<std::string>& args) {
  if (access(path.c_str(), X_OK) != 0) {
    return absl::NotFoundError(absl::StrCat("runner '", path, "' is not an executable file (--runner PATH)"));
  }
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return Errno("socketpair");
  std::vector<std::string> argv = args;
  argv.emplace_back("--protocol-fd");
  argv.emplace_back(std::to_string(kProtocolFd));

  // fork + exec (ChildProcess): the parent-death signal can only be set in the child.
  process::SpawnSpec spec;
  spec.path = path;
  spec.args = std::move(argv);
  spec.channel_fd = sv[1];
  spec.stdout_fd = STDERR_FILENO;  // anything printed lands in the log
  spec.default_sigpipe = true;
  spec.own_process_group = true;
  spec.die_with_parent = true;
  absl::StatusOr<process::ChildProcess> child = process::ChildProcess::Spawn(spec);
  close(sv[1]);
  if (!child.ok()) {
    close(sv[0]);
    return child.status();
  }
  return std::unique_ptr<RunnerProcess>(new RunnerProcess(*std::move(child), sv[0], sv[0]));
}

RunnerProcess::~RunnerProcess() {
  Kill();
  // Still not reaped 5 s after SIGKILL: left as it was, not waited for here.
  if (!reaped_) (void)child_.Release();
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
  child_.Kill();
  WaitAndDescribe(std::chrono::milliseconds(5000));
}

std::string RunnerProcess::WaitAndDescribe(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (!reaped_) {
    const process::ChildProcess::Poll done = child_.PollExit();
    if (done == process::ChildProcess::Poll::kReaped) {
      reaped_ = true;
      break;
    }
    if (done == process::ChildProcess::Poll::kError) break;
    if (Clock::now() >= deadline) return "still running";
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!reaped_) return "in an unknown state";
  if (WIFEXITED(child_.wait_status())) exit_code_ = WEXITSTATUS(child_.wait_status());
  return child_.DescribeExit();
}

}  // namespace kjudge::worker
