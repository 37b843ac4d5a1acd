// kjudge-worker: one per GPU. Pulls jobs from kjudge-server over gRPC and has them judged by
// its runner child (kjudge-runner); no submitted code ever runs in this process.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "CLI/CLI.hpp"
#include "common/log.h"
#include "worker/worker_loop.h"

namespace {

std::string DefaultRunnerPath(const char* argv0) {
  // The runner lives next to the worker in both the build tree and the bundle.
  std::error_code error;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) self = argv0;
  return (self.parent_path() / "kjudge-runner").string();
}

std::string HostName() {
  char buffer[256] = {};
  gethostname(buffer, sizeof(buffer) - 1);
  return buffer;
}

}  // namespace

int main(int argc, char** argv) {
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
  double compile_s = 60, stall_s = 20, job_s = 600;
  int time_budget_ms = 2000;

  CLI::App app{"kjudge-worker: judges jobs from a kjudge-server on one GPU.\n"
               "Start one per GPU; it connects out to the server, so it may run on any host.\n"
               "Without a GPU it runs in compile-only mode and serves compile-only jobs."};
  app.add_option("--server", options.server, "kjudge-server address (host:port)")->capture_default_str();
  if (const char* key = std::getenv("KJUDGE_API_KEY")) options.api_key = key;
  // The runner child, the one process that loads submitted kernels, inherits this environment;
  // it needs no credentials.
  unsetenv("KJUDGE_API_KEY");
  app.add_option("--api-key", options.api_key, "API key with role worker (env KJUDGE_API_KEY)");
  app.add_option("--tls-ca", options.tls_ca, "connect with TLS, trusting this CA certificate (PEM)");
  app.add_option("--runner", runner, "path of kjudge-runner")->capture_default_str();
  app.add_option("--cache-dir", cache_dir, "directory for compiled cubins (created if missing)")->capture_default_str();
  app.add_option("--device", device, "CUDA device index this worker drives")->capture_default_str();
  app.add_flag("--compile-only", compile_only, "only compile, even if a GPU is present");
  app.add_option("--arch", arch, "NVRTC target in compile-only mode (default sm_90a)");
  app.add_option("--name", options.name, "name shown on the dashboard (default host:gpuN)");
  app.add_option("--compile-timeout", compile_s, "seconds a compilation may take")->capture_default_str();
  app.add_option("--stall-timeout", stall_s, "seconds without progress before a kernel counts as hung")
      ->capture_default_str();
  app.add_option("--job-timeout", job_s, "seconds a whole job may take")->capture_default_str();
  app.add_option("--time-budget-ms", time_budget_ms, "timing budget per benchmark shape")->capture_default_str();
  app.add_option("--max-jobs", options.max_jobs, "exit after this many jobs (0: never)")->capture_default_str();
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error")->capture_default_str();
  app.add_option("--log-format", log_format, "text, or json (one object per line, for log pipelines)")
      ->capture_default_str()->check(CLI::IsMember({"text", "json"}));
  CLI11_PARSE(app, argc, argv);
  kjudge::InitLogging("worker", log_level, log_format);
  if (options.name.empty()) options.name = HostName() + ":gpu" + std::to_string(device);

  std::error_code error;
  std::filesystem::create_directories(cache_dir, error);
  if (error) {
    spdlog::error("cannot create the cubin cache directory '{}': {}", cache_dir, error.message());
    return 2;
  }
  std::vector<std::string> runner_args = {"--device", std::to_string(device), "--cache-dir", cache_dir,
                                          "--time-budget-ms", std::to_string(time_budget_ms)};
  if (compile_only) runner_args.push_back("--compile-only");
  if (!arch.empty()) {
    runner_args.push_back("--arch");
    runner_args.push_back(arch);
  }
  using ms = std::chrono::milliseconds;
  kjudge::worker::WatchdogLimits limits;
  limits.compile = ms(static_cast<int64_t>(compile_s * 1000));
  limits.stall = ms(static_cast<int64_t>(stall_s * 1000));
  limits.job = ms(static_cast<int64_t>(job_s * 1000));
  kjudge::worker::RunnerSupervisor supervisor(runner, runner_args, limits);
  if (absl::StatusOr<kjudge::v1::GpuInfo> gpu = supervisor.Start(); !gpu.ok()) {
    spdlog::error("{}", gpu.status().message());
    return 2;
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
  kjudge::worker::WorkerLoop loop(options, &supervisor);
  return loop.Run(stop_requests);
}
