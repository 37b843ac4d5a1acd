// kjudge-bench-dashboard-slowloris: how /healthz and a page answer while N keyless clients hold
// connections open by trickling a header byte at a time (slow-loris), over loopback only.
//
// It makes a fresh database (the server's migrations, one submitter key), serves the
// dashboard's routes in-process twice - on cpp-httplib's defaults (8 threads, backlog 5, a 5 s
// timeout restarted by every byte: what kjudge-dashboard used before issue 25) and on the
// dashboard's own listener (dashboard/listener.h: 256 threads, backlog 1024, a 10 s deadline per
// request) - and for each N opens N connections that send one header byte every --trickle-ms,
// then times --probes requests each to /healthz and /jobs (Bearer key), spaced 500 ms. A
// request that takes longer than --timeout-s counts as failed. Prints one row per server and N.
// Usage: kjudge-bench-dashboard-slowloris --problems problems [--connections 0,8,50,200]
#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <thread>

#include "CLI/CLI.hpp"
#include "absl/strings/str_format.h"
#include "dashboard/app.h"
#include "dashboard/listener.h"
#include "server/migrations.h"

namespace kjudge {
namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

void Check(const absl::Status& status, const char* what) {
  if (!status.ok()) {
    std::cerr << what << ": " << status << "\n";
    std::exit(1);
  }
}

int Connect(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  (void)bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

struct Row {
  std::vector<double> ms;  // answered requests
  int failed = 0;
};

std::string Summary(Row r) {
  if (r.ms.empty()) return absl::StrFormat("%10s %10s %6d", "-", "-", r.failed);
  std::sort(r.ms.begin(), r.ms.end());
  return absl::StrFormat("%10.1f %10.1f %6d", r.ms[r.ms.size() / 2], r.ms.back(), r.failed);
}

// N slow-loris connections against `port` while `probes` requests per path are timed.
void Measure(const std::string& label, int port, int n, int probes, int trickle_ms, int timeout_s, const std::string& key) {
  std::vector<int> holds;
  for (int i = 0; i < n; ++i) {
    const int fd = Connect(port);
    if (fd < 0) continue;
    const std::string start = absl::StrFormat("GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Slow: ", port);
    send(fd, start.data(), start.size(), MSG_NOSIGNAL);
    holds.push_back(fd);
  }
  std::atomic<bool> stop{false};
  std::thread trickle([&] {
    while (!stop) {
      for (int fd : holds) send(fd, "a", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
      for (int i = 0; i < trickle_ms / 50 && !stop; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));  // let them take their threads
  Row rows[2];
  const char* paths[2] = {"/healthz", "/jobs"};
  for (int p = 0; p < probes; ++p) {
    for (int i = 0; i < 2; ++i) {
      httplib::Client client("127.0.0.1", port);
      client.set_connection_timeout(timeout_s, 0);
      client.set_read_timeout(timeout_s, 0);
      const Clock::time_point start = Clock::now();
      httplib::Result r = client.Get(paths[i], {{"Authorization", "Bearer " + key}});
      if (r && r->status == 200) {
        rows[i].ms.push_back(Ms(Clock::now() - start));
      } else {
        ++rows[i].failed;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  stop = true;
  trickle.join();
  for (int fd : holds) close(fd);
  std::cout << absl::StrFormat("%-26s %5d  %s  %s\n", label, n, Summary(rows[0]), Summary(rows[1])) << std::flush;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
}

int Main(const std::string& problems_dir, const std::vector<int>& counts, int probes, int trickle_ms, int timeout_s) {
  const std::string dir = std::filesystem::temp_directory_path() / absl::StrFormat("kjudge-slowloris-%d", getpid());
  std::filesystem::create_directories(dir);
  const std::string db_path = dir + "/kjudge.sqlite";
  absl::StatusOr<std::unique_ptr<server::Database>> db = server::Database::Open(db_path);
  Check(db.status(), "open");
  Check(server::ApplyMigrations(**db, server::BuiltinMigrations()), "migrate");
  server::SharedDatabase shared{std::move(*db), {}, server::SystemNowMs};
  server::ApiKeys keys(&shared);
  absl::StatusOr<server::CreatedKey> key = keys.Create("bench-tenant", server::Role::kSubmitter);
  Check(key.status(), "key");
  absl::StatusOr<std::unique_ptr<server::ProblemCatalog>> catalog = server::ProblemCatalog::Load(problems_dir);
  Check(catalog.status(), "catalog");
  server::LiveCatalog live(problems_dir, std::move(*catalog));
  absl::StatusOr<std::unique_ptr<dashboard::Queries>> queries = dashboard::Queries::Open(db_path);
  Check(queries.status(), "dashboard");

  std::cout << absl::StrFormat("slow-loris: one header byte every %d ms per connection; %d probes per path, 500 ms apart; "
                               "failed = no 200 within %d s\n",
                               trickle_ms, probes, timeout_s);
  std::cout << absl::StrFormat("%-26s %5s  %10s %10s %6s  %10s %10s %6s\n", "server", "conns", "healthz p50", "max ms",
                               "failed", "/jobs p50", "max ms", "failed");
  for (const bool hardened : {false, true}) {
    for (int n : counts) {
      const int port = FreePort();
      std::unique_ptr<httplib::Server> http;
      dashboard::ListenerLimits limits;
      if (hardened) {
        http = *dashboard::MakeServer(limits, "", "");
      } else {
        http = std::make_unique<httplib::Server>();
        http->set_tcp_nodelay(true);
      }
      dashboard::AppOptions options;
      options.require_auth = true;
      dashboard::App app(queries->get(), &live, options);
      app.Register(*http);
      if (hardened) {
        Check(dashboard::Bind(*http, "127.0.0.1", port, limits), "bind");
      } else if (!http->bind_to_port("127.0.0.1", port)) {
        Check(absl::UnavailableError("bind"), "bind");
      }
      std::thread serving([&] { http->listen_after_bind(); });
      Measure(hardened ? "dashboard listener" : "cpp-httplib defaults", port, n, probes, trickle_ms, timeout_s, key->secret);
      http->stop();
      serving.join();
    }
  }
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace kjudge

int main(int argc, char** argv) {
  std::string problems = "problems";
  std::vector<int> counts = {0, 8, 50, 200};
  int probes = 6, trickle_ms = 1000, timeout_s = 5;
  CLI::App cli{"kjudge-bench-dashboard-slowloris: /healthz and /jobs latency while N slow-loris connections are open "
               "(loopback only)"};
  cli.add_option("--problems", problems, "problem catalog directory")->capture_default_str();
  cli.add_option("--connections", counts, "slow-loris connection counts to try")->delimiter(',')->capture_default_str();
  cli.add_option("--probes", probes, "requests per path per count")->capture_default_str();
  cli.add_option("--trickle-ms", trickle_ms, "ms between header bytes on each slow connection")->capture_default_str();
  cli.add_option("--timeout-s", timeout_s, "a probe slower than this fails")->capture_default_str();
  CLI11_PARSE(cli, argc, argv);
  return kjudge::Main(problems, counts, probes, trickle_ms, timeout_s);
}
