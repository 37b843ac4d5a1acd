// App: the dashboard's HTTP routes, who is asking, and what they may see.
//
// Contract: every page and API route authenticates first. With require_auth, a browser signs
// in by POSTing its key in the form body of /login (a key in the URL is refused) and gets a
// session: a random 256-bit token in an HttpOnly, SameSite=Strict cookie (Secure under TLS)
// that expires after session_lifetime_ms; the key never goes into a cookie. Scripts send
// "Authorization: Bearer <key>". Either way the key is verified on every request through
// ApiKeys::Lookup, exactly as the server verifies it, so a revoked key stops working at once,
// sessions included. Submitter keys see their own jobs (leaderboards: public ones too), admin
// keys everything, worker keys nothing; a non-admin's pages carry no worker id and no other
// key's id. Without require_auth every caller is the anonymous admin, as on the server.
//
// Every POST (sign-in, sign-out) must carry a CSRF token (sign-in: the signed pre-session
// token of the form the browser loaded; sign-out: the session's token) and, when the browser
// says where it came from (Origin, Sec-Fetch-Site), come from this origin; else 403. Requests
// whose Host is not in `hosts` get 421. Every response carries the security headers
// (SecurityHeaders). Bad input is a 400 page that names the parameter and what to send; a
// failed read is a 500 page with a request id, its details only in the log.
#pragma once

#include <httplib.h>

#include <atomic>
#include <cstdint>

#include "dashboard/queries.h"
#include "dashboard/sessions.h"
#include "dashboard/web_security.h"
#include "server/problem_catalog.h"

namespace kjudge::dashboard {

struct AppOptions {
  bool require_auth = false;
  bool tls = false;  // served over TLS: cookies are marked Secure
  int64_t session_lifetime_ms = 12LL * 3600 * 1000;
  size_t max_sessions = 10000;  // the oldest session goes when a new one would exceed this
  HostAllowList hosts{{}};      // Host headers served (see HostAllowList; empty: any)
  int64_t health_deadline_ms = 2000;  // /healthz answers 503 when its probe read takes longer
};

class App {
 public:
  // `catalog` is re-read when its directory changes (LiveCatalog::ReloadIfChanged, checked at
  // most every 2 s before a request is routed): a new import shows without a restart.
  App(Queries* queries, server::LiveCatalog* catalog, AppOptions options)
      : queries_(queries), catalog_(catalog), options_(std::move(options)),
        sessions_(options_.session_lifetime_ms, options_.max_sessions) {}

  // Adds every route, the Host check, the POST origin check and the security headers to `server`.
  void Register(httplib::Server& server);

  // The headers every response carries (framing denied, a CSP allowing only this binary's own
  // style and script by hash, nosniff, no-store, referrers only within this origin).
  static httplib::Headers SecurityHeaders();

 private:
  Queries* queries_;
  server::LiveCatalog* catalog_;
  AppOptions options_;
  SessionStore sessions_;
  LoginTokens login_tokens_;
  std::atomic<int> probes_in_flight_{0};
};

}  // namespace kjudge::dashboard
