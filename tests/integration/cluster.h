// Cluster: a real kjudge deployment on loopback for tests: kjudge-server on a temporary
// SQLite file and, on demand, a compile-only kjudge-worker with its kjudge-runner child. The
// `kjudge` CLI drives it exactly as a user would.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "tests/support/subprocess.h"

namespace kjudge::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
  nlohmann::json json;  // stdout parsed, when it is JSON
};

class Cluster {
 public:
  explicit Cluster(const std::string& name);
  ~Cluster();

  // Serves the catalog below `root` (default: the repository's problems/) from the next
  // StartServer on.
  void SetProblems(const std::string& root) { problems_ = root; }
  void StartServer(const std::vector<std::string>& extra_args = {});
  void KillServer(int signal);
  // Sends `signal` to the running server without waiting for it (SIGHUP: reload the catalog).
  void SignalServer(int signal);
  // Starts a compile-only worker logging to `log_name` in dir() (give each concurrent worker its
  // own log; Logs() prints them all).
  void StartWorker(const std::vector<std::string>& extra_args = {}, const std::string& log_name = "worker.log");
  // Stops the newest worker.
  void StopWorker(int signal);
  void SignalWorker(int signal);
  // Waits for the newest worker to exit; its exit code, or -1000 on timeout.
  int WaitWorker(int timeout_s);
  // Waits until the log file in dir() contains `text`.
  bool WaitForLog(const std::string& file, const std::string& text, int timeout_s);
  // Creates an API key in the server's database and returns it.
  std::string CreateKey(const std::string& role);
  CliResult Cli(const std::vector<std::string>& args, int timeout_s = 120);
  // `kjudge-server check` on the database (SQLite's integrity and foreign-key checks, the
  // queue's states): "" when the file is whole, else what it found.
  std::string CheckDatabase();
  // The newest worker's process id (-1 when none).
  pid_t worker_pid() const { return workers_.empty() ? -1 : workers_.back()->pid(); }
  // A server the test started itself on address() before any StartServer ("127.0.0.1:0"): the
  // port it bound, read from its log's "listening on" line, is address() from now on.
  void TakePortFrom(const std::string& log_path);
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  const std::string& dir() const { return dir_; }
  std::string Logs() const;

 private:
  std::string dir_;
  int port_ = 0;  // 0 until the first StartServer reads the bound port back
  int server_starts_ = 0;
  std::string problems_;  // "" = SourcePath("problems")
  std::unique_ptr<Subprocess> server_;
  std::vector<std::unique_ptr<Subprocess>> workers_;
  std::vector<std::string> worker_logs_;  // distinct log names, in start order
};

std::string SourcePath(const std::string& relative);

// A job id as `kjudge --json` prints it (a JSON number, issue 27 pt9; a string before) as the
// string the API and the CLI's arguments take.
inline std::string IdText(const nlohmann::json& id) {
  return id.is_number_integer() ? std::to_string(id.get<int64_t>()) : id.is_string() ? id.get<std::string>() : "";
}

}  // namespace kjudge::testing
