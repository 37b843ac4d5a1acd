// App: the dashboard's HTTP routes, who is asking, and what they may see.
//
// Contract: every page and API route authenticates first. With require_auth, the caller's key
// comes from the "kjudge_key" cookie (set by the sign-in form) or an "Authorization: Bearer"
// header, and is verified on every request against the api_keys table through ApiKeys::Lookup,
// exactly as the server verifies it (so a revoked key stops working at once). Submitter keys
// see their own jobs (leaderboards: public ones too), admin keys everything, worker keys
// nothing. Without require_auth every caller is the anonymous admin, as on the server. All
// routes are read-only (GET), except POST /login which only sets the cookie. Bad input is a
// 400 page that names the parameter and what to send instead.
#pragma once

#include <httplib.h>

#include "dashboard/queries.h"
#include "server/problem_catalog.h"

namespace kjudge::dashboard {

struct AppOptions {
  bool require_auth = false;
  bool secure_cookie = false;  // served over TLS: the cookie is marked Secure
};

class App {
 public:
  App(Queries* queries, const server::ProblemCatalog* catalog, AppOptions options)
      : queries_(queries), catalog_(catalog), options_(options) {}

  // Adds every route to `server`.
  void Register(httplib::Server& server);

 private:
  Queries* queries_;
  const server::ProblemCatalog* catalog_;
  AppOptions options_;
};

}  // namespace kjudge::dashboard
