// kjudge-server: the API, the durable queue and the results. Links no CUDA.
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <signal.h>

#include <atomic>
#include <thread>

#include "CLI/CLI.hpp"
#include "server/client_service.h"
#include "server/migrations.h"
#include "server/worker_service.h"
#include "common/log.h"

namespace kjudge::server {
namespace {

struct Options {
  std::string db_path = "kjudge.sqlite";
  std::string listen = "127.0.0.1:50051";
  std::string problems = "problems";
  int lease_seconds = 30;
  int max_attempts = 3;
  std::string log_level = "info";
};

// Requeues jobs whose worker went quiet, once a second, until stop is set.
void ExpireLeasesLoop(JobStore* jobs, JobEvents* events, const std::atomic<bool>* stop) {
  while (!stop->load()) {
    absl::StatusOr<int> expired = jobs->ExpireLeases();
    if (!expired.ok()) {
      spdlog::warn("lease expiry failed: {}", expired.status().ToString());
    } else if (*expired > 0) {
      spdlog::warn("{} job lease(s) expired: requeued or failed", *expired);
      events->Notify();
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

int Run(const Options& options) {
  spdlog::set_level(spdlog::level::from_str(options.log_level));
  absl::StatusOr<std::unique_ptr<ProblemCatalog>> catalog = ProblemCatalog::Load(options.problems);
  if (!catalog.ok()) {
    spdlog::error("cannot load the problem catalog from '{}': {}", options.problems,
                  catalog.status().message());
    return 2;
  }
  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(options.db_path);
  if (!db.ok()) {
    spdlog::error("{}", db.status().message());
    return 2;
  }
  if (absl::Status s = ApplyMigrations(**db, BuiltinMigrations()); !s.ok()) {
    spdlog::error("{}", s.message());
    return 2;
  }
  SharedDatabase shared{std::move(*db), {}, SystemNowMs};
  JobStore jobs(&shared, JobStoreOptions{options.max_attempts, options.lease_seconds * 1000LL});
  WorkerRegistry workers(&shared);
  BaselineStore baselines(&shared);
  JobEvents events;
  ServerState state{catalog->get(), &jobs, &workers, &baselines, &events, IntakeLimits{}};
  ClientService client_service(&state);
  WorkerService worker_service(&state, options.lease_seconds);

  grpc::EnableDefaultHealthCheckService(true);
  grpc::ServerBuilder builder;
  int bound_port = 0;
  builder.AddListeningPort(options.listen, grpc::InsecureServerCredentials(), &bound_port);
  builder.RegisterService(&client_service);
  builder.RegisterService(&worker_service);
  builder.SetMaxReceiveMessageSize(16 << 20);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || bound_port == 0) {
    spdlog::error("cannot listen on {}: is another server using the port? (--listen HOST:PORT)",
                  options.listen);
    return 2;
  }
  absl::StatusOr<JobStore::Counts> counts = jobs.CountByState();
  spdlog::info("kjudge-server listening on {} (db {}, {} problems, {} queued, {} running)",
               options.listen, options.db_path, (*catalog)->size(), counts.ok() ? counts->queued : -1,
               counts.ok() ? counts->running : -1);

  std::atomic<bool> stop{false};
  std::thread expiry(ExpireLeasesLoop, &jobs, &events, &stop);
  // Signals were blocked in main; wait for one here and shut down in order.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  int signal_number = 0;
  sigwait(&set, &signal_number);
  spdlog::info("signal {}: shutting down (queued jobs stay queued)", signal_number);
  events.Shutdown();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  stop = true;
  expiry.join();
  return 0;
}

}  // namespace
}  // namespace kjudge::server

int main(int argc, char** argv) {
  // Block termination signals before any thread starts, so only sigwait sees them.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);

  kjudge::server::Options options;
  CLI::App app{"kjudge-server: the kjudge API, durable job queue and results store.\n"
               "Workers (kjudge-worker) connect to it to pull jobs; clients (kjudge) submit."};
  app.add_option("--db", options.db_path, "SQLite file (created if missing; WAL mode)")->capture_default_str();
  app.add_option("--listen", options.listen, "host:port for both gRPC services")->capture_default_str();
  app.add_option("--problems", options.problems, "problem catalog directory")->capture_default_str();
  app.add_option("--lease-seconds", options.lease_seconds, "how long a worker holds a job without renewing")
      ->capture_default_str()->check(CLI::Range(2, 3600));
  app.add_option("--max-attempts", options.max_attempts, "leases per job before INTERNAL_ERROR")
      ->capture_default_str()->check(CLI::Range(1, 100));
  app.add_option("--log-level", options.log_level, "trace, debug, info, warn, error")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  return kjudge::server::Run(options);
}
