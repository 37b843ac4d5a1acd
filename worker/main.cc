// kjudge-worker: one per GPU. Pulls jobs from kjudge-server over gRPC and has them judged by
// its runner child (kjudge-runner); no submitted code ever runs in this process.
//
// Key hygiene: the worker's API key must not reach the runner (the process that loads
// submitted code) nor be readable by other processes of the same user. So the worker makes
// itself non-dumpable first thing (/proc/<pid>/environ, mem, maps become root-only, no
// ptrace), takes the key from a file (--api-key-file or KJUDGE_API_KEY_FILE; systemd's
// LoadCredential=, a mounted Kubernetes secret), and scrubs the compatibility forms
// (KJUDGE_API_KEY, --api-key) from its environment block and argv before any child exists.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <thread>

#include "CLI/CLI.hpp"
#include "common/flag_file.h"
#include "common/log.h"
#include "worker/compiler/compile_limits.h"
#include "worker/worker_loop.h"

namespace {

std::string DefaultRunnerPath(const char* argv0) {
  // The runner lives next to the worker in both the build tree and the bundle.
  std::error_code error;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) self = argv0;
  return (self.parent_path() / "kjudge-runner").string();
}

// Reads a key file: the whole file (at most 4 KiB), trailing whitespace stripped; the file is
// closed before returning. Errors say why, never what the file holds.
bool ReadKeyFile(const std::string& path, std::string& key, std::string& error) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = "cannot open --api-key-file '" + path + "': " + std::strerror(errno);
    return false;
  }
  char buffer[4097];
  size_t size = 0;
  while (size < sizeof(buffer)) {
    const ssize_t n = read(fd, buffer + size, sizeof(buffer) - size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    size += static_cast<size_t>(n);
  }
  close(fd);
  if (size >= sizeof(buffer)) {
    error = "--api-key-file '" + path + "' is over 4 KiB; expected one API key";
    return false;
  }
  while (size > 0 && (buffer[size - 1] == '\n' || buffer[size - 1] == '\r' ||
                      buffer[size - 1] == ' ' || buffer[size - 1] == '\t')) {
    --size;
  }
  key.assign(buffer, size);
  std::memset(buffer, 0, sizeof(buffer));
  if (key.empty()) {
    error = "--api-key-file '" + path + "' is empty; expected an API key";
    return false;
  }
  return true;
}

// Takes an environment variable out of the environment and overwrites its value in place:
// unsetenv alone leaves the bytes in the initial environment block, which is what
// /proc/<pid>/environ shows.
std::string TakeEnv(const char* name) {
  char* value = std::getenv(name);
  if (value == nullptr) return "";
  std::string copy = value;
  std::memset(value, 'x', std::strlen(value));
  unsetenv(name);
  return copy;
}

// Overwrites the value of --api-key in argv (/proc/<pid>/cmdline is readable by every user).
void ScrubKeyArgument(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    char* arg = argv[i];
    if (std::strcmp(arg, "--api-key") == 0 && i + 1 < argc) {
      std::memset(argv[i + 1], 'x', std::strlen(argv[i + 1]));
    } else if (std::strncmp(arg, "--api-key=", 10) == 0) {
      std::memset(arg + 10, 'x', std::strlen(arg + 10));
    }
  }
}

std::string HostName() {
  char buffer[256] = {};
  gethostname(buffer, sizeof(buffer) - 1);
  return buffer;
}

}  // namespace

int main(int argc, char** argv) {
  // Before anything else: /proc/<pid>/{environ,mem,maps,...} of a non-dumpable process are owned
  // by root, so another process of this user (a compromised runner included) cannot read the
  // key from them or ptrace this one. exec() resets it, so the runner child is unaffected.
  const bool non_dumpable = prctl(PR_SET_DUMPABLE, 0) == 0;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);  // a dead runner must give EPIPE, not kill the worker

  kjudge::worker::WorkerOptions options;
  std::string runner = DefaultRunnerPath(argv[0]);
  std::string cache_dir = "kjudge-cubin-cache";
  std::string arch;
  std::string log_level = "info";
  std::string log_format = "text";
  int device = 0;
  bool compile_only = false;
  std::string compile_ahead = "auto";
  double compile_s = 0, stall_s = 20, job_s = 600;  // compile_s 0: CompileWatchdogSeconds(cpu)
  int compile_cpu_s = kjudge::compiler::kDefaultCompileCpuSeconds;
  uint64_t cubin_max_mib = kjudge::compiler::kDefaultCubinMib;
  uint64_t cache_max_mib = 2048;
  int time_budget_ms = 2000;
  bool no_torch_compile = false;
  bool oracle_cross_check = false;
  std::string torch_compile_cache;
  int compile_oracle_keys = 8;
  int compile_children = 1;

  CLI::App app{"kjudge-worker: judges jobs from a kjudge-server on one GPU.\n"
               "Start one per GPU; it connects out to the server, so it may run on any host.\n"
               "Without a GPU it runs in compile-only mode and serves compile-only jobs."};
  app.add_option("--server", options.server, "kjudge-server address (host:port)")->capture_default_str();
  // The runner child, the one process that loads submitted kernels, inherits this environment;
  // it needs no credentials, nor where they are.
  const std::string env_key = TakeEnv("KJUDGE_API_KEY");
  std::string key_file = TakeEnv("KJUDGE_API_KEY_FILE");
  unsetenv("CREDENTIALS_DIRECTORY");  // systemd LoadCredential=: the key file's directory
  options.api_key = env_key;
  app.add_option("--api-key-file", key_file,
                 "file holding the API key with role worker, read once at start "
                 "(env KJUDGE_API_KEY_FILE; e.g. systemd LoadCredential=, a mounted secret)");
  app.add_option("--api-key", options.api_key,
                 "API key with role worker (env KJUDGE_API_KEY); deprecated: visible to other "
                 "processes, use --api-key-file");
  app.add_option("--tls-ca", options.tls_ca, "connect with TLS, trusting this CA certificate (PEM)")
      ->check(kjudge::CheckReadableFlagFile);  // a missing file must not mean "trust the system CAs"
  app.add_option("--runner", runner, "path of kjudge-runner")->capture_default_str();
  app.add_option("--cache-dir", cache_dir, "directory for compiled cubins (created if missing)")->capture_default_str();
  app.add_option("--device", device, "CUDA device index this worker drives")->capture_default_str();
  app.add_flag("--compile-only", compile_only, "only compile, even if a GPU is present");
  app.add_option("--arch", arch, "NVRTC target in compile-only mode (default sm_90a)");
  app.add_option("--compile-ahead", compile_ahead,
                 "lease the next job while one runs and compile it ahead in a second, compile-only "
                 "runner, so the GPU never waits for NVRTC: auto (on when the worker drives a GPU), "
                 "on, off")
      ->capture_default_str()->check(CLI::IsMember({"auto", "on", "off"}));
  app.add_option("--name", options.name, "name shown on the dashboard (default host:gpuN)");
  app.add_option("--compile-cpu-seconds", compile_cpu_s,
                 "CPU seconds one compile may take: THE compile limit. The compiler's wall-clock "
                 "limit is twice it plus 5 s and the compile watchdog 20 s more, so a compile bomb "
                 "ends as a COMPILE_ERROR naming the limit it hit")
      ->capture_default_str()->check(CLI::Range(1, 3600));
  app.add_option("--compile-timeout", compile_s,
                 "seconds a compiling runner may stay silent before it is killed (TIMEOUT); "
                 "default: the compiler's wall-clock limit + 20 s. Set it lower only to test the "
                 "watchdog: the compiler's own limits then no longer fire first");
  app.add_option("--cubin-max-mib", cubin_max_mib, "the largest cubin a compile may produce (MiB)")
      ->capture_default_str()->check(CLI::Range(1, 1024));
  app.add_option("--cache-max-mib", cache_max_mib,
                 "total size of the cubin cache (MiB; least recently used entries removed past it)")
      ->capture_default_str()->check(CLI::Range(1, 1 << 20));
  app.add_option("--stall-timeout", stall_s, "seconds without progress before a kernel counts as hung")
      ->capture_default_str();
  app.add_option("--job-timeout", job_s, "seconds a whole job may take")->capture_default_str();
  app.add_option("--time-budget-ms", time_budget_ms, "timing budget per benchmark shape")->capture_default_str();
  app.add_flag("--no-torch-compile", no_torch_compile,
               "the judge does not time torch.compile baselines of PyTorch problems (passed on "
               "as kjudge-runner --no-torch-compile). By default it does: a second oracle "
               "process compiles in the background and a later job of the problem times it");
  app.add_option("--torch-compile-cache", torch_compile_cache,
                 "a lasting torch.compile cache folder for the judge's compile oracle, e.g. one "
                 "filled ahead by `python3 -m kjudge_oracle.warm_compile --cache DIR` (passed on "
                 "as kjudge-runner --torch-compile-cache)")
      ->check(CLI::ExistingDirectory);
  app.add_option("--compile-oracle-keys", compile_oracle_keys,
                 "modules (with their compiles) the judge's compile oracle keeps; raise it when "
                 "many problems are judged in turn (kjudge-runner --compile-oracle-keys)")
      ->capture_default_str()->check(CLI::Range(1, 4096));
  app.add_option("--compile-children", compile_children,
                 "torch.compile child processes the judge's compile oracle runs at a time "
                 "(kjudge-runner --compile-children)")
      ->capture_default_str()->check(CLI::Range(1, 64));
  app.add_flag("--oracle-cross-check", oracle_cross_check,
               "check the catalog's two references: on problems with both reference.cu and "
               "reference.py the judge also runs the PyTorch oracle on every test shape and fails "
               "the job where they disagree (kjudge-runner --oracle-cross-check)");
  app.add_option("--max-jobs", options.max_jobs, "exit after this many jobs (0: never)")->capture_default_str();
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error")->capture_default_str();
  app.add_option("--log-format", log_format, "text, or json (one object per line, for log pipelines)")
      ->capture_default_str()->check(CLI::IsMember({"text", "json"}));
  CLI11_PARSE(app, argc, argv);
  const bool key_on_command_line = app.count("--api-key") > 0;
  ScrubKeyArgument(argc, argv);
  kjudge::InitLogging("worker", log_level, log_format);
  if (!non_dumpable) spdlog::warn("prctl(PR_SET_DUMPABLE, 0) failed: {}", std::strerror(errno));
  if (!key_file.empty()) {
    if (key_on_command_line || !env_key.empty()) {
      spdlog::warn("both an API key file and KJUDGE_API_KEY/--api-key were given; using the file");
    }
    std::string error;
    if (!ReadKeyFile(key_file, options.api_key, error)) {
      spdlog::error("{}", error);
      return 2;
    }
  } else if (key_on_command_line) {
    spdlog::warn("--api-key puts the key on the command line, where every user can read it in "
                 "/proc/<pid>/cmdline until the worker scrubs it at start; use --api-key-file");
  } else if (!env_key.empty()) {
    spdlog::warn("KJUDGE_API_KEY was readable by processes of this user in the worker's "
                 "/proc/<pid>/environ until it was scrubbed at start; use --api-key-file "
                 "(KJUDGE_API_KEY_FILE)");
  }
  if (options.name.empty()) options.name = HostName() + ":gpu" + std::to_string(device);

  std::error_code error;
  std::filesystem::create_directories(cache_dir, error);
  if (error) {
    spdlog::error("cannot create the cubin cache directory '{}': {}", cache_dir, error.message());
    return 2;
  }
  // The compile limits go to every runner alike (the judge and the compile-ahead one).
  const std::vector<std::string> compile_args = {"--compile-cpu-seconds", std::to_string(compile_cpu_s),
                                                 "--cubin-max-mib", std::to_string(cubin_max_mib),
                                                 "--cache-max-mib", std::to_string(cache_max_mib)};
  std::vector<std::string> runner_args = {"--device", std::to_string(device), "--cache-dir", cache_dir,
                                          "--time-budget-ms", std::to_string(time_budget_ms)};
  runner_args.insert(runner_args.end(), compile_args.begin(), compile_args.end());
  if (compile_only) runner_args.push_back("--compile-only");
  if (no_torch_compile) runner_args.push_back("--no-torch-compile");
  if (compile_children != 1) {
    runner_args.push_back("--compile-children");
    runner_args.push_back(std::to_string(compile_children));
  }
  if (compile_oracle_keys != 8) {
    runner_args.push_back("--compile-oracle-keys");
    runner_args.push_back(std::to_string(compile_oracle_keys));
  }
  if (!torch_compile_cache.empty()) {
    runner_args.push_back("--torch-compile-cache");
    runner_args.push_back(std::filesystem::absolute(torch_compile_cache).string());
  }
  if (oracle_cross_check) runner_args.push_back("--oracle-cross-check");
  if (!arch.empty()) {
    runner_args.push_back("--arch");
    runner_args.push_back(arch);
  }
  using ms = std::chrono::milliseconds;
  kjudge::worker::WatchdogLimits limits;
  if (compile_s <= 0) compile_s = kjudge::compiler::CompileWatchdogSeconds(compile_cpu_s);
  if (compile_s <= kjudge::compiler::CompileWallSeconds(compile_cpu_s)) {
    spdlog::warn("--compile-timeout {} s is not above the compiler's {} s wall-clock limit: a slow compile "
                 "ends as a TIMEOUT of the runner, not as a COMPILE_ERROR naming its limit",
                 compile_s, kjudge::compiler::CompileWallSeconds(compile_cpu_s));
  }
  limits.compile = ms(static_cast<int64_t>(compile_s * 1000));
  limits.stall = ms(static_cast<int64_t>(stall_s * 1000));
  limits.job = ms(static_cast<int64_t>(job_s * 1000));
  kjudge::worker::RunnerSupervisor supervisor(runner, runner_args, limits);
  if (absl::StatusOr<kjudge::v1::GpuInfo> gpu = supervisor.Start(); !gpu.ok()) {
    spdlog::error("{}", gpu.status().message());
    return 2;
  }

  // The next job compiles in a second, compile-only runner while the judge times this one: it
  // fills the shared cubin cache, so the GPU never waits for NVRTC. Only with a GPU by default:
  // in compile-only mode the compile is the whole job ("on" there is for tests).
  std::unique_ptr<kjudge::worker::RunnerSupervisor> ahead;
  if (compile_ahead == "on" || (compile_ahead == "auto" && !supervisor.gpu().compile_only())) {
    std::vector<std::string> ahead_args = {"--compile-only", "--arch", supervisor.gpu().arch(), "--cache-dir", cache_dir};
    ahead_args.insert(ahead_args.end(), compile_args.begin(), compile_args.end());
    ahead = std::make_unique<kjudge::worker::RunnerSupervisor>(runner, ahead_args, limits, /*compiles_ahead=*/true);
    if (absl::StatusOr<kjudge::v1::GpuInfo> info = ahead->Start(); !info.ok()) {
      spdlog::warn("no compile-ahead runner ({}): jobs compile on the judge only", info.status().message());
      ahead.reset();
    }
  }

  std::atomic<int> stop_requests{0};
  std::thread signals([&] {
    while (true) {
      int signal_number = 0;
      sigwait(&set, &signal_number);
      const int n = ++stop_requests;
      spdlog::warn("signal {}: {}", signal_number,
                   n == 1 ? "finishing the current job, then exiting (again to hand it back now)"
                          : "handing the current job back and exiting");
      if (n >= 2) return;
    }
  });
  signals.detach();
  kjudge::worker::WorkerLoop loop(options, &supervisor, ahead.get());
  return loop.Run(stop_requests);
}
