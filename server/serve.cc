#include "server/serve.h"

#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <signal.h>

#include <atomic>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/log.h"
#include "server/client_service.h"
#include "server/migrations.h"
#include "server/worker_service.h"

namespace kjudge::server {
namespace {

absl::StatusOr<std::unique_ptr<Database>> OpenMigrated(const std::string& path) {
  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(path);
  if (!db.ok()) return db.status();
  if (absl::Status s = ApplyMigrations(**db, BuiltinMigrations()); !s.ok()) return s;
  return db;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::shared_ptr<grpc::ServerCredentials> Credentials(const ServeOptions& options) {
  if (options.tls_cert.empty()) return grpc::InsecureServerCredentials();
  grpc::SslServerCredentialsOptions ssl;
  ssl.pem_key_cert_pairs.push_back({ReadAll(options.tls_key), ReadAll(options.tls_cert)});
  return grpc::SslServerCredentials(ssl);
}

// Once a second until stop: requeue jobs whose worker went quiet, refresh the gauges.
void Housekeeping(ServerState* state, const std::atomic<bool>* stop) {
  while (!stop->load()) {
    absl::StatusOr<int> expired = state->jobs->ExpireLeases();
    if (!expired.ok()) {
      spdlog::warn("lease expiry failed: {}", expired.status().message());
    } else if (*expired > 0) {
      spdlog::warn("{} job lease(s) expired: requeued or failed", *expired);
      state->events->Notify();
    }
    absl::StatusOr<JobStore::Counts> counts = state->jobs->CountByState();
    absl::StatusOr<int64_t> live = state->workers->CountSeenSince(SystemNowMs() - 60000);
    if (counts.ok() && live.ok()) state->metrics->Refresh(counts->queued, counts->running, counts->done, *live);
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

int WaitForSignal() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  int signal_number = 0;
  sigwait(&set, &signal_number);
  return signal_number;
}

}  // namespace

int Serve(const ServeOptions& options) {
  if (options.tls_cert.empty() != options.tls_key.empty()) {
    spdlog::error("--tls-cert and --tls-key go together");
    return 2;
  }
  absl::StatusOr<std::unique_ptr<ProblemCatalog>> catalog = ProblemCatalog::Load(options.problems);
  if (!catalog.ok()) {
    spdlog::error("cannot load the problem catalog from '{}': {}", options.problems, catalog.status().message());
    return 2;
  }
  absl::StatusOr<std::unique_ptr<Database>> db = OpenMigrated(options.db_path);
  if (!db.ok()) {
    spdlog::error("{}", db.status().message());
    return 2;
  }
  absl::StatusOr<std::unique_ptr<ServerMetrics>> metrics = ServerMetrics::Create(options.metrics_listen);
  if (!metrics.ok()) {
    spdlog::error("{}", metrics.status().message());
    return 2;
  }
  SharedDatabase shared{std::move(*db), {}, SystemNowMs};
  JobStore jobs(&shared, JobStoreOptions{options.max_attempts, options.lease_seconds * 1000LL});
  WorkerRegistry workers(&shared);
  BaselineStore baselines(&shared);
  ApiKeys keys(&shared);
  Authorizer auth(&keys, options.require_auth);
  RateLimiter submit_rate(options.submit_rate, options.submit_burst);
  JobEvents events;
  ServerState state{catalog->get(), &jobs, &workers, &baselines, &events, IntakeLimits{}, &auth,
                    &submit_rate, options.max_active_jobs_per_key, metrics->get()};
  ClientService client_service(&state, StreamCaps{options.max_streams_per_key, options.max_streams_total});
  WorkerService worker_service(&state, options.lease_seconds);
  if (options.require_auth && keys.Count().value_or(0) == 0) {
    spdlog::warn("auth is required but no API key exists: create one with `kjudge-server --db {} keys create NAME --role admin`",
                 options.db_path);
  }

  grpc::EnableDefaultHealthCheckService(true);
  grpc::ServerBuilder builder;
  int bound_port = 0;
  builder.AddListeningPort(options.listen, Credentials(options), &bound_port);
  builder.RegisterService(&client_service);
  builder.RegisterService(&worker_service);
  builder.SetMaxReceiveMessageSize(16 << 20);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || bound_port == 0) {
    spdlog::error("cannot listen on {}: is another server using the port? (--listen HOST:PORT)", options.listen);
    return 2;
  }
  absl::StatusOr<JobStore::Counts> counts = jobs.CountByState();
  spdlog::info("kjudge-server listening on {} (db {}, {} problems, {} queued, {} running; auth {}, tls {}{})",
               options.listen, options.db_path, (*catalog)->size(), counts.ok() ? counts->queued : -1,
               counts.ok() ? counts->running : -1, options.require_auth ? "required" : "off",
               options.tls_cert.empty() ? "off" : "on",
               options.metrics_listen.empty() ? "" : ", metrics on http://" + options.metrics_listen + "/metrics");

  std::atomic<bool> stop{false};
  std::thread housekeeping(Housekeeping, &state, &stop);
  const int signal_number = WaitForSignal();
  spdlog::info("signal {}: shutting down (queued and running jobs stay in the database)", signal_number);
  server->GetHealthCheckService()->SetServingStatus(false);
  events.Shutdown();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  stop = true;
  housekeeping.join();
  return 0;
}

int CreateKey(const std::string& db_path, const std::string& name, const std::string& role_name, bool json) {
  absl::StatusOr<Role> role = ParseRole(role_name);
  absl::StatusOr<std::unique_ptr<Database>> db = OpenMigrated(db_path);
  if (!role.ok() || !db.ok()) {
    spdlog::error("{}", !role.ok() ? role.status().message() : db.status().message());
    return 2;
  }
  SharedDatabase shared{std::move(*db), {}, SystemNowMs};
  ApiKeys keys(&shared);
  absl::StatusOr<CreatedKey> created = keys.Create(name, *role);
  if (!created.ok()) {
    spdlog::error("{}", created.status().message());
    return 1;
  }
  if (json) {
    std::printf("{\"id\":\"%s\",\"name\":\"%s\",\"role\":\"%s\",\"key\":\"%s\"}\n", created->key.id.c_str(),
                name.c_str(), role_name.c_str(), created->secret.c_str());
  } else {
    std::printf("%s\n", created->secret.c_str());
    std::fprintf(stderr, "key %s (%s, role %s) created. It is shown only now: store it safely.\n",
                 created->key.id.c_str(), name.c_str(), role_name.c_str());
  }
  return 0;
}

int ListKeys(const std::string& db_path, bool json) {
  absl::StatusOr<std::unique_ptr<Database>> db = OpenMigrated(db_path);
  if (!db.ok()) {
    spdlog::error("{}", db.status().message());
    return 2;
  }
  SharedDatabase shared{std::move(*db), {}, SystemNowMs};
  absl::StatusOr<std::vector<ApiKey>> keys = ApiKeys(&shared).List();
  if (!keys.ok()) return 1;
  for (const ApiKey& key : *keys) {
    if (json) {
      std::printf("{\"id\":\"%s\",\"name\":\"%s\",\"role\":\"%s\"}\n", key.id.c_str(), key.name.c_str(),
                  RoleName(key.role).c_str());
    } else {
      std::printf("%-14s %-10s %s\n", key.id.c_str(), RoleName(key.role).c_str(), key.name.c_str());
    }
  }
  return 0;
}

int RevokeKey(const std::string& db_path, const std::string& id) {
  absl::StatusOr<std::unique_ptr<Database>> db = OpenMigrated(db_path);
  if (!db.ok()) {
    spdlog::error("{}", db.status().message());
    return 2;
  }
  SharedDatabase shared{std::move(*db), {}, SystemNowMs};
  absl::StatusOr<bool> revoked = ApiKeys(&shared).Revoke(id);
  if (!revoked.ok() || !*revoked) {
    std::fprintf(stderr, "no active key '%s' (kjudge-server keys list shows them)\n", id.c_str());
    return 1;
  }
  return 0;
}

}  // namespace kjudge::server
