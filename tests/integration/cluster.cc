#include "tests/integration/cluster.h"

#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "tests/support/binary_path.h"

namespace kjudge::testing {
namespace {

// The binaries: $KJUDGE_*_BIN, next to this test binary or in ../bin/, else the build's
// (tests/support/binary_path.h), so a copied test folder still runs.
std::string ServerBin() { return ResolveBinary("kjudge-server", "KJUDGE_SERVER_BIN", KJUDGE_SERVER_BIN); }
std::string WorkerBin() { return ResolveBinary("kjudge-worker", "KJUDGE_WORKER_BIN", KJUDGE_WORKER_BIN); }
std::string RunnerBin() { return ResolveBinary("kjudge-runner", "KJUDGE_RUNNER", KJUDGE_RUNNER_BIN); }
std::string CliBin() { return ResolveBinary("kjudge", "KJUDGE_CLI_BIN", KJUDGE_CLI_BIN); }

}  // namespace

std::string SourcePath(const std::string& relative) { return std::string(KJUDGE_SOURCE_DIR) + "/" + relative; }

Cluster::Cluster(const std::string& name) {
  dir_ = (std::filesystem::temp_directory_path() / ("kjudge-it-" + name + "-" + std::to_string(getpid()))).string();
  std::filesystem::remove_all(dir_);
  std::filesystem::create_directories(dir_);
}

Cluster::~Cluster() {
  workers_.clear();
  server_.reset();
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir_);
}

void Cluster::StartServer(const std::vector<std::string>& extra_args) {
  // The first start binds port 0 (the kernel picks a free port, nobody can take it between a
  // pick and the bind) and reads the port back from the log; restarts keep it, as a real
  // server's address stays what its clients and workers were given.
  std::vector<std::string> argv = {ServerBin(), "--db", dir_ + "/kjudge.sqlite", "--listen", address(),
                                   "--problems", problems_.empty() ? SourcePath("problems") : problems_};
  argv.insert(argv.end(), extra_args.begin(), extra_args.end());
  const std::string log = "server-" + std::to_string(++server_starts_) + ".log";
  server_ = std::make_unique<Subprocess>(argv, dir_ + "/" + log);
  // Ready once it says it listens (it binds the port before saying so).
  for (int i = 0; i < 400; ++i) {
    if (ReadFileOrEmpty(dir_ + "/" + log).find("listening on") != std::string::npos) {
      const int was = port_;
      TakePortFrom(dir_ + "/" + log);
      ASSERT_TRUE(was == 0 || was == port_) << "restarted on port " << port_ << ", not " << was;
      return;
    }
    ASSERT_TRUE(server_->running()) << "kjudge-server exited:\n" << Logs();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  FAIL() << "kjudge-server did not start within 20 s:\n" << Logs();
}

void Cluster::TakePortFrom(const std::string& log_path) {
  const std::string text = ReadFileOrEmpty(log_path);
  const std::string said = "listening on 127.0.0.1:";
  const size_t at = text.find(said);
  ASSERT_NE(at, std::string::npos) << log_path << ":\n" << text;
  const int port = std::atoi(text.c_str() + at + said.size());
  ASSERT_GT(port, 0) << text;
  port_ = port;
}

void Cluster::KillServer(int signal) {
  server_->Signal(signal);
  server_->Wait(std::chrono::seconds(20));
  server_.reset();
}

void Cluster::SignalServer(int signal) { server_->Signal(signal); }

void Cluster::StartWorker(const std::vector<std::string>& extra_args, const std::string& log_name) {
  std::vector<std::string> argv = {WorkerBin(), "--server", address(), "--runner", RunnerBin(),
                                   "--cache-dir", dir_ + "/cubins", "--compile-only"};
  argv.insert(argv.end(), extra_args.begin(), extra_args.end());
  if (std::find(worker_logs_.begin(), worker_logs_.end(), log_name) == worker_logs_.end()) worker_logs_.push_back(log_name);
  workers_.push_back(std::make_unique<Subprocess>(argv, dir_ + "/" + log_name));
}

void Cluster::StopWorker(int signal) {
  if (workers_.empty()) return;
  workers_.back()->Signal(signal);
  workers_.back()->Wait(std::chrono::seconds(30));
  workers_.pop_back();
}

void Cluster::SignalWorker(int signal) {
  if (!workers_.empty()) workers_.back()->Signal(signal);
}

int Cluster::WaitWorker(int timeout_s) {
  if (workers_.empty()) return -1000;
  return workers_.back()->Wait(std::chrono::seconds(timeout_s));
}

bool Cluster::WaitForLog(const std::string& file, const std::string& text, int timeout_s) {
  for (int i = 0; i < timeout_s * 20; ++i) {
    if (ReadFileOrEmpty(dir_ + "/" + file).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

std::string Cluster::CreateKey(const std::string& role) {
  CommandResult run = Run({ServerBin(), "--db", dir_ + "/kjudge.sqlite", "--json", "keys", "create",
                           "test-" + role, "--role", role},
                          std::chrono::seconds(30));
  nlohmann::json parsed = nlohmann::json::parse(run.out, nullptr, false);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return parsed.is_object() ? parsed.value("key", "") : "";
}

std::string Cluster::CheckDatabase() {
  CommandResult run = Run({ServerBin(), "--db", dir_ + "/kjudge.sqlite", "check"}, std::chrono::seconds(120));
  return run.exit_code == 0 ? "" : "exit " + std::to_string(run.exit_code) + ": " + run.out + run.err;
}

CliResult Cluster::Cli(const std::vector<std::string>& args, int timeout_s) {
  std::vector<std::string> argv = {CliBin(), "--server", address(), "--json"};
  argv.insert(argv.end(), args.begin(), args.end());
  CommandResult run = Run(argv, std::chrono::seconds(timeout_s));
  CliResult result{run.exit_code, run.out, run.err, nlohmann::json()};
  result.json = nlohmann::json::parse(run.out, nullptr, /*allow_exceptions=*/false);
  return result;
}

std::string Cluster::Logs() const {
  std::string logs;
  for (int i = 1; i <= server_starts_; ++i) {
    const std::string name = "server-" + std::to_string(i) + ".log";
    logs += "--- " + name + " ---\n" + ReadFileOrEmpty(dir_ + "/" + name);
  }
  if (worker_logs_.empty()) return logs + "--- worker.log ---\n" + ReadFileOrEmpty(dir_ + "/worker.log");
  for (const std::string& name : worker_logs_) logs += "--- " + name + " ---\n" + ReadFileOrEmpty(dir_ + "/" + name);
  return logs;
}

}  // namespace kjudge::testing
