// kjudge-dashboard: the fleet, the queue, every job and every leaderboard, in a browser. Reads
// the server's SQLite file over a read-only connection; see docs/dashboard.md.
#include <httplib.h>
#include <signal.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

#include "CLI/CLI.hpp"
#include "common/log.h"
#include "dashboard/app.h"
#include "dashboard/listener.h"
#include "nlohmann/json.hpp"

namespace {

struct Options {
  std::string db = "kjudge.sqlite";
  std::string listen = "127.0.0.1:8080";
  std::string problems = "problems";
  std::string tls_cert, tls_key;
  bool require_auth = false;
  bool json = false;
  std::vector<std::string> hosts;  // --dashboard-host; empty: the listener's own names
  double session_hours = 12;
  int stop_grace_s = 5;
};

bool IsLoopback(const std::string& host) { return host == "127.0.0.1" || host == "localhost" || host == "::1"; }

// Exit code 2 with a message for bad flags, as the other kjudge commands do.
int Usage(const std::string& message) {
  std::cerr << "kjudge-dashboard: " << message << "\n";
  return 2;
}

int Serve(const Options& options) {
  const size_t colon = options.listen.rfind(':');
  int port = 0;
  if (colon == std::string::npos || !absl::SimpleAtoi(options.listen.substr(colon + 1), &port) || port <= 0 || port > 65535) {
    return Usage("--listen '" + options.listen + "' is not HOST:PORT (e.g. 127.0.0.1:8080)");
  }
  const std::string host = options.listen.substr(0, colon);
  if (!options.require_auth && !IsLoopback(host)) {
    return Usage("without --require-auth every visitor is an admin; listen on 127.0.0.1 or add --require-auth");
  }
  if (options.tls_cert.empty() != options.tls_key.empty()) return Usage("--tls-cert and --tls-key go together");
  if (!(options.session_hours > 0 && options.session_hours <= 24 * 30)) return Usage("--session-hours must be in (0, 720]");
  absl::StatusOr<std::unique_ptr<kjudge::dashboard::Queries>> queries = kjudge::dashboard::Queries::Open(options.db);
  if (!queries.ok()) return Usage(std::string(queries.status().message()));
  absl::StatusOr<std::unique_ptr<kjudge::server::ProblemCatalog>> loaded = kjudge::server::ProblemCatalog::Load(options.problems);
  if (!loaded.ok()) return Usage(std::string(loaded.status().message()));
  kjudge::server::LiveCatalog catalog(options.problems, std::move(*loaded));

  const bool tls = !options.tls_cert.empty();
  const kjudge::dashboard::ListenerLimits limits;
  absl::StatusOr<std::unique_ptr<httplib::Server>> made = kjudge::dashboard::MakeServer(limits, options.tls_cert, options.tls_key);
  if (!made.ok()) return Usage(std::string(made.status().message()));
  std::unique_ptr<httplib::Server> server = std::move(*made);
  kjudge::dashboard::AppOptions app_options;
  app_options.require_auth = options.require_auth;
  app_options.tls = tls;
  app_options.session_lifetime_ms = static_cast<int64_t>(options.session_hours * 3600 * 1000);
  app_options.hosts = options.hosts.empty() ? kjudge::dashboard::HostAllowList::ForListener(host, port)
                                            : kjudge::dashboard::HostAllowList(options.hosts);
  kjudge::dashboard::App app(queries->get(), &catalog, app_options);
  app.Register(*server);
  if (absl::Status bound = kjudge::dashboard::Bind(*server, host, port, limits); !bound.ok()) {
    return Usage(std::string(bound.message()));
  }
  const std::string url = (tls ? "https://" : "http://") + options.listen + "/";
  if (options.json) {
    std::cout << nlohmann::json{{"url", url}, {"db", options.db}, {"require_auth", options.require_auth}}.dump() << std::endl;
  } else {
    std::cout << "kjudge-dashboard: " << url << " (database " << options.db << ", read-only)" << std::endl;
  }
  // SIGINT/SIGTERM stop the listener; in-flight pages get stop_grace_s to finish. A handler
  // stuck past that (a read that never returns, a client that never stops sending) cannot keep
  // the process alive: it exits anyway, without running destructors that would wait for it.
  std::mutex mutex;
  std::condition_variable stopped;
  bool done = false;
  std::thread stopper([&] {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    int signal = 0;
    sigwait(&set, &signal);
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (done) return;
    }
    server->stop();
    std::unique_lock<std::mutex> lock(mutex);
    if (!stopped.wait_for(lock, std::chrono::seconds(options.stop_grace_s), [&] { return done; })) {
      spdlog::warn("requests still running {} s after the stop signal; exiting without waiting for them", options.stop_grace_s);
      spdlog::default_logger()->flush();
      std::_Exit(0);
    }
  });
  server->listen_after_bind();
  {
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
  }
  stopped.notify_all();
  // listen_after_bind also returns when the listener fails: wake the stopper, which exits at once.
  pthread_kill(stopper.native_handle(), SIGINT);
  stopper.join();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);  // before any thread starts: only the stopper sees them

  Options options;
  std::string log_level = "info";
  CLI::App cli{"kjudge-dashboard: a web dashboard over kjudge-server's SQLite file (read-only).\n"
               "Pages: overview (queue, workers), jobs, a page per job, problems with leaderboards, runs (fast_p).\n"
               "Example: kjudge-dashboard --db kjudge.sqlite --problems problems --listen 127.0.0.1:8080\n"
               "With --require-auth, sign in with a submitter or admin API key (the server's keys)."};
  cli.add_option("--db", options.db, "the server's SQLite file (opened read-only; the server must have created it)")
      ->capture_default_str();
  cli.add_option("--listen", options.listen, "host:port to serve HTTP(S) on")->capture_default_str();
  cli.add_option("--problems", options.problems, "problem catalog directory (the server's --problems)")->capture_default_str();
  cli.add_flag("--require-auth", options.require_auth,
               "require a submitter or admin API key (tenancy as on the server); needed off loopback");
  cli.add_option("--tls-cert", options.tls_cert, "PEM certificate: serve HTTPS (with --tls-key)");
  cli.add_option("--tls-key", options.tls_key, "PEM private key");
  cli.add_option("--dashboard-host", options.hosts,
                 "a Host name the dashboard answers (repeatable; NAME for any port or NAME:PORT); default: the --listen "
                 "host, localhost, 127.0.0.1 and [::1] with the --listen port. Other Host headers get 421");
  cli.add_option("--session-hours", options.session_hours, "how long a browser sign-in lasts")->capture_default_str();
  cli.add_option("--stop-grace-seconds", options.stop_grace_s,
                 "after SIGTERM, how long running requests may finish before the process exits anyway")
      ->capture_default_str()
      ->check(CLI::Range(0, 600));
  cli.add_option("--log-level", log_level, "trace, debug, info, warn, error")->capture_default_str();
  cli.add_flag("--json", options.json, "print the start-up line (URL) as JSON, for scripts");
  CLI11_PARSE(cli, argc, argv);
  kjudge::InitLogging("dashboard", log_level, "text");
  return Serve(options);
}
