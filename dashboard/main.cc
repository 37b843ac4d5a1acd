// kjudge-dashboard: the fleet, the queue, every job and every leaderboard, in a browser. Reads
// the server's SQLite file over a read-only connection; see docs/dashboard.md.
#include <httplib.h>
#include <signal.h>

#include <iostream>
#include <memory>
#include <thread>

#include "CLI/CLI.hpp"
#include "common/log.h"
#include "dashboard/app.h"
#include "nlohmann/json.hpp"

namespace {

struct Options {
  std::string db = "kjudge.sqlite";
  std::string listen = "127.0.0.1:8080";
  std::string problems = "problems";
  std::string tls_cert, tls_key;
  bool require_auth = false;
  bool json = false;
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
  absl::StatusOr<std::unique_ptr<kjudge::dashboard::Queries>> queries = kjudge::dashboard::Queries::Open(options.db);
  if (!queries.ok()) return Usage(std::string(queries.status().message()));
  absl::StatusOr<std::unique_ptr<kjudge::server::ProblemCatalog>> catalog = kjudge::server::ProblemCatalog::Load(options.problems);
  if (!catalog.ok()) return Usage(std::string(catalog.status().message()));

  const bool tls = !options.tls_cert.empty();
  std::unique_ptr<httplib::Server> server = tls ? std::make_unique<httplib::SSLServer>(options.tls_cert.c_str(), options.tls_key.c_str())
                                                : std::make_unique<httplib::Server>();
  if (!server->is_valid()) return Usage("cannot load --tls-cert/--tls-key (PEM certificate and key expected)");
  server->set_tcp_nodelay(true);  // else small pages wait ~40 ms on delayed ACKs
  kjudge::dashboard::App app(queries->get(), catalog->get(), {options.require_auth, tls});
  app.Register(*server);
  if (!server->bind_to_port(host, port)) return Usage("cannot listen on " + options.listen + " (port in use?)");
  const std::string url = (tls ? "https://" : "http://") + options.listen + "/";
  if (options.json) {
    std::cout << nlohmann::json{{"url", url}, {"db", options.db}, {"require_auth", options.require_auth}}.dump() << std::endl;
  } else {
    std::cout << "kjudge-dashboard: " << url << " (database " << options.db << ", read-only)" << std::endl;
  }
  // SIGINT/SIGTERM stop the listener; in-flight pages finish.
  std::thread stopper([&server] {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    int signal = 0;
    sigwait(&set, &signal);
    server->stop();
  });
  server->listen_after_bind();
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
  cli.add_option("--log-level", log_level, "trace, debug, info, warn, error")->capture_default_str();
  cli.add_flag("--json", options.json, "print the start-up line (URL) as JSON, for scripts");
  CLI11_PARSE(cli, argc, argv);
  kjudge::InitLogging("dashboard", log_level, "text");
  return Serve(options);
}
