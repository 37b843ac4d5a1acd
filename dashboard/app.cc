#include "dashboard/app.h"

#include <functional>
#include <future>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "dashboard/html.h"
#include "dashboard/pages.h"
#include "nlohmann/json.hpp"
#include "server/shared_database.h"

namespace kjudge::dashboard {
namespace {

constexpr char kCookie[] = "kjudge_key";
constexpr char kHtml[] = "text/html; charset=utf-8";
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

std::string KeyOf(const httplib::Request& req) {
  std::string auth = req.get_header_value("Authorization");
  if (auth.rfind("Bearer ", 0) == 0) return auth.substr(7);
  return CookieValue(req, kCookie);
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string UrlDecode(absl::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%' && i + 2 < text.size() && HexDigit(text[i + 1]) >= 0 && HexDigit(text[i + 2]) >= 0) {
      out += static_cast<char>(HexDigit(text[i + 1]) * 16 + HexDigit(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

// A query parameter whose value may itself hold '=' unescaped (a hand-typed
// /runs?a=model=x): cpp-httplib 0.11 cuts such values at the second '=', so they are read
// from the raw request target.
std::string TagParam(const httplib::Request& req, absl::string_view name) {
  const size_t query = req.target.find('?');
  if (query == std::string::npos) return "";
  for (absl::string_view part : absl::StrSplit(absl::string_view(req.target).substr(query + 1), '&')) {
    if (absl::ConsumePrefix(&part, name) && absl::ConsumePrefix(&part, "=")) return UrlDecode(part);
  }
  return "";
}

// "model=a,run=b" -> {model: a, run: b}.
std::optional<std::map<std::string, std::string>> ParseTags(const std::string& text) {
  std::map<std::string, std::string> tags;
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    std::pair<std::string, std::string> kv = absl::StrSplit(part, absl::MaxSplits('=', 1));
    if (kv.first.empty() || part.find('=') == absl::string_view::npos) return std::nullopt;
    tags[kv.first] = kv.second;
  }
  return tags;
}

// "2026-11-23", "2026-11-23 08:30" or "2026-11-23T08:30" (UTC) -> Unix ms; 0 for "".
std::optional<int64_t> ParseWhen(const std::string& text) {
  if (text.empty()) return 0;
  absl::Time t;
  std::string err;
  for (const char* format : {"%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M", "%Y-%m-%d"}) {
    if (absl::ParseTime(format, text, absl::UTCTimeZone(), &t, &err)) return absl::ToUnixMillis(t);
  }
  return std::nullopt;
}

std::optional<Refusal> BuildFilter(const httplib::Request& req, JobsQuery* q, server::JobFilter* filter) {
  q->problem = req.get_param_value("problem");
  q->verdict = req.get_param_value("verdict");
  q->tag = TagParam(req, "tag");
  q->after = req.get_param_value("after");
  q->before = req.get_param_value("before");
  filter->problem = q->problem;
  if (!q->verdict.empty() && !v1::Verdict_Parse(q->verdict, &filter->verdict)) {
    return Refusal{400, absl::StrCat("verdict '", q->verdict, "' is not a verdict; use a name such as CORRECT or WRONG_ANSWER")};
  }
  std::optional<std::map<std::string, std::string>> tags = ParseTags(q->tag);
  if (!tags) return Refusal{400, absl::StrCat("tag '", q->tag, "' is not KEY=VALUE (e.g. model=my-model)")};
  filter->tags = *tags;
  std::optional<int64_t> after = ParseWhen(q->after), before = ParseWhen(q->before);
  if (!after || !before) {
    return Refusal{400, "after/before must be dates in UTC: 2026-11-23, 2026-11-23 08:30 or 2026-11-23T08:30"};
  }
  filter->created_after_ms = *after;
  filter->created_before_ms = *before;
  const std::string before_id = req.get_param_value("before_id");
  if (!before_id.empty() && !absl::SimpleAtoi(before_id, &filter->before_id)) {
    return Refusal{400, absl::StrCat("before_id '", before_id, "' is not a job id")};
  }
  q->before_id = filter->before_id;
  filter->limit = kPageSize + 1;  // one more tells whether there is an older page
  return std::nullopt;
}

std::string ErrorText(const absl::Status& status) {
  return absl::StrCat("the database could not be read: ", status.message());
}

}  // namespace

void App::Register(httplib::Server& server) {
  // Resolves the caller, or answers the request itself (sign-in redirect, 401 for the API).
  auto authenticate = [this](const httplib::Request& req, httplib::Response& res, bool api) -> std::optional<Caller> {
    if (!options_.require_auth) return Caller{Viewer{"", true}, Who{"anonymous admin (auth off)", true}};
    const std::string key = KeyOf(req);
    absl::StatusOr<std::optional<server::ApiKey>> found =
        key.empty() ? absl::StatusOr<std::optional<server::ApiKey>>(std::nullopt) : queries_->LookupKey(key);
    if (found.ok() && found->has_value() && (*found)->role != server::Role::kWorker) {
      const server::ApiKey& k = **found;
      const bool admin = k.role == server::Role::kAdmin;
      return Caller{Viewer{k.id, admin}, Who{absl::StrCat(k.name, " (", server::RoleName(k.role), ")"), admin}};
    }
    const std::string why = !found.ok()             ? ErrorText(found.status())
                            : key.empty()           ? "sign in with an API key"
                            : !found->has_value()   ? "that API key is unknown or revoked; ask an admin for a key"
                                                    : "worker keys cannot read the dashboard; use a submitter or admin key";
    if (api) {
      res.status = 401;
      res.set_content(nlohmann::json{{"error", why}}.dump(), "application/json");
    } else {
      res.status = key.empty() ? 303 : 401;
      if (key.empty()) res.set_header("Location", "/login?next=" + UrlEncode(req.path));
      res.set_content(LoginPage(key.empty() ? "" : why, req.path), kHtml);
    }
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
      res.status = status;
      res.set_content(html, kHtml);
    };
  };

  server.Get("/login", [](const httplib::Request& req, httplib::Response& res) {
    res.set_content(LoginPage("", req.has_param("next") ? req.get_param_value("next") : "/"), kHtml);
  });
  server.Post("/login", [this](const httplib::Request& req, httplib::Response& res) {
    const std::string key = req.get_param_value("key");
    std::string next = req.get_param_value("next");
    if (next.empty() || next[0] != '/' || next.rfind("//", 0) == 0) next = "/";  // never an open redirect
    absl::StatusOr<std::optional<server::ApiKey>> found = queries_->LookupKey(key);
    if (!found.ok() || !found->has_value() || (*found)->role == server::Role::kWorker) {
      res.status = 401;
      res.set_content(LoginPage(!found.ok() ? ErrorText(found.status())
                                : !found->has_value() ? "that API key is unknown or revoked"
                                                      : "worker keys cannot read the dashboard",
                                next),
                      kHtml);
      return;
    }
    res.set_header("Set-Cookie", absl::StrCat(kCookie, "=", key, "; Path=/; HttpOnly; SameSite=Lax",
                                              options_.secure_cookie ? "; Secure" : ""));
    res.status = 303;
    res.set_header("Location", next);
  });
  server.Get("/logout", [](const httplib::Request&, httplib::Response& res) {
    res.set_header("Set-Cookie", absl::StrCat(kCookie, "=; Path=/; Max-Age=0"));
    res.status = 303;
    res.set_header("Location", "/login");
  });
  server.Get("/healthz", [](const httplib::Request&, httplib::Response& res) { res.set_content("ok\n", "text/plain"); });

  server.Get("/", page([this](const httplib::Request&, const Caller& c, int64_t now, int* status) {
    absl::StatusOr<Overview> overview = queries_->GetOverview(c.viewer, now);
    if (!overview.ok()) return *status = 500, ErrorPage(500, ErrorText(overview.status()), c.who);
    return OverviewPage(*overview, now, c.who);
  }));
  server.Get("/jobs", page([this](const httplib::Request& req, const Caller& c, int64_t now, int* status) {
    JobsQuery query;
    server::JobFilter filter;
    if (std::optional<Refusal> bad = BuildFilter(req, &query, &filter)) return *status = bad->status, ErrorPage(bad->status, bad->message, c.who);
    absl::StatusOr<std::vector<v1::Job>> jobs = queries_->ListJobs(c.viewer, filter);
    if (!jobs.ok()) return *status = 500, ErrorPage(500, ErrorText(jobs.status()), c.who);
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
      return *status = 400, ErrorPage(400, absl::StrCat("job id '", req.matches[1].str(), "' is not a number"), c.who);
    }
    absl::StatusOr<std::optional<JobDetail>> job = queries_->GetJob(id, c.viewer);
    if (!job.ok()) return *status = 500, ErrorPage(500, ErrorText(job.status()), c.who);
    // Another tenant's job reads exactly like a missing one, as on the server.
    if (!job->has_value()) return *status = 404, ErrorPage(404, absl::StrCat("no job ", id), c.who);
    return JobPage(**job, now, c.who);
  }));
  server.Get("/problems", page([this](const httplib::Request&, const Caller& c, int64_t, int*) {
    return ProblemsPage(catalog_->List(), c.who);
  }));
  server.Get(R"(/problems/(.+))", page([this](const httplib::Request& req, const Caller& c, int64_t, int* status) {
    const std::string name = req.matches[1].str();
    const server::CatalogEntry* entry = catalog_->Find(name);
    if (entry == nullptr) return *status = 404, ErrorPage(404, absl::StrCat("no problem '", name, "' in the catalog"), c.who);
    const std::string by = req.get_param_value("by") == "model" ? "model" : "owner";
    absl::StatusOr<std::vector<v1::BaselineTiming>> baselines = queries_->Baselines(name);
    absl::StatusOr<std::vector<LeaderboardRow>> board = queries_->Leaderboard(name, by, c.viewer);
    if (!baselines.ok() || !board.ok()) {
      return *status = 500, ErrorPage(500, ErrorText(baselines.ok() ? board.status() : baselines.status()), c.who);
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
    if (!tags.ok()) return *status = 500, ErrorPage(500, ErrorText(tags.status()), c.who);
    std::optional<RunStats> runs[2];
    const char* params[2] = {"a", "b"};
    // The two runs are read in parallel, each on its own connection.
    std::future<absl::StatusOr<RunStats>> pending[2];
    server::LibraryNames library;  // what each problem's default denominator may choose
    for (const v1::ProblemSummary& p : catalog_->List()) library[p.name()] = catalog_->LibraryBaselineNames(p.name());
    for (int i = 0; i < 2; ++i) {
      const std::string text = TagParam(req, params[i]);
      if (text.empty()) continue;
      std::optional<std::map<std::string, std::string>> parsed = ParseTags(text);
      if (!parsed) return *status = 400, ErrorPage(400, absl::StrCat(params[i], "='", text, "' is not KEY=VALUE[,KEY=VALUE]"), c.who);
      pending[i] = std::async(std::launch::async, [this, tags = *parsed, baseline, library, viewer = c.viewer] {
        return queries_->Run(tags, baseline, library, viewer);
      });
    }
    for (int i = 0; i < 2; ++i) {
      if (!pending[i].valid()) continue;
      absl::StatusOr<RunStats> run = pending[i].get();
      if (!run.ok()) return *status = 500, ErrorPage(500, ErrorText(run.status()), c.who);
      runs[i] = std::move(*run);
    }
    if (!runs[0] && runs[1]) std::swap(runs[0], runs[1]);
    return RunsPage(*tags, runs[0], runs[1], baseline, c.who);
  }));

  // Live updates: small JSON documents the pages poll.
  server.Get("/api/overview", [this, authenticate](const httplib::Request& req, httplib::Response& res) {
    std::optional<Caller> c = authenticate(req, res, true);
    if (!c) return;
    const int64_t now = server::SystemNowMs();
    absl::StatusOr<Overview> o = queries_->GetOverview(c->viewer, now, /*with_workers=*/false);
    if (!o.ok()) return res.status = 500, res.set_content(nlohmann::json{{"error", ErrorText(o.status())}}.dump(), "application/json");
    int64_t last_10 = 0;
    for (size_t i = 50; i < o->per_minute.size(); ++i) last_10 += o->per_minute[i];
    nlohmann::json doc = {{"queue-depth", o->queued}, {"running", o->running}, {"done", o->done},
                          {"queue-age", FormatAge(o->oldest_queued_unix_ms, now)},
                          {"jobs-per-minute", absl::StrFormat("%.1f", static_cast<double>(last_10) / 10.0)}};
    res.set_content(doc.dump(), "application/json");
  });
  server.Get(R"(/api/jobs/(\d+))", [this, authenticate](const httplib::Request& req, httplib::Response& res) {
    std::optional<Caller> c = authenticate(req, res, true);
    if (!c) return;
    int64_t id = 0;
    absl::SimpleAtoi(req.matches[1].str(), &id);
    absl::StatusOr<std::optional<JobDetail>> job = queries_->GetJob(id, c->viewer);
    if (!job.ok() || !job->has_value()) {
      res.status = job.ok() ? 404 : 500;
      res.set_content(nlohmann::json{{"error", job.ok() ? absl::StrCat("no job ", id) : ErrorText(job.status())}}.dump(),
                      "application/json");
      return;
    }
    const v1::Job& j = (*job)->job;
    nlohmann::json doc = {{"state", v1::JobState_Name(j.state())}, {"stage", v1::Stage_Name(j.stage())},
                          {"progress", absl::StrCat(j.progress_done(), "/", j.progress_total())},
                          {"queue_position", j.queue_position()}};
    res.set_content(doc.dump(), "application/json");
  });
}

}  // namespace kjudge::dashboard
