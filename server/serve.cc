#include "server/serve.h"

#include <grpcpp/grpcpp.h>
#include <google/protobuf/stubs/logging.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/resource_quota.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <thread>

#include "common/flag_file.h"
#include "common/log.h"
#include "nlohmann/json.hpp"
#include "server/catalog_reload.h"
#include "server/client_service.h"
#include "server/migrations.h"
#include "server/tcp_listener.h"
#include "server/worker_service.h"
#include "common/status_macros.h"

namespace kjudge::server {
namespace {

absl::StatusOr<std::unique_ptr<Database>> OpenMigrated(const std::string& path) {
  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(path);
  if (!db.ok()) return db.status();
  KJ_RETURN_IF_ERROR(ApplyMigrations(**db, BuiltinMigrations()));
  return db;
}

// The TLS files are read here, before anything else starts, so a file that cannot be read is
// reported as exactly that (gRPC would only fail to bind, which reads as "port in use").
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> Credentials(const ServeOptions& options) {
  if (options.tls_cert.empty()) return grpc::InsecureServerCredentials();
  absl::StatusOr<std::string> cert = ReadFlagFile("--tls-cert", options.tls_cert);
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadFlagFile("--tls-key", options.tls_key);
  if (!key.ok()) return key.status();
  if (cert->find("-----BEGIN CERTIFICATE-----") == std::string::npos) {
    return absl::InvalidArgumentError("--tls-cert " + options.tls_cert +
                                      " holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
  }
  if (key->find("PRIVATE KEY-----") == std::string::npos) {
    return absl::InvalidArgumentError("--tls-key " + options.tls_key +
                                      " holds no PEM private key (-----BEGIN ... PRIVATE KEY-----)");
  }
  grpc::SslServerCredentialsOptions ssl;
  ssl.pem_key_cert_pairs.push_back({*std::move(key), *std::move(cert)});
  return grpc::SslServerCredentials(ssl);
}

// Files the server creates (the database and its -wal and -shm files) hold every tenant's
// sources and the key hashes: owner-only whatever the umask or an older version left. main
// sets umask(077) for new files; this narrows files that already existed.
void RestrictDatabaseFiles(const std::string& db_path) {
  for (const char* suffix : {"", "-wal", "-shm"}) {
    const std::string path = db_path + suffix;
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0 || (info.st_mode & 077) == 0) continue;
    if (::chmod(path.c_str(), info.st_mode & 0700) != 0) {
      spdlog::warn("cannot make {} owner-only: {}", path, std::strerror(errno));
    }
  }
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

// Every connection costs a descriptor and the usual soft limit is 1024: raise the soft limit to
// the hard one (LimitNOFILE= in the systemd unit). Returns the soft limit now in effect.
int64_t RaiseDescriptorLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
  const rlim_t before = limit.rlim_cur;
  rlim_t target = limit.rlim_max;
  if (target == RLIM_INFINITY) {
    // setrlimit refuses more than fs.nr_open.
    std::ifstream nr_open("/proc/sys/fs/nr_open");
    int64_t most = 1 << 20;
    nr_open >> most;
    target = static_cast<rlim_t>(most);
  }
  if (target > limit.rlim_cur) {
    limit.rlim_cur = target;
    if (setrlimit(RLIMIT_NOFILE, &limit) != 0) getrlimit(RLIMIT_NOFILE, &limit);
  }
  spdlog::info("descriptor limit (RLIMIT_NOFILE): soft {} -> {}, hard {}", static_cast<int64_t>(before),
               static_cast<int64_t>(limit.rlim_cur),
               limit.rlim_max == RLIM_INFINITY ? std::string("unlimited") : std::to_string(limit.rlim_max));
  return static_cast<int64_t>(limit.rlim_cur);
}

// Limits that keep idle, silent or greedy connections from holding the server's resources.
// Long calls in use (WatchJob, a worker's lease poll of up to 30 s) keep their connection: the
// idle limit counts only time without any call, and the age limit's GOAWAY lets open calls run
// for the grace period while new calls go to a fresh connection.
void ApplyTransportLimits(const ServeOptions& options, grpc::ServerBuilder* builder) {
  const auto ms = [](int seconds) { return seconds * 1000; };
  builder->AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);  // a second server must fail to bind
  builder->AddChannelArgument(GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS, ms(options.handshake_timeout_s));
  builder->AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, ms(options.max_connection_idle_s));
  if (options.max_connection_age_s > 0) {
    builder->AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_MS, ms(options.max_connection_age_s));
    builder->AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_GRACE_MS, ms(options.max_connection_age_grace_s));
  }
  builder->AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, options.max_streams_per_connection);
  // Find dead peers holding streams open; keep pinging while a stream is quiet.
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, ms(options.keepalive_s));
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, ms(20));
  builder->AddChannelArgument(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  // Enforcement of clients' pings (gRPC's defaults, stated): at most one per 5 min without
  // calls, two strikes and the connection gets GOAWAY.
  builder->AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, ms(300));
  builder->AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 2);
}

// protobuf logs one line per malformed message it parses (invalid UTF-8 in a string field:
// "String field ... contains invalid UTF-8 data"), so anyone could write the server's log at
// will. The first line is kept, then at most one line per kProtobufLogEveryMs with how many
// were dropped. The lines name fields only, never the data.
constexpr int64_t kProtobufLogEveryMs = 10000;
std::mutex protobuf_log_mutex;
int64_t protobuf_log_last_ms = -kProtobufLogEveryMs;
int64_t protobuf_log_dropped = 0;

void ProtobufLog(google::protobuf::LogLevel level, const char* /*filename*/, int /*line*/,
                 const std::string& message) {
  const std::string text = message.substr(0, 300);
  if (level == google::protobuf::LOGLEVEL_FATAL) {
    spdlog::critical("protobuf: {}", text);
    return;
  }
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count();
  std::lock_guard lock(protobuf_log_mutex);
  if (now - protobuf_log_last_ms < kProtobufLogEveryMs) {
    ++protobuf_log_dropped;
    return;
  }
  protobuf_log_last_ms = now;
  if (protobuf_log_dropped > 0) {
    spdlog::warn("protobuf: {} ({} more protobuf lines dropped since the last one; at most one per {} s)", text,
                 protobuf_log_dropped, kProtobufLogEveryMs / 1000);
  } else {
    spdlog::warn("protobuf: {}", text);
  }
  protobuf_log_dropped = 0;
}

// Waits for SIGINT or SIGTERM (returned: time to stop); every SIGHUP on the way reloads the
// problem catalog (`kjudge problems reload` does the same over gRPC).
int WaitForSignal(ServerState* state) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  for (;;) {
    int signal_number = 0;
    sigwait(&set, &signal_number);
    if (signal_number != SIGHUP) return signal_number;
    spdlog::info("SIGHUP: reloading the problem catalog");
    (void)ReloadCatalog(state);  // logs its outcome; a refused reload keeps the old catalog
  }
}

}  // namespace

int Serve(const ServeOptions& options) {
  if (options.tls_cert.empty() != options.tls_key.empty()) {
    spdlog::error("--tls-cert and --tls-key go together");
    return 2;
  }
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials = Credentials(options);
  if (!credentials.ok()) {
    spdlog::error("{}", credentials.status().message());
    return 2;
  }
  const int64_t descriptor_limit = RaiseDescriptorLimit();
  // Plaintext: our own accept loop (server/tcp_listener.h says why). Bound first, so a second
  // server on the same port stops before it touches the database. With TLS the port is only
  // probed here (gRPC binds it below), so "port in use" is reported as that and nothing else.
  std::unique_ptr<TcpListener> listener;
  {
    absl::StatusOr<std::unique_ptr<TcpListener>> bound = TcpListener::Bind(options.listen);
    if (!bound.ok()) {
      spdlog::error("{}", bound.status().message());
      return 2;
    }
    if (options.tls_cert.empty()) listener = std::move(*bound);
  }
  absl::StatusOr<std::unique_ptr<ProblemCatalog>> loaded = ProblemCatalog::Load(options.problems);
  if (!loaded.ok()) {
    spdlog::error("cannot load the problem catalog from '{}': {}", options.problems, loaded.status().message());
    return 2;
  }
  LiveCatalog catalog(options.problems, std::move(*loaded));
  absl::StatusOr<std::unique_ptr<Database>> db = OpenMigrated(options.db_path);
  if (!db.ok()) {
    // Database::Open's sentences name the file; others (a failed migration) get it here.
    const std::string message(db.status().message());
    if (message.find(options.db_path) != std::string::npos) {
      spdlog::error("{}", message);
    } else {
      spdlog::error("cannot use the database {}: {}", options.db_path, message);
    }
    return 2;
  }
  RestrictDatabaseFiles(options.db_path);
  absl::StatusOr<std::unique_ptr<ServerMetrics>> metrics = ServerMetrics::Create(options.metrics_listen);
  if (!metrics.ok()) {
    spdlog::error("{}", metrics.status().message());
    return 2;
  }
  SharedDatabase shared{std::move(*db), {}, SystemNowMs};
  JobStore jobs(&shared, JobStoreOptions{options.max_attempts, options.lease_seconds * 1000LL});
  // Leases are judged on a clock that never steps, which this process starts: the running jobs'
  // stored expiries are from the previous one, so each gets a full lease period from now.
  if (absl::StatusOr<int64_t> restarted = jobs.RestartLeases(); !restarted.ok()) {
    spdlog::error("{}", restarted.status().message());
    return 2;
  }
  // Jobs queued under an older catalog are routed by what their problem is now.
  absl::StatusOr<int64_t> rerouted = jobs.RouteQueuedJobs(catalog.PyTorchOnlyNames());
  if (!rerouted.ok()) {
    spdlog::error("{}", rerouted.status().message());
    return 2;
  }
  if (*rerouted > 0) {
    spdlog::info("{} queued jobs rerouted: their problems gained or lost a CUDA reference", *rerouted);
  }
  WorkerRegistry workers(&shared);
  BaselineStore baselines(&shared);
  ApiKeys keys(&shared);
  Authorizer auth(&keys, options.require_auth);
  RateLimiter submit_rate(options.submit_rate, options.submit_burst);
  JobEvents events;
  ServerState state{&catalog, &jobs, &workers, &baselines, &events, IntakeLimits{}, &auth,
                    &submit_rate, options.max_active_jobs_per_key, metrics->get()};
  WorkerCapacityCache capacity(&shared);
  state.capacity = &capacity;
  ClientService client_service(&state, StreamCaps{options.max_streams_per_key, options.max_streams_total});
  WorkerService worker_service(&state, options.lease_seconds);
  if (options.require_auth && keys.Count().value_or(0) == 0) {
    spdlog::warn("auth is required but no API key exists: create one with `kjudge-server --db {} keys create NAME --role admin`",
                 options.db_path);
  }

  google::protobuf::SetLogHandler(&ProtobufLog);  // before any request is parsed
  grpc::EnableDefaultHealthCheckService(true);
  grpc::ServerBuilder builder;
  int bound_port = 0;
  if (listener == nullptr) {
    // TLS: gRPC's own listener (it cannot take accepted descriptors for TLS), without the
    // descriptor guard; the handshake timeout closes connections that never finish TLS.
    builder.AddListeningPort(options.listen, *credentials, &bound_port);
  }
  builder.RegisterService(&client_service);
  builder.RegisterService(&worker_service);
  builder.SetMaxReceiveMessageSize(options.max_message_bytes);
  grpc::ResourceQuota quota("kjudge-server");
  quota.Resize(static_cast<size_t>(options.memory_quota_mib) << 20);
  builder.SetResourceQuota(quota);
  ApplyTransportLimits(options, &builder);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || (listener == nullptr && bound_port == 0)) {
    if (listener != nullptr) {
      spdlog::error("cannot start the gRPC server on {}", options.listen);
    } else {
      // The port was free a moment ago and both files were read: gRPC refused the pair.
      spdlog::error("cannot serve TLS on {} with --tls-cert {} and --tls-key {}: gRPC refused them (is the key "
                    "the certificate's? is the port still free?)",
                    options.listen, options.tls_cert, options.tls_key);
    }
    return 2;
  }
  if (listener != nullptr) {
    listener->Start(server.get(), TcpListener::Limits{descriptor_limit, options.first_bytes_timeout_ms,
                                                      options.max_pending_per_address});
  }
  absl::StatusOr<JobStore::Counts> counts = jobs.CountByState();
  // The port actually bound: with ":0" the kernel picks one, and scripts and tests read it here.
  const int port = listener != nullptr ? listener->port() : bound_port;
  const std::string listening = options.listen.substr(0, options.listen.rfind(':') + 1) + std::to_string(port);
  spdlog::info("kjudge-server listening on {} (db {}, {} problems, {} queued, {} running; auth {}, tls {}{})",
               listening, options.db_path, catalog.size(), counts.ok() ? counts->queued : -1,
               counts.ok() ? counts->running : -1, options.require_auth ? "required" : "off",
               options.tls_cert.empty() ? "off" : "on",
               options.metrics_listen.empty() ? "" : ", metrics on http://" + options.metrics_listen + "/metrics");

  std::atomic<bool> stop{false};
  std::thread housekeeping(Housekeeping, &state, &stop);
  const int signal_number = WaitForSignal(&state);
  spdlog::info("signal {}: shutting down (queued and running jobs stay in the database)", signal_number);
  server->GetHealthCheckService()->SetServingStatus(false);
  if (listener != nullptr) listener->Stop();
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
    // A JSON library, never string pasting: the name is the operator's free text (quotes,
    // backslashes, newlines, U+2028). ASCII-only output, invalid UTF-8 shown as U+FFFD.
    const nlohmann::json line = {
        {"id", created->key.id}, {"name", name}, {"role", role_name}, {"key", created->secret}};
    std::printf("%s\n", line.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace).c_str());
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
      const nlohmann::json line = {{"id", key.id}, {"name", key.name}, {"role", RoleName(key.role)}};
      std::printf("%s\n", line.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace).c_str());
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
