// Serve: runs kjudge-server until SIGINT/SIGTERM: loads the catalog, opens and migrates the
// database, starts both gRPC services (with the health service), the metrics endpoint and the
// lease-expiry loop, and on a signal stops taking calls and shuts down in order. Queued and
// running jobs stay in the database and are picked up by the next start.
#pragma once

#include <string>

namespace kjudge::server {

struct ServeOptions {
  std::string db_path = "kjudge.sqlite";
  std::string listen = "127.0.0.1:50051";
  std::string problems = "problems";
  std::string metrics_listen;  // "" = no metrics endpoint
  int lease_seconds = 30;
  int max_attempts = 3;
  bool require_auth = false;
  // Sized for RL (issue 27 point 5): one key may submit a step of 512 (or 1024) completions at
  // once, singly or in batches, and 64 a second after that; the active-job cap bounds the queue.
  double submit_rate = 64.0;  // per key per second; 0 = unlimited
  double submit_burst = 1024.0;
  int64_t max_active_jobs_per_key = 5000;
  // open job streams (WatchJob, WatchJobs, Evaluate): 1024 so that 512 concurrent evaluate()
  // calls of one asyncio loop fit, twice over
  int max_streams_per_key = 1024;
  int max_streams_total = 8192;
  std::string tls_cert;  // PEM files; both or neither
  std::string tls_key;
  // Transport limits (docs: README "Limits"). Seconds unless named otherwise; 0 = no limit
  // where noted.
  // plaintext: a new connection silent this long is closed. Not 2 s: gRPC's Python client
  // (grpcio 1.51) was seen holding a reconnection silent for 2-5 s after a server restart, and
  // closing it at 2 s kept that client out for good. Silent connections cannot lock others
  // out meanwhile: when descriptors run short the oldest silent one is closed first.
  int first_bytes_timeout_ms = 10000;
  int max_pending_per_address = 64;      // plaintext: connections one address may hold before speaking
  int handshake_timeout_s = 10;          // TLS listener: connection closed without HTTP/2 SETTINGS by then
  int max_connection_idle_s = 30;        // a connection with no call for this long is closed
  int max_connection_age_s = 3600;       // then GOAWAY: clients reconnect for new calls (0: no limit)
  int max_connection_age_grace_s = 900;  // calls still open at GOAWAY get this long to finish
  int max_streams_per_connection = 1000; // HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS
  int keepalive_s = 60;                  // server pings a quiet connection; no answer in 20 s closes it
  // The largest request accepted (every RPC: gRPC C++ has no per-method limit). A Submit is at
  // most 1 MiB of source + 64 KiB of plan + tags; a worker's CompleteJob is capped (result_caps.h)
  // well below this; a SubmitBatch must fit it too.
  int max_message_bytes = 4 << 20;
  // gRPC's memory quota for transport buffers (incoming messages being assembled, among
  // others): near it gRPC shrinks HTTP/2 windows, resets streams and sends GOAWAY, so many large
  // requests at once cannot grow the server without bound (bench/transport: 100 concurrent
  // keyless 15 MiB Submits peak at ~134 MiB RSS with 64, ~340 MiB with 256 or none).
  int memory_quota_mib = 64;
};

int Serve(const ServeOptions& options);

// `kjudge-server keys ...`: manage API keys in the database file.
int CreateKey(const std::string& db_path, const std::string& name, const std::string& role, bool json);
int ListKeys(const std::string& db_path, bool json);
int RevokeKey(const std::string& db_path, const std::string& id);

}  // namespace kjudge::server
