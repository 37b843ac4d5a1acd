#include "tests/support/subprocess.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace kjudge::testing {
namespace {

// The child gets a process group of its own (so that ~Subprocess kills what it started too)
// and, when spawned from the test's main thread, dies with the test: a test killed by ctest's
// timeout or by hand leaves no server, worker, runner or compiler behind (a worker's own children
// die with it: worker/process/child_process.h die_with_parent). Not from another thread: the
// death signal follows the spawning *thread*, and a test that starts a worker from a short-lived
// thread (transport_limits_test's late worker) must keep it.
pid_t Spawn(const std::vector<std::string>& argv, int out_fd, int err_fd) {
  std::vector<std::string> storage = argv;
  std::vector<char*> args;
  for (std::string& arg : storage) args.push_back(arg.data());
  args.push_back(nullptr);
  const pid_t parent = getpid();
  const bool main_thread = gettid() == parent;
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    if (main_thread) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(127);  // the test died before the line above
    }
    dup2(out_fd, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
    int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, STDIN_FILENO);
    execv(args[0], args.data());
    _exit(127);
  }
  if (pid > 0) setpgid(pid, pid);  // also here, so a group kill works before the child ran
  return pid;
}

int WaitPid(pid_t pid, std::chrono::seconds timeout, bool* reaped) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (true) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (std::chrono::steady_clock::now() >= deadline) return -1000;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  *reaped = true;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return -WTERMSIG(status);
  return -1;
}

}  // namespace

std::string ReadFileOrEmpty(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

CommandResult Run(const std::vector<std::string>& argv, std::chrono::seconds timeout) {
  char out_path[] = "/tmp/kjudge-test-out-XXXXXX";
  char err_path[] = "/tmp/kjudge-test-err-XXXXXX";
  const int out_fd = mkstemp(out_path);
  const int err_fd = mkstemp(err_path);
  const pid_t pid = Spawn(argv, out_fd, err_fd);
  bool reaped = false;
  CommandResult result;
  result.exit_code = WaitPid(pid, timeout, &reaped);
  if (!reaped) {
    kill(pid, SIGKILL);
    WaitPid(pid, std::chrono::seconds(5), &reaped);
    result.exit_code = -1;
  } else if (result.exit_code < 0) {
    result.exit_code = -1;
  }
  close(out_fd);
  close(err_fd);
  result.out = ReadFileOrEmpty(out_path);
  result.err = ReadFileOrEmpty(err_path);
  unlink(out_path);
  unlink(err_path);
  return result;
}

Subprocess::Subprocess(const std::vector<std::string>& argv, const std::string& log_path) {
  const int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  pid_ = Spawn(argv, fd, fd);
  close(fd);
}

Subprocess::~Subprocess() {
  if (!reaped_) {
    kill(-pid_, SIGKILL);  // its group: what it started in it too
    kill(pid_, SIGKILL);
    Wait(std::chrono::seconds(10));
  } else {
    kill(-pid_, SIGKILL);  // children it left in its group
  }
}

void Subprocess::Signal(int signal) {
  if (!reaped_) kill(pid_, signal);
}

int Subprocess::Wait(std::chrono::seconds timeout) { return WaitPid(pid_, timeout, &reaped_); }

bool Subprocess::running() {
  if (reaped_) return false;
  return Wait(std::chrono::seconds(0)) == -1000;
}

int FreeLoopbackPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  const int port = ntohs(addr.sin_port);
  close(fd);
  return port;
}

std::string HttpGet(int port, const std::string& path) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  std::string response;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    const std::string request = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if (write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      char buffer[4096];
      ssize_t n = 0;
      while ((n = read(fd, buffer, sizeof(buffer))) > 0) response.append(buffer, static_cast<size_t>(n));
    }
  }
  close(fd);
  return response;
}

}  // namespace kjudge::testing
