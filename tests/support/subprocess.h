// Subprocess: starts the real kjudge binaries from tests, as a user would.
//
// Contract: Start runs a program in the background with stdout+stderr appended to a log file;
// Signal/Wait stop it. Run runs a program to completion with a timeout (killed past it) and
// returns its exit code and output. Both use fork/exec directly: no shell, no quoting issues.
// Every child leads a process group of its own; ~Subprocess kills that group (the program and
// what it started there). A child spawned from the test's main thread dies with the test
// (PR_SET_PDEATHSIG), so a test killed by a timeout leaves nothing running.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace kjudge::testing {

struct CommandResult {
  int exit_code = -1;  // -1 when killed by a signal or timed out
  std::string out;
  std::string err;
};

CommandResult Run(const std::vector<std::string>& argv, std::chrono::seconds timeout);

class Subprocess {
 public:
  Subprocess(const std::vector<std::string>& argv, const std::string& log_path);
  ~Subprocess();
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  void Signal(int signal);
  // Returns the exit code, or -signal when it died by a signal, or -1000 on timeout.
  int Wait(std::chrono::seconds timeout);
  bool running();
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
};

// A TCP port on 127.0.0.1 that was free a moment ago.
int FreeLoopbackPort();

std::string ReadFileOrEmpty(const std::string& path);

// A plain HTTP/1.0 GET to 127.0.0.1:port; the whole response (headers and body), "" on error.
std::string HttpGet(int port, const std::string& path);

}  // namespace kjudge::testing
