#include "dashboard/app.h"

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "common/log.h"
#include "dashboard/html.h"
#include "dashboard/pages.h"
#include "dashboard/query_params.h"
#include "nlohmann/json.hpp"
#include "proto/request_checks.h"
#include "server/shared_database.h"

namespace kjudge::dashboard {
namespace {

constexpr char kSessionCookie[] = "kjudge_session";
constexpr char kLoginCookie[] = "kjudge_login";  // the sign-in form's pre-session token
constexpr char kHtml[] = "text/html; charset=utf-8";
constexpr char kJson[] = "application/json";
constexpr int kPageSize = 50;

struct Caller {
  Viewer viewer;
  Who who;
};

// A request that cannot be answered: the status and a message for the person.
struct Refusal {
  int status;
  std::string message;
};

std::string CookieValue(const httplib::Request& req, const std::string& name) {
  for (absl::string_view part : absl::StrSplit(req.get_header_value("Cookie"), ';', absl::SkipWhitespace())) {
    part = absl::StripLeadingAsciiWhitespace(part);
    if (absl::ConsumePrefix(&part, name + "=")) return std::string(part);
  }
  return "";
}

std::string BearerKey(const httplib::Request& req) {
  std::string auth = req.get_header_value("Authorization");
  if (auth.rfind("Bearer ", 0) == 0) return auth.substr(7);
  return "";
}

// name=value pairs of an application/x-www-form-urlencoded text (first value of each name).
std::map<std::string, std::string> FormFields(absl::string_view text) {
  std::map<std::string, std::string> out;
  for (absl::string_view part : absl::StrSplit(text, '&', absl::SkipEmpty())) {
    std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(part, absl::MaxSplits('=', 1));
    out.emplace(UrlDecode(kv.first), UrlDecode(kv.second));
  }
  return out;
}

std::string QueryOf(const httplib::Request& req) {
  const size_t query = req.target.find('?');
  return query == std::string::npos ? "" : req.target.substr(query + 1);
}

// A query parameter whose value may itself hold '=' unescaped (a hand-typed
// /runs?a=model=x): cpp-httplib 0.11 cuts such values at the second '=', so they are read
// from the raw request target.
std::string TagParam(const httplib::Request& req, absl::string_view name) {
  for (absl::string_view part : absl::StrSplit(QueryOf(req), '&')) {
    if (absl::ConsumePrefix(&part, name) && absl::ConsumePrefix(&part, "=")) return UrlDecode(part);
  }
  return "";
}

std::optional<Refusal> BuildFilter(const httplib::Request& req, JobsQuery* q, server::JobFilter* filter) {
  q->problem = req.get_param_value("problem");
  q->verdict = req.get_param_value("verdict");
  q->tag = TagParam(req, "tag");
  q->after = req.get_param_value("after");
  q->before = req.get_param_value("before");
  filter->problem = q->problem;
  if (!q->verdict.empty() && !v1::Verdict_Parse(q->verdict, &filter->verdict)) {
    return Refusal{400, absl::StrCat("verdict '", Echo(q->verdict), "' is not a verdict; use a name such as CORRECT or WRONG_ANSWER")};
  }
  absl::StatusOr<std::map<std::string, std::string>> tags = ParseTags(q->tag, "tag");
  if (!tags.ok()) return Refusal{400, std::string(tags.status().message())};
  filter->tags = *tags;
  std::optional<int64_t> after = ParseWhen(q->after), before = ParseWhen(q->before);
  if (!after || !before) {
    return Refusal{400, "after/before must be dates in UTC: 2026-11-23, 2026-11-23 08:30 or 2026-11-23T08:30"};
  }
  filter->created_after_ms = *after;
  filter->created_before_ms = *before;
  const std::string before_id = req.get_param_value("before_id");
  if (!before_id.empty() && !absl::SimpleAtoi(before_id, &filter->before_id)) {
    return Refusal{400, absl::StrCat("before_id '", Echo(before_id), "' is not a job id")};
  }
  q->before_id = filter->before_id;
  filter->limit = kPageSize + 1;  // one more tells whether there is an older page
  return std::nullopt;
}

// A failed read, for the person: one sentence and a request id; the details (which may name
// SQL, SQLite or a path) go to the log only.
std::string InternalError(const absl::Status& status, const httplib::Request& req) {
  const std::string id = RandomHex(4);
  spdlog::error("request {} {} {}: {}", id, req.method, Echo(req.path), status.message());
  return absl::StrCat("The dashboard could not read the database for this request (request id ", id,
                      "). Try again; if it persists, an operator can find the details in the dashboard's log.");
}

bool IsHex(char c) { return HexDigit(c) >= 0; }

// For a non-admin: worker ids ("w-" and 16 hex digits) and key ids other than the viewer's own
// ("kj_" and 8 hex digits) are replaced, wherever the stored text carries them (a timeline's
// "worker w-... stopped renewing its lease", "cancelled by its owner (kj_<admin>)").
std::string RedactForTenant(const std::string& text, const std::string& own_key_id) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  auto hex_run = [&](size_t from, size_t n) {
    if (from + n > text.size()) return false;
    for (size_t k = from; k < from + n; ++k) {
      if (!IsHex(text[k])) return false;
    }
    return from + n == text.size() || !IsHex(text[from + n]);
  };
  while (i < text.size()) {
    const bool boundary = i == 0 || !(absl::ascii_isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '_');
    if (boundary && text.compare(i, 2, "w-") == 0 && hex_run(i + 2, 16)) {
      out += "a worker";
      i += 18;
    } else if (boundary && text.compare(i, 3, "kj_") == 0 && hex_run(i + 3, 8) && text.compare(i, 11, own_key_id) != 0) {
      out += "an admin";
      i += 11;
    } else {
      out += text[i++];
    }
  }
  return out;
}

std::string CookieAttributes(bool tls, int64_t max_age_s, const std::string& path = "/") {
  return absl::StrCat("; Path=", path, "; HttpOnly; SameSite=Strict; Max-Age=", max_age_s, tls ? "; Secure" : "");
}

// A POST from a browser must say it came from this origin when it says anything (the
// token checks come on top). Scripts send neither header.
bool SameOriginPost(const httplib::Request& req, bool tls) {
  const std::string site = req.get_header_value("Sec-Fetch-Site");
  if (!site.empty() && site != "same-origin") return false;
  if (req.has_header("Origin")) {
    return req.get_header_value("Origin") == absl::StrCat(tls ? "https://" : "http://", req.get_header_value("Host"));
  }
  return true;
}

// The reasons a page may send a browser back to the sign-in form: fixed texts, so the URL
// cannot put words on the page.
std::string WhyText(const std::string& why) {
  if (why == "expired") return "your session ended (expired, signed out or its key was revoked); sign in again";
  if (why == "signed-out") return "signed out";
  return "";
}

}  // namespace

httplib::Headers App::SecurityHeaders() {
  return {{"X-Frame-Options", "DENY"},
          {"Content-Security-Policy", ContentSecurityPolicy()},
          {"X-Content-Type-Options", "nosniff"},
          {"Cache-Control", "no-store"},
          // same-origin, not no-referrer: under no-referrer browsers send "Origin: null" on the
          // dashboard's own form posts, and the origin check needs the real one.
          {"Referrer-Policy", "same-origin"},
          {"Cross-Origin-Opener-Policy", "same-origin"}};
}

void App::Register(httplib::Server& server) {
  server.set_default_headers(SecurityHeaders());
  // Before any route: the Host allow-list (DNS rebinding), and the origin of every POST.
  // A refusal here comes before the body is read: the connection is closed after it, so an
  // unread body is never taken for the next request.
  server.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    catalog_->ReloadIfChanged(std::chrono::seconds(2));  // a new import shows without a restart
    if (!options_.hosts.Allows(req.get_header_value("Host"))) {
      res.set_header("Connection", "close");
      res.status = 421;
      res.set_content(absl::StrCat("This dashboard does not answer for the host name '", Echo(req.get_header_value("Host")),
                                   "'. Use one of: ", absl::StrJoin(options_.hosts.entries(), ", "),
                                   " (an operator adds names with --dashboard-host).\n"),
                      "text/plain; charset=utf-8");
      return httplib::Server::HandlerResponse::Handled;
    }
    if (req.method == "POST" && !SameOriginPost(req, options_.tls)) {
      res.set_header("Connection", "close");
      res.status = 403;
      res.set_content(ErrorPage(403, "This form was sent from another site; open the dashboard and use its own forms.", Who{}), kHtml);
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  server.set_exception_handler([](const httplib::Request& req, httplib::Response& res, const std::exception_ptr& ep) {
    std::string what = "unknown exception";
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    res.status = 500;
    res.set_content(ErrorPage(500, InternalError(absl::InternalError(what), req), Who{}), kHtml);
  });

  // The sign-in form with a pre-session token, reused while the browser's one is still valid.
  auto login_form = [this](const httplib::Request& req, httplib::Response& res, int status, const std::string& error,
                           const std::string& next) {
    std::string token = CookieValue(req, kLoginCookie);
    if (!login_tokens_.Valid(token)) token = login_tokens_.Issue();
    res.set_header("Set-Cookie", absl::StrCat(kLoginCookie, "=", token, CookieAttributes(options_.tls, 3600, "/login")));
    res.status = status;
    res.set_content(LoginPage(error, SafeNext(next), token), kHtml);
  };

  // Resolves the caller, or answers the request itself (sign-in redirect, 401 for the API).
  auto authenticate = [this](const httplib::Request& req, httplib::Response& res, bool api) -> std::optional<Caller> {
    if (!options_.require_auth) return Caller{Viewer{"", true}, Who{"anonymous admin (auth off)", true, "", ""}};
    std::string secret = BearerKey(req);
    std::string csrf;
    const std::string token = CookieValue(req, kSessionCookie);
    bool had_session = false;
    if (secret.empty() && !token.empty()) {
      if (std::optional<Session> session = sessions_.Find(token, server::SystemNowMs())) {
        secret = session->key_secret;
        csrf = session->csrf;
      }
      had_session = true;
    }
    absl::StatusOr<std::optional<server::ApiKey>> found =
        secret.empty() ? absl::StatusOr<std::optional<server::ApiKey>>(std::nullopt) : queries_->LookupKey(secret);
    if (found.ok() && found->has_value() && (*found)->role != server::Role::kWorker) {
      const server::ApiKey& k = **found;
      const bool admin = k.role == server::Role::kAdmin;
      return Caller{Viewer{k.id, admin}, Who{absl::StrCat(k.name, " (", server::RoleName(k.role), ")"), admin, k.id, csrf}};
    }
    if (!found.ok()) {
      const std::string message = InternalError(found.status(), req);
      res.status = 500;
      if (api) return res.set_content(nlohmann::json{{"error", message}}.dump(), kJson), std::nullopt;
      return res.set_content(ErrorPage(500, message, Who{}), kHtml), std::nullopt;
    }
    // A session whose key is gone (revoked) ends now.
    if (had_session && !csrf.empty()) sessions_.Revoke(token);
    const std::string why = secret.empty() && !had_session ? "sign in with an API key (or send Authorization: Bearer <key>)"
                            : !found->has_value()           ? "that API key is unknown or revoked; ask an admin for a key"
                                                            : "worker keys cannot read the dashboard; use a submitter or admin key";
    if (api) {
      res.status = 401;
      res.set_content(nlohmann::json{{"error", why}}.dump(), kJson);
      return std::nullopt;
    }
    res.status = 303;
    if (had_session) res.set_header("Set-Cookie", absl::StrCat(kSessionCookie, "=", CookieAttributes(options_.tls, 0)));
    res.set_header("Location", absl::StrCat("/login?next=", UrlEncode(SafeNext(req.target)), had_session ? "&why=expired" : ""));
    res.set_content("sign in at /login\n", "text/plain");
    return std::nullopt;
  };
  // Wraps a page handler: authentication, then the page or an error page.
  using Handler = std::function<std::string(const httplib::Request&, const Caller&, int64_t now, int* status)>;
  auto page = [authenticate](const Handler& handler) {
    return [authenticate, handler](const httplib::Request& req, httplib::Response& res) {
      std::optional<Caller> caller = authenticate(req, res, false);
      if (!caller) return;
      int status = 200;
      std::string html = handler(req, *caller, server::SystemNowMs(), &status);
      if (!caller->who.admin) html = RedactForTenant(html, caller->who.key_id);
      res.status = status;
      res.set_content(html, kHtml);
    };
  };

  server.Get("/login", [login_form](const httplib::Request& req, httplib::Response& res) {
    login_form(req, res, 200, WhyText(req.get_param_value("why")), req.has_param("next") ? req.get_param_value("next") : "/");
  });
  server.Post("/login", [this, login_form](const httplib::Request& req, httplib::Response& res) {
    // A key in the URL would land in logs, history and Referer headers: refused outright.
    for (absl::string_view part : absl::StrSplit(QueryOf(req), '&')) {
      if (absl::StartsWith(part, "key=") || part == "key") {
        return login_form(req, res, 400, "the key must be sent in the form body, never in the URL; use the form below", "/");
      }
    }
    const std::map<std::string, std::string> form =
        absl::StartsWith(req.get_header_value("Content-Type"), "application/x-www-form-urlencoded") ? FormFields(req.body)
                                                                                                     : std::map<std::string, std::string>{};
    auto field = [&form](const std::string& name) {
      auto it = form.find(name);
      return it == form.end() ? std::string() : it->second;
    };
    const std::string next = SafeNext(field("next"));
    // Login CSRF: the form must be the one this browser loaded from this dashboard.
    const std::string token = CookieValue(req, kLoginCookie);
    if (!login_tokens_.Valid(token) || !SecretsEqual(token, field("csrf"))) {
      return login_form(req, res, 403,
                        "this sign-in form expired or was not loaded from this dashboard; sign in with the form below",
                        next);
    }
    const std::string key = field("key");
    absl::StatusOr<std::optional<server::ApiKey>> found =
        key.empty() ? absl::StatusOr<std::optional<server::ApiKey>>(std::nullopt) : queries_->LookupKey(key);
    if (!found.ok()) return login_form(req, res, 500, InternalError(found.status(), req), next);
    if (!found->has_value() || (*found)->role == server::Role::kWorker) {
      return login_form(req, res, 401,
                        !found->has_value() ? "that API key is unknown or revoked"
                                            : "worker keys cannot read the dashboard",
                        next);
    }
    const std::string session = sessions_.Create(key, server::SystemNowMs());
    res.set_header("Set-Cookie", absl::StrCat(kSessionCookie, "=", session,
                                              CookieAttributes(options_.tls, sessions_.lifetime_ms() / 1000)));
    res.set_header("Set-Cookie", absl::StrCat(kLoginCookie, "=", CookieAttributes(options_.tls, 0, "/login")));
    res.status = 303;
    res.set_header("Location", next);
  });
  auto sign_out_page = [this](const httplib::Request& req, httplib::Response& res) {
    std::optional<Session> session = sessions_.Find(CookieValue(req, kSessionCookie), server::SystemNowMs());
    res.status = 405;
    res.set_header("Allow", "POST");
    res.set_content(ErrorPage(405, "Sign out with the button below (sign-out is a POST, so no link or image can sign you out).",
                              Who{session ? "signed in" : "", false, "", session ? session->csrf : ""}),
                    kHtml);
  };
  server.Get("/logout", sign_out_page);
  server.Post("/logout", [this](const httplib::Request& req, httplib::Response& res) {
    const std::string token = CookieValue(req, kSessionCookie);
    std::optional<Session> session = sessions_.Find(token, server::SystemNowMs());
    if (session) {
      const std::map<std::string, std::string> form = FormFields(req.body);
      auto it = form.find("csrf");
      if (it == form.end() || !SecretsEqual(it->second, session->csrf)) {
        res.status = 403;
        res.set_content(ErrorPage(403, "This sign-out was not sent by the dashboard's own button; use the button in the page header.",
                                  Who{"signed in", false, "", session->csrf}),
                        kHtml);
        return;
      }
      sessions_.Revoke(token);
    }
    res.set_header("Set-Cookie", absl::StrCat(kSessionCookie, "=", CookieAttributes(options_.tls, 0)));
    res.status = 303;
    res.set_header("Location", "/login?why=signed-out");
  });

  // Healthy only if a real read (a key lookup) finishes within the deadline: a dashboard whose
  // connections are all stuck cannot answer a page, and says so. At most 4 probes wait at once.
  server.Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
    if (probes_in_flight_.fetch_add(1) >= 4) {
      probes_in_flight_.fetch_sub(1);
      res.status = 503;
      return res.set_content("unhealthy: earlier health probes are still waiting for the database\n", "text/plain");
    }
    auto done = std::make_shared<std::promise<bool>>();
    std::future<bool> result = done->get_future();
    std::thread([this, done] {
      absl::StatusOr<std::optional<server::ApiKey>> probe = queries_->LookupKey("kj_00000000_healthprobe");
      if (!probe.ok()) spdlog::warn("health probe: {}", probe.status().message());
      done->set_value(probe.ok());
      probes_in_flight_.fetch_sub(1);
    }).detach();
    if (result.wait_for(std::chrono::milliseconds(options_.health_deadline_ms)) != std::future_status::ready) {
      res.status = 503;
      return res.set_content("unhealthy: the database did not answer a read within the deadline\n", "text/plain");
    }
    if (!result.get()) {
      res.status = 503;
      return res.set_content("unhealthy: the database cannot be read (details in the log)\n", "text/plain");
    }
    res.set_content("ok\n", "text/plain");
  });

  server.Get("/", page([this](const httplib::Request& req, const Caller& c, int64_t now, int* status) {
    absl::StatusOr<Overview> overview = queries_->GetOverview(c.viewer, now);
    if (!overview.ok()) return *status = 500, ErrorPage(500, InternalError(overview.status(), req), c.who);
    return OverviewPage(*overview, now, c.who);
  }));
  server.Get("/jobs", page([this](const httplib::Request& req, const Caller& c, int64_t now, int* status) {
    JobsQuery query;
    server::JobFilter filter;
    if (std::optional<Refusal> bad = BuildFilter(req, &query, &filter)) return *status = bad->status, ErrorPage(bad->status, bad->message, c.who);
    absl::StatusOr<std::vector<v1::Job>> jobs = queries_->ListJobs(c.viewer, filter);
    if (!jobs.ok()) return *status = 500, ErrorPage(500, InternalError(jobs.status(), req), c.who);
    int64_t next = 0;
    if (jobs->size() > static_cast<size_t>(kPageSize)) {
      jobs->resize(kPageSize);
      absl::SimpleAtoi(jobs->back().id(), &next);
    }
    return JobsPage(*jobs, query, next, catalog_->List(), now, c.who);
  }));
  server.Get(R"(/jobs/([^/]+))", page([this](const httplib::Request& req, const Caller& c, int64_t now, int* status) {
    int64_t id = 0;
    if (!absl::SimpleAtoi(req.matches[1].str(), &id)) {
      return *status = 400, ErrorPage(400, absl::StrCat("job id '", Echo(req.matches[1].str()), "' is not a number"), c.who);
    }
    absl::StatusOr<std::optional<JobDetail>> job = queries_->GetJob(id, c.viewer);
    if (!job.ok()) return *status = 500, ErrorPage(500, InternalError(job.status(), req), c.who);
    // Another tenant's job reads exactly like a missing one, as on the server.
    if (!job->has_value()) return *status = 404, ErrorPage(404, absl::StrCat("no job ", id), c.who);
    return JobPage(**job, now, c.who);
  }));
  server.Get("/problems", page([this](const httplib::Request&, const Caller& c, int64_t, int*) {
    return ProblemsPage(catalog_->List(), c.who);
  }));
  server.Get(R"(/problems/(.+))", page([this](const httplib::Request& req, const Caller& c, int64_t, int* status) {
    const std::string name = req.matches[1].str();
    const std::shared_ptr<const server::CatalogEntry> entry = catalog_->Find(name);
    if (entry == nullptr) return *status = 404, ErrorPage(404, absl::StrCat("no problem '", Echo(name), "' in the catalog"), c.who);
    const std::string by = req.get_param_value("by") == "model" ? "model" : "owner";
    absl::StatusOr<std::vector<v1::BaselineTiming>> baselines = queries_->Baselines(name);
    absl::StatusOr<std::vector<LeaderboardRow>> board = queries_->Leaderboard(name, by, c.viewer);
    if (!baselines.ok() || !board.ok()) {
      return *status = 500, ErrorPage(500, InternalError(baselines.ok() ? board.status() : baselines.status(), req), c.who);
    }
    return ProblemPage(*entry, *baselines, *board, by, c.who);
  }));
  server.Get("/runs", page([this](const httplib::Request& req, const Caller& c, int64_t, int* status) {
    // No baseline: each problem's default denominator, as GetStats and `kjudge stats`.
    const std::string baseline = req.has_param("baseline") ? req.get_param_value("baseline") : "";
    // The tag list is for picking runs: only the index page (no run chosen yet) reads it.
    const bool picking = TagParam(req, "a").empty() && TagParam(req, "b").empty();
    absl::StatusOr<std::vector<std::pair<std::string, int64_t>>> tags =
        picking ? queries_->RunTags(c.viewer) : std::vector<std::pair<std::string, int64_t>>();
    if (!tags.ok()) return *status = 500, ErrorPage(500, InternalError(tags.status(), req), c.who);
    std::optional<RunStats> runs[2];
    const char* params[2] = {"a", "b"};
    // The two runs are read in parallel, each on its own connection.
    std::future<absl::StatusOr<RunStats>> pending[2];
    server::LibraryNames library;  // what each problem's default denominator may choose
    // ?set=PREFIX: the run's problem set is every catalog problem under it (unsubmitted = failed).
    const std::string set_prefix = req.has_param("set") ? req.get_param_value("set") : "";
    std::vector<std::string> problem_set;
    for (const v1::ProblemSummary& p : catalog_->List()) {
      library[p.name()] = catalog_->LibraryBaselineNames(p.name());
      if (!set_prefix.empty() && p.name().rfind(set_prefix, 0) == 0) problem_set.push_back(p.name());
    }
    if (!set_prefix.empty() && problem_set.empty()) {
      return *status = 400, ErrorPage(400, absl::StrCat("set: no problem of the catalog starts with '", Echo(set_prefix),
                                                        "'; give a prefix such as level1/ or leave it empty"), c.who);
    }
    for (int i = 0; i < 2; ++i) {
      const std::string text = TagParam(req, params[i]);
      if (text.empty()) continue;
      absl::StatusOr<std::map<std::string, std::string>> parsed = ParseTags(text, params[i]);
      if (!parsed.ok()) return *status = 400, ErrorPage(400, std::string(parsed.status().message()), c.who);
      pending[i] = std::async(std::launch::async, [this, tags = *parsed, baseline, library, viewer = c.viewer, problem_set] {
        return queries_->Run(tags, baseline, library, viewer, problem_set);
      });
    }
    for (int i = 0; i < 2; ++i) {
      if (!pending[i].valid()) continue;
      absl::StatusOr<RunStats> run = pending[i].get();
      if (!run.ok()) return *status = 500, ErrorPage(500, InternalError(run.status(), req), c.who);
      runs[i] = std::move(*run);
    }
    if (!runs[0] && runs[1]) std::swap(runs[0], runs[1]);
    return RunsPage(*tags, runs[0], runs[1], baseline, c.who, set_prefix);
  }));

  // Live updates: small JSON documents the pages poll.
  server.Get("/api/overview", [this, authenticate](const httplib::Request& req, httplib::Response& res) {
    std::optional<Caller> c = authenticate(req, res, true);
    if (!c) return;
    const int64_t now = server::SystemNowMs();
    absl::StatusOr<Overview> o = queries_->GetOverview(c->viewer, now, /*with_workers=*/false);
    if (!o.ok()) return res.status = 500, res.set_content(nlohmann::json{{"error", InternalError(o.status(), req)}}.dump(), kJson);
    int64_t last_10 = 0;
    for (size_t i = 50; i < o->per_minute.size(); ++i) last_10 += o->per_minute[i];
    nlohmann::json doc = {{"queue-depth", o->queued}, {"running", o->running}, {"done", o->done},
                          {"queue-age", FormatAge(o->oldest_queued_unix_ms, now)},
                          {"jobs-per-minute", absl::StrFormat("%.1f", static_cast<double>(last_10) / 10.0)}};
    res.set_content(doc.dump(), kJson);
  });
  server.Get(R"(/api/jobs/(\d+))", [this, authenticate](const httplib::Request& req, httplib::Response& res) {
    std::optional<Caller> c = authenticate(req, res, true);
    if (!c) return;
    int64_t id = 0;
    absl::SimpleAtoi(req.matches[1].str(), &id);
    absl::StatusOr<std::optional<JobDetail>> job = queries_->GetJob(id, c->viewer);
    if (!job.ok() || !job->has_value()) {
      res.status = job.ok() ? 404 : 500;
      res.set_content(nlohmann::json{{"error", job.ok() ? absl::StrCat("no job ", id) : InternalError(job.status(), req)}}.dump(),
                      kJson);
      return;
    }
    const v1::Job& j = (*job)->job;
    nlohmann::json doc = {{"state", v1::JobState_Name(j.state())}, {"stage", v1::Stage_Name(j.stage())},
                          {"progress", absl::StrCat(j.progress_done(), "/", j.progress_total())},
                          {"queue_position", j.queue_position()}};
    res.set_content(doc.dump(), kJson);
  });
}

}  // namespace kjudge::dashboard
