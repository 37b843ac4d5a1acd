// Pages: each dashboard page rendered from what Queries read, as one HTML string.
//
// Contract: pure functions of their arguments (no I/O). Numbers a test or a script may want to
// read carry stable ids or data- attributes (id="queue-depth", data-median-us, class="lb-row",
// id="fastp-a-1.00", ...), documented in docs/dashboard.md. Worker ids appear only when the
// viewer is an admin (the server's tenancy rule); the timeline's worker column likewise.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dashboard/queries.h"
#include "server/problem_catalog.h"

namespace kjudge::dashboard {

struct Who {
  std::string label;  // "alice (submitter)", shown in the header
  bool admin = false;
  std::string key_id;  // the viewer's own key id (kept when a tenant's pages are redacted)
  std::string csrf;    // the session's CSRF token for the sign-out form ("": no form)
};

// The Jobs page's filter as given in the query string (echoed back into the form).
struct JobsQuery {
  std::string problem, verdict, tag, after, before;
  int64_t before_id = 0;
};

std::string OverviewPage(const Overview& overview, int64_t now_ms, const Who& who);
// `next_before_id`: the id for the "older" link (0: no more pages).
std::string JobsPage(const std::vector<v1::Job>& jobs, const JobsQuery& query, int64_t next_before_id,
                     const std::vector<v1::ProblemSummary>& problems, int64_t now_ms, const Who& who);
std::string JobPage(const JobDetail& detail, int64_t now_ms, const Who& who);
std::string ProblemsPage(const std::vector<v1::ProblemSummary>& problems, const Who& who);
std::string ProblemPage(const server::CatalogEntry& entry, const std::vector<v1::BaselineTiming>& baselines,
                        const std::vector<LeaderboardRow>& leaderboard, const std::string& by, const Who& who);
// `a` and optionally `b` side by side; `tags`: the tag values to pick from.
std::string RunsPage(const std::vector<std::pair<std::string, int64_t>>& tags, const std::optional<RunStats>& a,
                     const std::optional<RunStats>& b, const std::string& baseline, const Who& who,
                     const std::string& set_prefix = "");
// `csrf`: the pre-session token, sent back in a hidden field (and in the browser's cookie).
std::string LoginPage(const std::string& error, const std::string& next, const std::string& csrf);
std::string ErrorPage(int status, const std::string& message, const Who& who);

}  // namespace kjudge::dashboard
