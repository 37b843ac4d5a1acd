// kjudge-server: the API, the durable queue and the results. Links no CUDA.
#include <signal.h>
#include <sys/stat.h>

#include "CLI/CLI.hpp"
#include "common/log.h"
#include "server/database_check.h"
#include "server/serve.h"

int main(int argc, char** argv) {
  // Everything the server creates (the database and its -wal/-shm files, any directory) is
  // owner-only whatever umask it was started with: they hold every tenant's sources and the
  // key hashes. serve.cc narrows database files that already existed.
  ::umask(077);
  // Block termination signals (and SIGHUP: reload the catalog) before any thread starts, so only
  // Serve's sigwait sees them.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);

  kjudge::server::ServeOptions options;
  std::string log_level = "info";
  std::string log_format = "text";
  bool json = false;
  CLI::App app{"kjudge-server: the kjudge API, durable job queue and results store.\n"
               "Workers (kjudge-worker) connect to it to pull jobs; clients (kjudge) submit.\n"
               "With --require-auth every call needs an API key: create them with `keys create`."};
  app.add_option("--db", options.db_path, "SQLite file (created if missing; WAL mode)")->capture_default_str();
  app.add_option("--listen", options.listen, "host:port for both gRPC services")->capture_default_str();
  app.add_option("--problems", options.problems, "problem catalog directory")->capture_default_str();
  app.add_option("--metrics-listen", options.metrics_listen, "host:port for Prometheus /metrics (off if empty)");
  app.add_option("--lease-seconds", options.lease_seconds, "how long a worker holds a job without renewing")
      ->capture_default_str()->check(CLI::Range(2, 3600));
  app.add_option("--max-attempts", options.max_attempts, "leases per job before INTERNAL_ERROR")
      ->capture_default_str()->check(CLI::Range(1, 100));
  app.add_flag("--require-auth", options.require_auth, "refuse calls without a valid API key");
  app.add_option("--submit-rate", options.submit_rate, "submissions per second per key (0: unlimited)")->capture_default_str();
  app.add_option("--submit-burst", options.submit_burst, "submissions a key may make at once")->capture_default_str();
  app.add_option("--max-active-jobs-per-key", options.max_active_jobs_per_key, "queued + running jobs per key (0: no cap)")
      ->capture_default_str();
  app.add_option("--max-streams-per-key", options.max_streams_per_key,
                 "open WatchJob/WatchJobs/Evaluate calls per key")
      ->capture_default_str();
  app.add_option("--max-streams", options.max_streams_total, "open WatchJob/WatchJobs/Evaluate calls in total")
      ->capture_default_str();
  app.add_option("--tls-cert", options.tls_cert, "PEM certificate: serve TLS (with --tls-key)");
  app.add_option("--tls-key", options.tls_key, "PEM private key");
  app.add_option("--first-bytes-timeout-ms", options.first_bytes_timeout_ms,
                 "plaintext: close a new connection that has sent nothing by then (frees its descriptor)")
      ->capture_default_str()->check(CLI::Range(100, 600000));
  app.add_option("--max-pending-per-address", options.max_pending_per_address,
                 "plaintext: connections one peer address may hold open before sending anything")
      ->capture_default_str()->check(CLI::Range(1, 1000000));
  app.add_option("--handshake-timeout-s", options.handshake_timeout_s,
                 "TLS: close a connection that has not completed TLS and HTTP/2 setup by then")
      ->capture_default_str()->check(CLI::Range(1, 600));
  app.add_option("--max-connection-idle-s", options.max_connection_idle_s,
                 "close a connection without any call for this long (also frees descriptors held by silent ones)")
      ->capture_default_str()->check(CLI::Range(1, 86400));
  app.add_option("--max-connection-age-s", options.max_connection_age_s,
                 "send GOAWAY to a connection this old: new calls go to a fresh connection (0: no limit)")
      ->capture_default_str()->check(CLI::Range(0, 86400 * 7));  // in ms it must fit an int
  app.add_option("--max-connection-age-grace-s", options.max_connection_age_grace_s,
                 "calls still open at that GOAWAY may run this long before the connection closes")
      ->capture_default_str()->check(CLI::Range(1, 86400));
  app.add_option("--max-streams-per-connection", options.max_streams_per_connection,
                 "concurrent calls one HTTP/2 connection may have open (more wait on the client)")
      ->capture_default_str()->check(CLI::Range(1, 100000));
  app.add_option("--keepalive-s", options.keepalive_s, "ping a quiet connection this often; closed if no answer in 20 s")
      ->capture_default_str()->check(CLI::Range(10, 86400));
  app.add_option("--max-message-bytes", options.max_message_bytes,
                 "largest request accepted, any RPC (a Submit needs up to ~1.1 MiB; a SubmitBatch must fit)")
      ->capture_default_str()->check(CLI::Range(1 << 20, 1 << 30));
  app.add_option("--memory-quota-mib", options.memory_quota_mib,
                 "memory gRPC may use for connection buffers before it slows and sheds them")
      ->capture_default_str()->check(CLI::Range(16, 1 << 20));
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error")->capture_default_str();
  app.add_option("--log-format", log_format, "text, or json (one object per line, for log pipelines)")
      ->capture_default_str()->check(CLI::IsMember({"text", "json"}));
  app.add_flag("--json", json, "machine-readable output for the keys and check commands");

  auto* keys = app.add_subcommand("keys", "manage API keys in --db (no server needed)");
  keys->require_subcommand(1);
  std::string key_name, key_role = "submitter", key_id;
  auto* create = keys->add_subcommand("create", "create a key and print it (shown only once)");
  create->add_option("name", key_name, "who the key is for, e.g. an agent or a person")->required();
  create->add_option("--role", key_role, "submitter, worker or admin")->capture_default_str();
  auto* list = keys->add_subcommand("list", "list active keys");
  auto* revoke = keys->add_subcommand("revoke", "revoke a key by its id (kj_...)");
  revoke->add_option("id", key_id, "key id")->required();
  auto* check = app.add_subcommand(
      "check", "check --db after a crash or a kill: SQLite's integrity and foreign-key checks and the queue's states "
               "(reads only; safe while a server serves the file). Exit 0 whole, 1 problems found, 2 unreadable");
  CLI11_PARSE(app, argc, argv);
  kjudge::InitLogging("server", log_level, log_format);

  if (*create) return kjudge::server::CreateKey(options.db_path, key_name, key_role, json);
  if (*list) return kjudge::server::ListKeys(options.db_path, json);
  if (*revoke) return kjudge::server::RevokeKey(options.db_path, key_id);
  if (*check) return kjudge::server::CheckDatabaseCommand(options.db_path, json);
  return kjudge::server::Serve(options);
}
