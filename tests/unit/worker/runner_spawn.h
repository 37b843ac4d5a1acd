// Spawns kjudge-runner and speaks its line protocol. The runner: RunnerPath() (tests/support/
// binary_path.h: $KJUDGE_RUNNER, next to this test binary, ../bin/, else the build-time
// KJUDGE_RUNNER_PATH), so a test copied into a bundle's bin/ finds the bundle's runner.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include "kjudge/v1/runner.pb.h"
#include "tests/support/binary_path.h"
#include "worker/judge/runner_io.h"

namespace kjudge::runner::testing {

// Resolved before fork (the child may only exec).
inline std::string RunnerPath() {
  return ::kjudge::testing::ResolveBinary("kjudge-runner", "KJUDGE_RUNNER", KJUDGE_RUNNER_PATH);
}

struct RunOutcome {
  std::vector<v1::RunnerMessage> messages;
  int exit_status = -1;
};

// Runs the runner with `args`, writes `input` to its stdin, closes it, reads all of stdout.
inline RunOutcome RunRunner(const std::vector<std::string>& args, const std::string& input) {
  int to_child[2];
  int from_child[2];
  EXPECT_EQ(pipe(to_child), 0);
  EXPECT_EQ(pipe(from_child), 0);
  std::string path = RunnerPath();
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(to_child[0], STDIN_FILENO);
    dup2(from_child[1], STDOUT_FILENO);
    close(to_child[1]);
    close(from_child[0]);
    std::vector<char*> argv;
    argv.push_back(path.data());
    std::vector<std::string> copy = args;
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(path.c_str(), argv.data());
    _exit(127);
  }
  close(to_child[0]);
  close(from_child[1]);
  EXPECT_EQ(write(to_child[1], input.data(), input.size()), static_cast<ssize_t>(input.size()));
  close(to_child[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(from_child[0], buf, sizeof(buf))) > 0;) out.append(buf, n);
  close(from_child[0]);
  RunOutcome outcome;
  int status = 0;
  waitpid(pid, &status, 0);
  outcome.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    v1::RunnerMessage m;
    const auto st = google::protobuf::util::JsonStringToMessage(out.substr(start, end - start), &m);
    EXPECT_TRUE(st.ok()) << out.substr(start, end - start);
    outcome.messages.push_back(m);
    start = end + 1;
  }
  return outcome;
}

inline std::string RequestLine(const v1::RunSpec& spec) {
  v1::RunnerRequest request;
  *request.mutable_spec() = spec;
  absl::StatusOr<std::string> line = ToJsonLine(request);
  EXPECT_TRUE(line.ok());
  return *line + "\n";
}

inline std::vector<v1::JobResult> Results(const RunOutcome& o) {
  std::vector<v1::JobResult> results;
  for (const v1::RunnerMessage& m : o.messages) {
    if (m.has_result()) results.push_back(m.result().result());
  }
  return results;
}

}  // namespace kjudge::runner::testing
