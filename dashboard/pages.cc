#include "dashboard/pages.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "dashboard/html.h"
#include "dashboard/kernel_section.h"
#include "dashboard/svg.h"
#include "server/kernel_metrics.h"

namespace kjudge::dashboard {
namespace {

// What a cell says where nothing was measured yet: never a zero that reads as a measurement.
constexpr char kNotYet[] = "n/a";

std::string Td(const std::string& text) { return absl::StrCat("<td>", Escape(text), "</td>"); }
std::string TdN(const std::string& text) { return absl::StrCat("<td class=\"n\">", Escape(text), "</td>"); }
std::string Pct(double fraction) { return absl::StrFormat("%.1f%%", fraction * 100); }

std::string Card(const std::string& label, const std::string& value, const std::string& id) {
  return absl::StrCat("<div class=\"card\">", Escape(label), "<b id=\"", id, "\" data-live=\"", id, "\">",
                      Escape(value), "</b></div>");
}

std::string VerdictSpan(const v1::Job& job) {
  if (job.state() != v1::DONE) {
    return Escape(job.state() == v1::QUEUED ? "QUEUED" : v1::Stage_Name(job.stage()));
  }
  const std::string name = v1::Verdict_Name(job.result().verdict());
  return absl::StrCat("<span class=\"v-", name, "\">", name, "</span>");
}

std::string TagsText(const v1::Job& job) {
  std::map<std::string, std::string> sorted(job.tags().begin(), job.tags().end());
  return absl::StrJoin(sorted, " ", absl::PairFormatter("="));
}

std::string WorkersTable(const std::vector<WorkerRow>& workers, int64_t now_ms, bool compile_only) {
  std::string rows;
  for (const WorkerRow& w : workers) {
    if (w.gpu.compile_only() != compile_only) continue;
    absl::StrAppend(&rows, "<tr>", Td(w.name), Td(w.id), Td(compile_only ? w.gpu.arch() : w.gpu.name()),
                    Td(w.hardware_key), TdN(FormatAge(w.last_seen_unix_ms, now_ms) + " ago"),
                    w.job_in_hand ? absl::StrCat("<td><a href=\"/jobs/", w.job_in_hand, "\">", w.job_in_hand, "</a></td>")
                                  : "<td>idle</td>",
                    TdN(absl::StrCat(w.jobs_served)), TdN(absl::StrCat(w.faults)), TdN(absl::StrCat(w.restarts)), "</tr>");
  }
  if (rows.empty()) return "<p>none</p>";
  return absl::StrCat("<table><tr><th>name</th><th>worker id</th><th>", compile_only ? "arch" : "GPU",
                      "</th><th>hardware key</th><th>last heartbeat</th><th>job in hand</th><th>jobs served</th>"
                      "<th>faults</th><th>restarts</th></tr>",
                      rows, "</table>");
}

std::string ActivityCharts(const Overview& o) {
  std::vector<std::string> minutes;
  minutes.reserve(60);
  for (int i = 0; i < 60; ++i) minutes.push_back(absl::StrCat(i - 60, " min"));
  std::vector<double> per_minute(o.per_minute.begin(), o.per_minute.end());
  std::vector<std::string> hours;
  hours.reserve(24);
  for (int i = 0; i < 24; ++i) hours.push_back(absl::StrCat(i - 24, " h"));
  std::vector<Series> mix;
  for (const auto& [verdict, counts] : o.verdicts_per_hour) {
    mix.push_back(Series{verdict, VerdictColor(verdict), std::vector<double>(counts.begin(), counts.end())});
  }
  return absl::StrCat("<h2>Jobs finished per minute (last hour)</h2>",
                      StackedBars(minutes, {Series{"jobs", "#0969da", per_minute}}, 10, 720, 180),
                      "<h2>Verdict mix per hour (last 24 hours)</h2>", StackedBars(hours, mix, 4, 720, 220));
}

}  // namespace

std::string OverviewPage(const Overview& o, int64_t now_ms, const Who& who) {
  int64_t last_10 = 0;
  for (size_t i = 50; i < o.per_minute.size(); ++i) last_10 += o.per_minute[i];
  std::string body = absl::StrCat(
      "<div class=\"cards\">", Card("queued", absl::StrCat(o.queued), "queue-depth"),
      Card("oldest queued", FormatAge(o.oldest_queued_unix_ms, now_ms), "queue-age"),
      Card("running", absl::StrCat(o.running), "running"), Card("done", absl::StrCat(o.done), "done"),
      Card("jobs/min (last 10 min)", absl::StrFormat("%.1f", static_cast<double>(last_10) / 10.0), "jobs-per-minute"),
      "</div>", ActivityCharts(o));
  if (who.admin) {
    absl::StrAppend(&body, "<h2>GPU workers</h2>", WorkersTable(o.workers, now_ms, false),
                    "<h2>Compile-only workers</h2>", WorkersTable(o.workers, now_ms, true));
  } else {
    absl::StrAppend(&body, "<p>Workers are shown to admins only (worker ids are not shared with tenants).</p>");
  }
  return Page("Overview", "Overview", who.label, who.csrf, body, "data-poll=\"/api/overview\"");
}

std::string JobsPage(const std::vector<v1::Job>& jobs, const JobsQuery& q, int64_t next_before_id,
                     const std::vector<v1::ProblemSummary>& problems, int64_t now_ms, const Who& who) {
  std::string problem_options = "<option value=\"\">any problem</option>";
  for (const v1::ProblemSummary& p : problems) {
    absl::StrAppend(&problem_options, "<option", p.name() == q.problem ? " selected" : "", ">", Escape(p.name()),
                    "</option>");
  }
  std::string verdict_options = "<option value=\"\">any verdict</option>";
  for (int v = v1::CORRECT; v <= v1::Verdict_MAX; ++v) {
    const std::string name = v1::Verdict_Name(static_cast<v1::Verdict>(v));
    absl::StrAppend(&verdict_options, "<option", name == q.verdict ? " selected" : "", ">", name, "</option>");
  }
  std::string body = absl::StrCat(
      "<form class=\"f\" method=\"get\" action=\"/jobs\"><select name=\"problem\">", problem_options,
      "</select><select name=\"verdict\">", verdict_options, "</select>tag <input name=\"tag\" placeholder=\"model=x\" value=\"",
      Escape(q.tag), "\">after <input name=\"after\" placeholder=\"2026-11-23 00:00\" value=\"", Escape(q.after),
      "\">before <input name=\"before\" value=\"", Escape(q.before), "\"><button>filter</button></form>",
      "<table id=\"jobs\"><tr><th>id</th><th>problem</th><th>state / verdict</th><th>tags</th><th>submitted</th>"
      "<th>median (first shape)</th><th>default speedup</th></tr>");
  for (const v1::Job& job : jobs) {
    const double median = job.result().timings().empty() ? 0 : job.result().timings(0).timing().median_us();
    // Against the denominator the server chose for this job (none on results stored before it did).
    const std::string& denominator = job.result().default_denominator().baseline();
    const double speedup = denominator.empty() ? 0 : server::JobSpeedup(job.result(), denominator);
    absl::StrAppend(&body, "<tr class=\"job-row\" data-job=\"", Escape(job.id()), "\"><td><a href=\"/jobs/",
                    Escape(job.id()), "\">", Escape(job.id()), "</a></td>", Td(job.problem()), "<td>", VerdictSpan(job),
                    "</td>", Td(TagsText(job)), Td(FormatAge(job.created_unix_ms(), now_ms) + " ago"), TdN(FormatUs(median)),
                    TdN(speedup > 0 ? absl::StrFormat("%.2fx vs %s", speedup, Escape(denominator)) : "-"), "</tr>");
  }
  absl::StrAppend(&body, "</table>", jobs.empty() ? "<p id=\"jobs-empty\">none yet: no job matches</p>" : "");
  if (next_before_id > 0) {
    absl::StrAppend(&body, "<p><a id=\"older\" href=\"/jobs?problem=", UrlEncode(q.problem), "&verdict=", UrlEncode(q.verdict),
                    "&tag=", UrlEncode(q.tag), "&after=", UrlEncode(q.after), "&before=", UrlEncode(q.before),
                    "&before_id=", next_before_id, "\">older jobs &rarr;</a></p>");
  }
  return Page("Jobs", "Jobs", who.label, who.csrf, body);
}

namespace {

// "+1.234 s" from the previous event (none before the first).
std::string SinceLast(int64_t previous_ms, int64_t at_ms) {
  return previous_ms > 0 ? absl::StrFormat("+%.3f s", static_cast<double>(at_ms - previous_ms) / 1000) : "";
}

// One timeline row: what happened, in words, with attempt, worker (admins only) and detail.
std::string EventRow(const server::JobEvent& e, int64_t previous_ms, bool admin) {
  std::string what = e.event;
  if (e.event == "stage") what = absl::StrCat("stage ", v1::Stage_Name(e.stage));
  if (e.event == "finished" && e.verdict != v1::VERDICT_UNSPECIFIED) {
    what = absl::StrCat("finished ", v1::Verdict_Name(e.verdict));
  }
  return absl::StrCat("<tr class=\"event\" data-event=\"", Escape(e.event), "\" data-at=\"", e.at_unix_ms,
                      "\" data-attempt=\"", e.attempt, "\">", Td(what), Td(FormatTime(e.at_unix_ms)), TdN(SinceLast(previous_ms, e.at_unix_ms)),
                      Td(e.attempt >= 0 ? absl::StrCat(e.attempt) : "?"), admin ? Td(e.worker_id) : "", Td(e.detail), "</tr>");
}

// now_ms: a job still queued or running shows how long it has been since its last event.
std::string Timeline(const JobDetail& d, int64_t now_ms, bool admin) {
  const v1::Job& job = d.job;
  std::string rows;
  int64_t previous_ms = 0;
  for (const server::JobEvent& e : d.events) {
    absl::StrAppend(&rows, EventRow(e, previous_ms, admin));
    previous_ms = e.at_unix_ms;
  }
  if (job.state() == v1::RUNNING) {
    absl::StrAppend(&rows, "<tr><td>now</td>", Td(FormatTime(now_ms)), TdN(SinceLast(previous_ms, now_ms)),
                    "<td colspan=\"3\"><span data-live=\"stage\">", v1::Stage_Name(job.stage()),
                    "</span> <span data-live=\"progress\">", job.progress_done(), "/", job.progress_total(),
                    "</span></td></tr>");
  }
  if (job.state() == v1::QUEUED) {
    absl::StrAppend(&rows, "<tr><td>now: queue position</td>", Td(FormatTime(now_ms)), TdN(SinceLast(previous_ms, now_ms)),
                    "<td colspan=\"3\" data-live=\"queue_position\">", job.queue_position(), "</td></tr>");
  }
  // No silent waiting: why no connected worker can take it (server/worker_capacity.h).
  if (job.state() == v1::QUEUED && !job.waiting_reason().empty()) {
    absl::StrAppend(&rows, "<tr class=\"waiting\" id=\"waiting-reason\"><td>waiting</td><td colspan=\"",
                    admin ? 5 : 4, "\"><strong>", Escape(job.waiting_reason().substr(0, 400)), "</strong></td></tr>");
  }
  return absl::StrCat("<h2>Timeline</h2><table id=\"timeline\"><tr><th>event</th><th>at</th><th>after previous</th>"
                      "<th>attempt</th>", admin ? "<th>worker</th>" : "", "<th>detail</th></tr>",
                      rows, "</table>");
}

std::string Mismatches(const v1::JobResult& r) {
  std::string out;
  for (const v1::TestOutcome& t : r.tests()) {
    absl::StrAppend(&out, "<tr>", Td(t.shape()), Td(t.passed() ? "pass" : "FAIL"),
                    TdN(absl::StrFormat("%.3g", t.max_abs_error())), TdN(absl::StrFormat("%.3g", t.max_rel_error())),
                    TdN(absl::StrCat(t.mismatch_count())), Td(t.detail()), "</tr>");
    for (const v1::Mismatch& m : t.first_mismatches()) {
      absl::StrAppend(&out, "<tr class=\"mismatch\"><td></td>", Td(m.tensor()), TdN(absl::StrCat("[", m.index(), "]")),
                      TdN(absl::StrFormat("expected %.6g", m.expected())), TdN(absl::StrFormat("got %.6g", m.actual())),
                      "<td></td></tr>");
    }
  }
  if (out.empty()) return "";
  return absl::StrCat("<h2>Correctness</h2><table><tr><th>shape</th><th>result</th><th>max abs err</th>"
                      "<th>max rel err</th><th>mismatches</th><th>detail</th></tr>",
                      out, "</table>");
}

// The job's default denominator in words, as `kjudge job` prints it.
std::string DefaultNote(const v1::JobResult& r) {
  if (r.speedups().empty()) return "";
  if (!r.has_default_denominator()) {
    return "<p id=\"default-speedup\">No default speedup recorded: this result predates it; each speedup names its "
           "baseline.</p>";
  }
  const v1::Denominator& d = r.default_denominator();
  if (d.baseline().empty()) return absl::StrCat("<p id=\"default-speedup\">Default speedup: none, ", Escape(d.note()), "</p>");
  return absl::StrCat("<p id=\"default-speedup\">Default speedup ",
                      absl::StrFormat("%.3fx ", server::JobSpeedup(r, d.baseline())), Escape(d.note()), "</p>");
}

// One plot of raw samples per shape that has them (jobs judged before samples were sent have
// none: the summary plot above stands alone then).
std::string SamplePlots(const JobDetail& d) {
  std::string out;
  for (const auto& [shape, samples] : d.samples) {
    double median = 0;
    for (const v1::ShapeTiming& st : d.job.result().timings()) {
      if (st.shape() == shape) median = st.timing().median_us();
    }
    absl::StrAppend(&out, "<div class=\"sample-plot\" data-shape=\"", Escape(shape), "\"><h3>", Escape(shape),
                    "</h3>", SamplePlot(samples, median, 820), "</div>");
  }
  if (out.empty()) return "";
  return absl::StrCat("<h2>Timing samples</h2>", out);
}

// A baselines-only job's measured baselines, as the server stored them.
std::string MeasuredBaselines(const v1::JobResult& r) {
  if (r.baselines().empty()) return "";
  std::string rows;
  for (const v1::BaselineTiming& b : r.baselines()) {
    const v1::Timing& t = b.timing();
    absl::StrAppend(&rows, "<tr class=\"baseline\" data-name=\"", Escape(b.name()), "\" data-shape=\"",
                    Escape(b.shape()), "\">", Td(b.name()), Td(b.shape()), TdN(FormatUs(t.median_us())),
                    TdN(absl::StrCat(t.samples())),
                    TdN(t.sol_percent() > 0 ? absl::StrFormat("%.1f%%", t.sol_percent()) : "-"), "</tr>");
  }
  return absl::StrCat("<h2>Baselines measured</h2><table id=\"measured-baselines\"><tr><th>baseline</th>"
                      "<th>shape</th><th>median</th><th>samples</th><th>SOL%</th></tr>",
                      rows, "</table>");
}

std::string Timings(const v1::JobResult& r) {
  if (r.timings().empty()) return "";
  std::vector<TimingRow> plot;
  std::string rows;
  for (const v1::ShapeTiming& st : r.timings()) {
    const v1::Timing& t = st.timing();
    TimingRow& row = plot.emplace_back();
    row = TimingRow{st.shape(), t.min_us(), t.median_us(), t.mean_us(), t.std_us(), t.p95_us(), t.p99_us(), t.max_us(), {}};
    std::string speedups;
    for (const v1::Speedup& s : r.speedups()) {
      if (s.shape() != st.shape() || !(s.speedup() > 0)) continue;
      row.markers.emplace_back(s.baseline(), s.speedup() * t.median_us());  // speedup = baseline / candidate
      const bool is_default = s.baseline() == r.default_denominator().baseline();
      absl::StrAppend(&speedups, is_default ? "<b>" : "", Escape(s.baseline()), is_default ? " (default)</b>" : "",
                      absl::StrFormat(" %.2fx<br>", s.speedup()));
    }
    absl::StrAppend(&rows, "<tr class=\"timing\" data-shape=\"", Escape(st.shape()), "\" data-median-us=\"",
                    absl::StrFormat("%.6g", t.median_us()), "\">", Td(st.shape()), TdN(FormatUs(t.median_us())),
                    TdN(absl::StrFormat("%.2f%%", t.mean_us() > 0 ? t.std_us() / t.mean_us() * 100 : 0)),
                    TdN(FormatUs(t.p95_us())), TdN(absl::StrCat(t.samples())),
                    TdN(t.sol_percent() > 0 ? absl::StrFormat("%.1f%%", t.sol_percent()) : "-"), "<td>", speedups,
                    "</td></tr>");
  }
  return absl::StrCat("<h2>Timing per bench shape</h2><table><tr><th>shape</th><th>median</th><th>std/mean</th>"
                      "<th>p95</th><th>samples</th><th>SOL%</th><th>speedup per baseline</th></tr>",
                      rows, "</table>", DefaultNote(r), TimingPlot(plot, 820),
                      "<p>Baseline medians are the yellow marks. The raw samples of each shape, where the judge "
                      "sent them (at most 1,000 per shape), are plotted below.</p>");
}

}  // namespace

std::string JobPage(const JobDetail& d, int64_t now_ms, const Who& who) {
  const v1::Job& job = d.job;
  const v1::JobResult& r = job.result();
  std::string summary = absl::StrCat(
      "<table><tr><th>problem</th><td><a href=\"/problems/", UrlEncode(job.problem()), "\">", Escape(job.problem()),
      "</a></td></tr><tr><th>state</th><td id=\"job-state\" data-live=\"state\">", v1::JobState_Name(job.state()),
      "</td></tr><tr><th>verdict</th><td id=\"verdict\">", job.state() == v1::DONE ? VerdictSpan(job) : "-",
      "</td></tr><tr><th>message</th>", Td(r.message()), "</tr><tr><th>owner</th>", Td(d.owner),
      "</tr><tr><th>tags</th>", Td(TagsText(job)), "</tr><tr><th>public</th>", Td(job.public_() ? "yes" : "no"),
      "</tr><tr><th>compile only</th>", Td(job.compile_only() ? "yes" : "no"), "</tr><tr><th>baselines only</th>",
      Td(job.baselines_only() ? "yes (no kernel: measures the problem's missing baselines; not in stats)" : "no"),
      "</tr><tr><th>seed</th>",
      Td(job.state() == v1::DONE ? absl::StrCat(r.seed()) : "(revealed when done)"), "</tr><tr><th>GPU</th>", Td(r.gpu().empty() ? kNotYet : r.gpu()),
      "</tr>", who.admin ? absl::StrCat("<tr><th>worker</th>", Td(job.worker()), "</tr>") : "",
      "<tr><th>compile</th>",
      Td(r.compile_ms() > 0 || r.cubin_cache_hit()
             ? absl::StrFormat("%.0f ms%s", r.compile_ms(), r.cubin_cache_hit() ? " (cache hit)" : "")
             : std::string(kNotYet)),
      "</tr><tr><th>flags</th>", Td(absl::StrJoin(r.flags(), "; ")), "</tr>",
      r.cuda_error().empty() ? "" : absl::StrCat("<tr><th>CUDA error</th>", Td(r.cuda_error()), "</tr>"), "</table>");
  std::string body =
      absl::StrCat(summary, Timeline(d, now_ms, who.admin), KernelSection(r), Timings(r), MeasuredBaselines(r),
                   SamplePlots(d), Mismatches(r));
  if (!r.compile_log().empty()) absl::StrAppend(&body, "<h2>Compile log</h2><pre id=\"compile-log\">", Escape(r.compile_log()), "</pre>");
  if (!job.baselines_only()) {  // a baselines-only job has no kernel to show
    absl::StrAppend(&body, "<h2>Launch plan</h2><pre>", Highlight(d.launch_plan), "</pre><h2>Source ",
                    Escape(d.filename), "</h2><pre id=\"source\">", Highlight(d.source), "</pre>");
  }
  if (!r.candidate_output().empty()) {
    absl::StrAppend(&body, "<h2>Candidate output</h2><pre>", Escape(r.candidate_output()), "</pre>");
  }
  const std::string attributes =
      job.state() == v1::DONE ? "" : absl::StrCat("data-poll=\"/api/jobs/", Escape(job.id()), "\" data-reload-when=\"state=DONE\"");
  return Page(absl::StrCat("Job ", job.id()), "Jobs", who.label, who.csrf, body, attributes);
}

std::string ProblemsPage(const std::vector<v1::ProblemSummary>& problems, const Who& who) {
  std::string body = "<table><tr><th>problem</th><th>level</th><th>title</th></tr>";
  for (const v1::ProblemSummary& p : problems) {
    absl::StrAppend(&body, "<tr><td><a href=\"/problems/", UrlEncode(p.name()), "\">", Escape(p.name()), "</a></td>",
                    TdN(absl::StrCat(p.level())), Td(p.title()), "</tr>");
  }
  return Page("Problems", "Problems", who.label, who.csrf, body + "</table>");
}

std::string ProblemPage(const server::CatalogEntry& entry, const std::vector<v1::BaselineTiming>& baselines,
                        const std::vector<LeaderboardRow>& leaderboard, const std::string& by, const Who& who) {
  const v1::Problem& p = entry.proto;
  const std::string link = absl::StrCat("/problems/", UrlEncode(p.name()));
  // class prose: long lines wrap at the page's edge instead of running off it (issue 27 pt9).
  std::string body = absl::StrCat("<p>", Escape(p.title()), "</p><pre class=\"prose\" id=\"description\">",
                                  Escape(p.description()), "</pre>",
                                  "<p>Test shapes: ", Escape(absl::StrJoin(p.test_shapes(), "; ")),
                                  "<br>Bench shapes: ", Escape(absl::StrJoin(p.bench_shapes(), "; ")), "</p>");
  absl::StrAppend(&body, "<h2>Leaderboard (best CORRECT time per ", by == "model" ? "model tag" : "owner",
                  ")</h2><p>Rank by <a href=\"", link, "?by=owner\">owner</a> | <a href=\"", link,
                  "?by=model\">model tag</a>. ", who.admin ? "All jobs." : "Public jobs, and your own.",
                  "</p><table id=\"leaderboard\"><tr><th>#</th><th>", by == "model" ? "model" : "owner",
                  "</th><th>time (geomean of bench medians)</th><th>speedup vs ", server::kReferenceBaseline,
                  "</th><th>SOL%</th><th>job</th></tr>");
  for (size_t i = 0; i < leaderboard.size(); ++i) {
    const LeaderboardRow& row = leaderboard[i];
    absl::StrAppend(&body, "<tr class=\"lb-row\" data-job=\"", row.job_id, "\">", TdN(absl::StrCat(i + 1)), Td(row.who),
                    TdN(FormatUs(row.time_us)), TdN(row.speedup > 0 ? absl::StrFormat("%.2fx", row.speedup) : "-"),
                    TdN(row.sol_percent > 0 ? absl::StrFormat("%.1f%%", row.sol_percent) : "-"), "<td><a href=\"/jobs/",
                    row.job_id, "\">", row.job_id, "</a>", row.is_public ? "" : " (private)", "</td></tr>");
  }
  absl::StrAppend(&body, "</table>",
                  leaderboard.empty() ? "<p id=\"leaderboard-empty\">none yet: no CORRECT job you may see</p>" : "",
                  "<h2>Baselines per hardware key</h2><table><tr><th>hardware key</th><th>shape</th>"
                         "<th>baseline</th><th>median</th><th>SOL%</th></tr>");
  for (const v1::BaselineTiming& b : baselines) {
    absl::StrAppend(&body, "<tr>", Td(b.hardware_key()), Td(b.shape()), Td(b.name()), TdN(FormatUs(b.timing().median_us())),
                    TdN(b.timing().sol_percent() > 0 ? absl::StrFormat("%.1f%%", b.timing().sol_percent()) : "-"), "</tr>");
  }
  absl::StrAppend(&body, "</table>", baselines.empty() ? "<p>No baselines measured yet.</p>" : "",
                  "<h2>Prompt (what an LLM is given)</h2><pre class=\"prose\">", Escape(p.prompt()), "</pre>");
  return Page(p.name(), "Problems", who.label, who.csrf, body);
}

namespace {

std::string NotApplicable() { return "n/a"; }

// A table row "<th>label</th><td id=...>value</td>", value "n/a" when absent.
std::string StatRow(const std::string& label, const std::string& id, const std::string& value,
                    const std::string& data_value = "") {
  return absl::StrCat("<tr><th>", label, "</th><td class=\"n\" id=\"", id, "\"",
                      data_value.empty() ? "" : absl::StrCat(" data-value=\"", data_value, "\""), ">", value, "</td></tr>");
}

// KernelBench's numbers, one result per problem (Stats.per_problem), or one n/a row.
std::string PerProblemRows(const v1::Stats& s, const std::string& id) {
  if (!s.has_per_problem()) {
    return StatRow("per problem (KernelBench)", "per-problem-" + id, "n/a (no judged job)");
  }
  const v1::ProblemSetStats& p = s.per_problem();
  std::string rows = absl::StrCat(
      "<tr><th colspan=\"2\">per problem (KernelBench: one result per problem)</th></tr>",
      StatRow("problems", "pp-problems-" + id, absl::StrCat(p.problems(), " (", p.judged(), " judged, ", p.unsubmitted(),
                                                            " with no judged job: failures)")),
      StatRow("correct (pass@1)", "pp-correct-" + id, Pct(p.correctness()), absl::StrFormat("%.6f", p.correctness())),
      StatRow("geomean speedup", "pp-geomean-" + id,
              p.has_geomean_speedup() ? absl::StrFormat("%.3fx over %d problem(s)", p.geomean_speedup(), p.with_speedup())
                                      : NotApplicable()));
  for (const v1::FastP& f : p.fast_p()) {
    absl::StrAppend(&rows, StatRow(absl::StrFormat("fast_%.1f", f.p()), absl::StrFormat("pp-fastp-%s-%.2f", id, f.p()),
                                   Pct(f.fraction()), absl::StrFormat("%.6f", f.fraction())));
  }
  for (int k : server::kPassAtK) {
    const v1::PassAtK* found = nullptr;
    for (const v1::PassAtK& entry : p.pass_at_k()) found = entry.k() == k ? &entry : found;
    absl::StrAppend(&rows, StatRow(absl::StrCat("pass@", k), absl::StrCat("pass-", id, "-", k),
                                   found ? Pct(found->fraction()) : "n/a (a problem has fewer judged jobs)",
                                   found ? absl::StrFormat("%.6f", found->fraction()) : ""));
  }
  if (p.unsubmitted() > 0) {
    absl::StrAppend(&rows, StatRow("no judged job", "pp-unsubmitted-" + id,
                                   Escape(absl::StrJoin(p.unsubmitted_problems(), " ")) +
                                       (p.unsubmitted() > p.unsubmitted_problems_size() ? " ..." : "")));
  }
  return rows;
}

std::string RunColumn(const RunStats& run, const std::string& id) {
  const v1::Stats& s = run.stats;
  std::string rows = absl::StrCat(
      StatRow("jobs", "jobs-" + id, absl::StrCat(s.jobs(), " judged + ", s.compile_only_jobs(), " compile-only")),
      StatRow("compile rate", "compile-rate-" + id, s.has_compile_rate() ? Pct(s.compile_rate()) : NotApplicable()),
      StatRow("correctness rate (per job)", "correct-rate-" + id,
              s.has_correctness_rate() ? Pct(s.correctness_rate()) : NotApplicable()),
      StatRow("geomean speedup (per job)", "geomean-" + id,
              s.has_geomean_speedup() ? absl::StrFormat("%.3fx", s.geomean_speedup()) : NotApplicable()));
  if (s.fast_p().empty()) absl::StrAppend(&rows, StatRow("fast_p (per job)", "fastp-" + id, "n/a (no judged job)"));
  for (const v1::FastP& f : s.fast_p()) {
    absl::StrAppend(&rows, StatRow(absl::StrFormat("fast_%.1f (per job)", f.p()), absl::StrFormat("fastp-%s-%.2f", id, f.p()),
                                   Pct(f.fraction()), absl::StrFormat("%.6f", f.fraction())));
  }
  absl::StrAppend(&rows, PerProblemRows(s, id));
  // Each problem's denominator, as `kjudge stats` lists them.
  std::string problems;
  for (const v1::ProblemStats& p : s.problems()) {
    absl::StrAppend(&problems, "<tr class=\"run-problem\" data-problem=\"", Escape(p.problem()), "\" data-baseline=\"",
                    Escape(p.denominator().baseline()), "\">", Td(p.gpu().empty() ? p.problem() : p.problem() + " @ " + p.gpu()),
                    TdN(absl::StrCat(p.correct(), "/", p.jobs())), TdN(absl::StrCat(p.compile_only_jobs())),
                    TdN(p.with_speedup() > 0 ? absl::StrFormat("%.3fx", p.geomean_speedup()) : NotApplicable()),
                    Td(p.denominator().note()), "</tr>");
  }
  const std::string title = absl::StrJoin(run.tags, ",", absl::PairFormatter("="));
  return absl::StrCat("<div><h2>", Escape(title), "</h2><table>", rows, "</table><table><tr><th>problem</th>"
                      "<th>correct</th><th>compile-only</th><th>geomean</th><th>denominator</th></tr>", problems,
                      "</table></div>");
}

}  // namespace

std::string RunsPage(const std::vector<std::pair<std::string, int64_t>>& tags, const std::optional<RunStats>& a,
                     const std::optional<RunStats>& b, const std::string& baseline, const Who& who,
                     const std::string& set_prefix) {
  std::string options;
  for (const auto& [tag, count] : tags) {
    absl::StrAppend(&options, "<option value=\"", Escape(tag), "\">", Escape(tag), " (", count, " jobs)</option>");
  }
  std::string body = absl::StrCat(
      "<form class=\"f\" method=\"get\" action=\"/runs\">run A <input name=\"a\" list=\"tags\" placeholder=\"model=x\" value=\"",
      a ? Escape(absl::StrJoin(a->tags, ",", absl::PairFormatter("="))) : "",
      "\"> run B <input name=\"b\" list=\"tags\" value=\"",
      b ? Escape(absl::StrJoin(b->tags, ",", absl::PairFormatter("="))) : "",
      "\"> baseline <input name=\"baseline\" placeholder=\"each problem's default\" value=\"", Escape(baseline),
      "\"> problem set <input name=\"set\" placeholder=\"e.g. level1/ (unsubmitted = failed)\" value=\"", Escape(set_prefix),
      "\"><button>compare</button><datalist id=\"tags\">",
      options, "</datalist></form>");
  if (!a) {
    absl::StrAppend(&body, "<h2>Tagged runs</h2><table><tr><th>tag</th><th>jobs</th></tr>");
    for (const auto& [tag, count] : tags) {
      absl::StrAppend(&body, "<tr><td><a href=\"/runs?a=", UrlEncode(tag), "\">", Escape(tag), "</a></td>",
                      TdN(absl::StrCat(count)), "</tr>");
    }
    return Page("Runs", "Runs", who.label, who.csrf,
                body + "</table>" + (tags.empty() ? "<p id=\"runs-empty\">none yet: no job carries a model or run tag</p>" : ""));
  }
  // Per-problem fast_p (KernelBench's); a run with no judged job has no curve (n/a), not a line at 0.
  std::vector<double> ps;
  std::vector<Series> lines;
  auto add = [&](const RunStats& run, const std::string& color) {
    if (run.curve.empty()) return;
    std::vector<double> ys;
    ps.clear();
    for (const v1::FastP& f : run.curve) {
      ps.push_back(f.p());
      ys.push_back(f.fraction());
    }
    lines.push_back(Series{absl::StrJoin(run.tags, ",", absl::PairFormatter("=")), color, ys});
  };
  add(*a, "#0969da");
  if (b) add(*b, "#cf222e");
  absl::StrAppend(&body, "<div class=\"cards\">", RunColumn(*a, "a"), b ? RunColumn(*b, "b") : "", "</div>",
                  "<h2>fast_p over p, per problem (speedup threshold against ",
                  baseline.empty() ? "each problem's default denominator" : Escape(baseline), ")</h2>",
                  lines.empty() ? "<p id=\"curve-na\">n/a: no judged job in these runs (compile-only jobs have no "
                                  "correctness or speedup)</p>"
                                : Lines(ps, lines, 1.0, "p", "fraction of problems correct and faster than p", 720, 260));
  return Page("Runs", "Runs", who.label, who.csrf, body);
}

std::string LoginPage(const std::string& error, const std::string& next, const std::string& csrf) {
  std::string body = absl::StrCat(
      error.empty() ? "" : absl::StrCat("<p class=\"err\">", Escape(error), "</p>"),
      "<p>Sign in with your kjudge API key (a submitter or admin key; the same keys as the server). "
      "The key is checked against the server's database on every page.</p>"
      "<form method=\"post\" action=\"/login\"><input type=\"password\" name=\"key\" size=\"60\" placeholder=\"kj_...\">"
      "<input type=\"hidden\" name=\"next\" value=\"",
      Escape(next), "\"><input type=\"hidden\" name=\"csrf\" value=\"", Escape(csrf),
      "\"><button>sign in</button></form>");
  return Page("Sign in", "", "", "", body);
}

std::string ErrorPage(int status, const std::string& message, const Who& who) {
  return Page(absl::StrCat("Error ", status), "", who.label, who.csrf, absl::StrCat("<p class=\"err\">", Escape(message), "</p>"));
}

}  // namespace kjudge::dashboard
