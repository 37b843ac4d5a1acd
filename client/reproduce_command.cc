// `kjudge reproduce JOB`: the input sets of a finished job (their keys, shapes and regimes are
// revealed with the verdict, JobResult.input_keys), listed, or one regenerated bit-exact on this
// machine's GPU by kjudge-reproduce (worker/judge/reproduce_main.cc), found beside this binary
// or in $KJUDGE_BIN_DIR. The client itself links no CUDA: without a GPU (or without
// kjudge-reproduce) it says so and prints the exact command to run on a GPU host.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/commands.h"
#include "nlohmann/json.hpp"

extern char** environ;

namespace kjudge::client {
namespace {

namespace fs = std::filesystem;

// kjudge-reproduce's exit codes (reproduce_main.cc).
constexpr int kReproduceUsage = 2;
constexpr int kReproduceNoGpu = 3;

std::string RegimeOf(const v1::InputKey& key) {
  return key.regime().empty() ? "declared" : key.regime();  // results before regimes: declared
}

// The set `kjudge reproduce` picks without --set: the first failing test shape's, else the
// first timed sample's, else the first one drawn.
int DefaultSet(const v1::JobResult& result) {
  std::string wanted;
  for (int i = 0; i < result.tests_size() && wanted.empty(); ++i) {
    if (!result.tests(i).passed()) wanted = "test " + std::to_string(i);
  }
  for (int i = 0; i < result.input_keys_size(); ++i) {
    const std::string& set = result.input_keys(i).set();
    if (wanted.empty() ? set.find(" sample ") != std::string::npos : set == wanted) return i;
  }
  return 0;
}

// `text` as one shell word (single-quoted unless it is plainly safe).
std::string ShellWord(const std::string& text) {
  const bool safe = !text.empty() && text.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789-_./=,:@+") == std::string::npos;
  if (safe) return text;
  std::string quoted = "'";
  for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string CommandLine(const std::vector<std::string>& argv) {
  std::vector<std::string> words;
  words.reserve(argv.size());
  for (const std::string& arg : argv) words.push_back(ShellWord(arg));
  return absl::StrJoin(words, " ");
}

// kjudge-reproduce: $KJUDGE_BIN_DIR's, else the one beside this kjudge; nullopt when neither.
std::optional<std::string> FindReproduceBinary() {
  std::vector<fs::path> candidates;
  if (const char* dir = std::getenv("KJUDGE_BIN_DIR"); dir != nullptr && *dir != '\0') {
    candidates.emplace_back(fs::path(dir) / "kjudge-reproduce");
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back(self.parent_path() / "kjudge-reproduce");
  for (const fs::path& path : candidates) {
    if (access(path.c_str(), X_OK) == 0) return path.string();
  }
  return std::nullopt;
}

// Runs argv (no shell), with this process's stdout and stderr; its exit code, or -1.
int Spawn(const std::vector<std::string>& argv) {
  std::vector<char*> raw;
  raw.reserve(argv.size() + 1);
  for (const std::string& arg : argv) raw.push_back(const_cast<char*>(arg.c_str()));
  raw.push_back(nullptr);
  pid_t pid = -1;
  if (posix_spawn(&pid, raw[0], nullptr, nullptr, raw.data(), environ) != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void PrintList(const CliContext& cli, const v1::Job& job) {
  const v1::JobResult& result = job.result();
  const int chosen = DefaultSet(result);
  if (cli.json) {
    nlohmann::json sets = nlohmann::json::array();
    for (int i = 0; i < result.input_keys_size(); ++i) {
      const v1::InputKey& key = result.input_keys(i);
      sets.push_back({{"set", key.set()}, {"shape", key.shape()}, {"regime", RegimeOf(key)},
                      {"key_hex", key.key_hex()}, {"default", i == chosen}});
    }
    const nlohmann::json out = {{"job_id", JsonId(job.id())},
                                {"problem", job.problem()},
                                {"verdict", v1::Verdict_Name(result.verdict())},
                                {"sets", sets},
                                {"input_keys_cut", result.input_keys_cut()}};
    std::cout << out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return;
  }
  std::cout << absl::StrFormat("%-28s %-28s %-9s %s\n", "set", "shape", "regime", "key");
  for (int i = 0; i < result.input_keys_size(); ++i) {
    const v1::InputKey& key = result.input_keys(i);
    std::cout << absl::StrFormat("%-28s %-28s %-9s %s%s\n", ServerText(key.set(), 200),
                                 ServerText(key.shape(), 200), ServerText(RegimeOf(key), 40),
                                 ServerText(key.key_hex(), 64), i == chosen ? "  <- default" : "");
  }
  if (result.input_keys_cut() > 0) {
    std::cout << "(" << result.input_keys_cut() << " more sets drawn; their keys were not kept)\n";
  }
  std::cerr << result.input_keys_size() << " input sets. `kjudge reproduce " << job.id()
            << " --set " << ShellWord(result.input_keys(chosen).set())
            << "` regenerates one as .npy files (needs a CUDA GPU).\n";
}

// The problem's spec as the server serves it, written to <out>/spec/<name>/problem.toml for
// kjudge-reproduce's --problems; the folder, or "" (message printed) on failure.
std::string WriteServerSpec(const CliContext& cli, const std::string& problem, const std::string& out,
                            int* code) {
  if (problem.empty() || problem.front() == '/' || problem.find("..") != std::string::npos) {
    std::cerr << "kjudge: the server named problem '" << ServerText(problem, 200)
              << "', which is not a catalog path; pass --problems DIR\n";
    *code = kUsage;
    return "";
  }
  grpc::ClientContext context;
  cli.Prepare(&context, 30);
  v1::GetProblemRequest request;
  request.set_name(problem);
  v1::Problem spec;
  const grpc::Status status = cli.stub->GetProblem(&context, request, &spec);
  if (!status.ok()) {
    *code = cli.Fail(status, "reading problem " + problem + " (or pass --problems DIR)");
    return "";
  }
  const fs::path root = fs::path(out) / "spec";
  std::error_code ec;
  fs::create_directories(root / problem, ec);
  std::ofstream toml(root / problem / "problem.toml", std::ios::trunc);
  toml << spec.spec_toml();
  toml.close();
  if (ec || !toml) {
    std::cerr << "kjudge: cannot write " << (root / problem / "problem.toml").string()
              << ": pick a writable --out\n";
    *code = kUsage;
    return "";
  }
  return root.string();
}

std::string DefaultOut(const std::string& job_id, const std::string& set) {
  std::string slug;
  for (const char c : set) slug += (std::isalnum(static_cast<unsigned char>(c)) != 0) ? c : '_';
  return "reproduce-" + job_id + "-" + slug;
}

// What to run on a GPU host: this command with its choices spelled out, and the binary's own.
void PrintGpuHostCommands(const CliContext& cli, const v1::Job& job, const v1::InputKey& key,
                          const std::string& out, const std::vector<std::string>& low_level) {
  std::cerr << "On a GPU host with the kjudge bundle (source its env.sh; KJUDGE_API_KEY set), run:\n  "
            << ServerText(CommandLine({"kjudge", "--server", cli.server, "reproduce", job.id(),
                                       "--set", key.set(), "--out", out}))
            << "\nor, with the problem catalog there:\n  " << ServerText(CommandLine(low_level)) << "\n";
}

}  // namespace

int Reproduce(CliContext& cli, const ReproduceArgs& args) {
  grpc::ClientContext context;
  cli.Prepare(&context, 30);
  v1::GetJobRequest request;
  request.set_job_id(args.job_id);
  v1::Job job;
  const grpc::Status status = cli.stub->GetJob(&context, request, &job);
  if (!status.ok()) return cli.Fail(status, "reading job " + args.job_id);
  if (job.state() != v1::DONE) {
    std::cerr << "kjudge: job " << args.job_id << " is not finished; its input keys are revealed "
              << "with the verdict: `kjudge job " << args.job_id << " --wait`, then reproduce it\n";
    return kUnfinished;
  }
  const v1::JobResult& result = job.result();
  if (result.input_keys_size() == 0) {
    std::cerr << "kjudge: job " << args.job_id << " (" << v1::Verdict_Name(result.verdict())
              << ") has no input sets to reproduce: it was compile-only or baselines-only, ended "
                 "before any input was generated, or was judged before keys were reported\n";
    return kUsage;
  }
  if (args.list) {
    PrintList(cli, job);
    return kOk;
  }
  int chosen = DefaultSet(result);
  if (!args.set.empty()) {
    chosen = -1;
    for (int i = 0; i < result.input_keys_size() && chosen < 0; ++i) {
      if (result.input_keys(i).set() == args.set) chosen = i;
    }
    if (chosen < 0) {
      std::cerr << "kjudge: job " << args.job_id << " has no input set " << ShellWord(ServerText(args.set, 200))
                << "; `kjudge reproduce " << args.job_id << " --list` lists its "
                << result.input_keys_size() << " sets\n";
      return kUsage;
    }
  }
  const v1::InputKey& key = result.input_keys(chosen);
  const std::string out = args.out.empty() ? DefaultOut(job.id(), key.set()) : args.out;
  std::string problems = args.problems;
  std::vector<std::string> low_level = {"kjudge-reproduce", "--problems",
                                        problems.empty() ? "problems" : problems,
                                        "--problem", job.problem(), "--shape", key.shape(),
                                        "--key", key.key_hex(), "--regime", RegimeOf(key),
                                        "--set", key.set(), "--out", out};
  const std::optional<std::string> binary = FindReproduceBinary();
  if (!binary.has_value()) {
    std::cerr << "kjudge: no kjudge-reproduce beside this kjudge or in $KJUDGE_BIN_DIR: it comes "
                 "with the kjudge bundle, and needs a CUDA GPU.\n";
    PrintGpuHostCommands(cli, job, key, out, low_level);
    return kNoGpu;
  }
  if (problems.empty()) {
    int code = kOk;
    problems = WriteServerSpec(cli, job.problem(), out, &code);
    if (problems.empty()) return code;
  }
  std::vector<std::string> argv = low_level;
  argv[0] = *binary;
  argv[2] = problems;
  if (cli.json) argv.emplace_back("--json");
  std::cerr << "reproducing " << ServerText(job.problem(), 200) << " set '" << ServerText(key.set(), 200) << "' at "
            << ServerText(key.shape(), 200) << " (regime " << ServerText(RegimeOf(key), 40) << ")\n";
  const int code = Spawn(argv);
  if (code == 0) return kOk;
  if (code == kReproduceNoGpu) {
    PrintGpuHostCommands(cli, job, key, out, low_level);
    return kNoGpu;
  }
  if (code < 0) std::cerr << "kjudge: could not run " << *binary << "\n";
  (void)kReproduceUsage;  // a bad argument, or a failed generation: both print their reason
  return kUsage;
}

}  // namespace kjudge::client
