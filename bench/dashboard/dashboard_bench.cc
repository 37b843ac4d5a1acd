// kjudge-bench-dashboard: how long each dashboard page takes with N jobs in the database, and
// whether the dashboard's reads delay the server's writes.
//
// It builds a database the way the server does (migrations), fills it with N jobs of every
// state and verdict spread over the catalog's problems, 10 tenants, 5 model tags and 24 hours,
// with their timelines (job_events), then serves kjudge-dashboard's routes in-process over loopback HTTP with --require-auth and
// times every page, as an admin and as a submitter. Last, it times 400 job inserts (JobStore::
// Enqueue on the server's own kind of connection) alone and while pages are read in a loop.
// Usage: kjudge-bench-dashboard --db /tmp/dash.sqlite --problems problems [--jobs 100000]
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <random>
#include <thread>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "dashboard/app.h"
#include "proto/proto_json.h"
#include "server/job_store.h"
#include "server/migrations.h"

namespace kjudge {
namespace {

using Clock = std::chrono::steady_clock;
using server::Database;
using server::Statement;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

void Check(const absl::Status& status, const char* what) {
  if (!status.ok()) {
    std::cerr << what << ": " << status << "\n";
    std::exit(1);
  }
}

// A recorded result of `verdict`; CORRECT ones get a timing and speedups.
std::string ResultJson(v1::Verdict verdict, std::mt19937_64& rng) {
  v1::JobResult r;
  r.set_verdict(verdict);
  r.set_message("bench");
  r.set_seed(rng());
  if (verdict == v1::CORRECT) {
    const double median = 5.0 + static_cast<double>(rng() % 10000) / 100.0;
    v1::ShapeTiming* t = r.add_timings();
    t->set_shape("N=4096");
    t->mutable_timing()->set_median_us(median);
    t->mutable_timing()->set_min_us(median * 0.95);
    t->mutable_timing()->set_max_us(median * 1.3);
    t->mutable_timing()->set_p95_us(median * 1.1);
    t->mutable_timing()->set_p99_us(median * 1.2);
    t->mutable_timing()->set_mean_us(median * 1.02);
    t->mutable_timing()->set_std_us(median * 0.04);
    t->mutable_timing()->set_sol_percent(2000.0 / median);
    for (const char* baseline : {"reference", "cublas"}) {
      v1::Speedup* s = r.add_speedups();
      s->set_shape("N=4096");
      s->set_baseline(baseline);
      s->set_speedup(30.0 / median);
    }
  }
  return ToJson(r);
}

v1::Verdict PickVerdict(std::mt19937_64& rng) {
  static constexpr v1::Verdict kMix[] = {v1::CORRECT, v1::CORRECT, v1::CORRECT, v1::CORRECT, v1::WRONG_ANSWER,
                                         v1::WRONG_ANSWER, v1::COMPILE_ERROR, v1::COMPILE_ERROR, v1::RUNTIME_ERROR,
                                         v1::TIMEOUT, v1::REJECTED, v1::LAUNCH_ERROR, v1::CANCELLED, v1::COMPILED};
  return kMix[rng() % std::size(kMix)];
}

// Fills the database: `jobs` jobs (1% queued, 16 running, the rest done), 20 workers.
void Fill(Database& db, const std::vector<std::string>& problems, const std::vector<std::string>& keys, int jobs,
          int64_t now) {
  std::mt19937_64 rng(7);
  std::vector<std::string> results;
  for (int i = 0; i < 600; ++i) results.push_back("");  // lazily made per verdict below
  Check(db.Execute("BEGIN"), "begin");
  Check(db.Execute("INSERT INTO sources VALUES('s', 'extern \"C\" __global__ void k() {}', 0)"), "source");
  for (int w = 0; w < 20; ++w) {
    absl::StatusOr<Statement> s = db.Prepare("INSERT INTO workers VALUES(?, ?, ?, ?, ?, ?, '')");
    Check(s.status(), "prepare worker");
    v1::GpuInfo gpu;
    gpu.set_name(w < 16 ? "NVIDIA H100 80GB HBM3" : "");
    gpu.set_compile_only(w >= 16);
    gpu.set_arch("sm_90a");
    s->Bind(1, absl::StrCat("w-", w)).Bind(2, absl::StrCat("host", w % 8)).Bind(3, ToJson(gpu));
    s->Bind(4, w < 16 ? "h100-key" : "compile-only|sm_90a").Bind(5, now - 86400000).Bind(6, now - w * 1000);
    Check(s->Run(), "worker");
  }
  for (int i = 0; i < jobs; ++i) {
    // A fresh statement per row: Statement has no reset, and binds on a finished one are refused.
    absl::StatusOr<Statement> insert = db.Prepare(
        "INSERT INTO jobs(problem, source_sha256, launch_plan, compile_only, tags_json, seed, state, stage, max_attempts, "
        "worker_id, verdict, result_json, created_unix_ms, started_unix_ms, finished_unix_ms, api_key_id, public) "
        "VALUES(?, 's', 'k<<<1, 1>>>();', ?, ?, 1, ?, ?, 3, ?, ?, ?, ?, ?, ?, ?, ?)");
    Check(insert.status(), "prepare job");
    const int64_t created = now - 86400000 + static_cast<int64_t>(i) * 86400000 / jobs;
    const int state = i >= jobs - jobs / 100 ? 1 : (i >= jobs - jobs / 100 - 16 ? 2 : 3);
    const v1::Verdict verdict = PickVerdict(rng);
    const bool compile_only = verdict == v1::COMPILED;
    std::string& cached = results[(static_cast<size_t>(verdict) * 40 + rng() % 40) % results.size()];
    if (state == 3 && cached.empty()) cached = ResultJson(verdict, rng);
    Statement& s = *insert;
    s.Bind(1, problems[rng() % problems.size()]).Bind(2, compile_only ? 1 : 0);
    s.Bind(3, absl::StrCat("{\"model\":\"m", rng() % 5, "\",\"run\":\"r", i / 10000, "\"}")).Bind(4, state);
    s.Bind(5, state == 3 ? 6 : state);
    if (state == 1) s.BindNull(6); else s.Bind(6, absl::StrCat("w-", compile_only ? 16 + i % 4 : i % 16));
    if (state == 3) s.Bind(7, verdict).Bind(8, cached); else s.BindNull(7).BindNull(8);
    s.Bind(9, created);
    if (state == 1) s.BindNull(10); else s.Bind(10, created + 500);
    if (state == 3) s.Bind(11, created + 3000); else s.BindNull(11);
    s.Bind(12, keys[static_cast<size_t>(i) % keys.size()]).Bind(13, static_cast<int64_t>(rng() % 2));
    Check(s.Run(), "job");
  }
  // Each job's timeline as the server would have written it (job_events; a job page reads it).
  Check(db.Execute("INSERT INTO job_events(job_id, at_unix_ms, event, attempt, worker_id, stage, verdict, detail) "
                   "SELECT id, created_unix_ms, 'queued', 0, NULL, 1, 0, '' FROM jobs UNION ALL "
                   "SELECT id, started_unix_ms, 'leased', 1, worker_id, 2, 0, '' FROM jobs WHERE started_unix_ms IS NOT NULL "
                   "UNION ALL SELECT id, finished_unix_ms, 'finished', 1, worker_id, 6, verdict, 'bench' FROM jobs "
                   "WHERE state = 3 ORDER BY 1, 2"),
        "events");
  Check(db.Execute("COMMIT"), "commit");
}

struct PageTime {
  std::string path;
  double median_ms = 0, max_ms = 0;
  int status = 0;
  size_t bytes = 0;
};

PageTime Time(httplib::Client& client, const std::string& key, const std::string& path, int repeats) {
  std::vector<double> ms;
  PageTime t{path};
  httplib::Headers headers = {{"Authorization", "Bearer " + key}};
  for (int i = 0; i < repeats; ++i) {
    const Clock::time_point start = Clock::now();
    httplib::Result res = client.Get(path.c_str(), headers);
    ms.push_back(Ms(Clock::now() - start));
    t.status = res ? res->status : -1;
    t.bytes = res ? res->body.size() : 0;
  }
  std::sort(ms.begin(), ms.end());
  t.median_ms = ms[ms.size() / 2];
  t.max_ms = ms.back();
  return t;
}

// Latencies of `n` Enqueue calls on the server's kind of connection, sorted.
std::vector<double> TimeWrites(server::JobStore& store, int n) {
  std::vector<double> ms;
  server::NewJob job;
  job.problem = "level1/19_ReLU";
  job.source = "extern \"C\" __global__ void k() {}";
  job.launch_plan = "k<<<1, 1>>>();";
  for (int i = 0; i < n; ++i) {
    job.seed = static_cast<uint64_t>(i);
    const Clock::time_point start = Clock::now();
    Check(store.Enqueue(job).status(), "enqueue");
    ms.push_back(Ms(Clock::now() - start));
  }
  std::sort(ms.begin(), ms.end());
  return ms;
}

int Main(const std::string& db_path, const std::string& problems_dir, int jobs) {
  std::filesystem::remove(db_path);
  std::filesystem::remove(db_path + "-wal");
  std::filesystem::remove(db_path + "-shm");
  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(db_path);
  Check(db.status(), "open");
  Check(server::ApplyMigrations(**db, server::BuiltinMigrations()), "migrate");
  absl::StatusOr<std::unique_ptr<server::ProblemCatalog>> catalog = server::ProblemCatalog::Load(problems_dir);
  Check(catalog.status(), "catalog");
  std::vector<std::string> problems;
  for (const v1::ProblemSummary& p : (*catalog)->List()) problems.push_back(p.name());

  server::SharedDatabase shared{std::move(*db), {}, server::SystemNowMs};
  server::ApiKeys keys(&shared);
  absl::StatusOr<server::CreatedKey> admin = keys.Create("bench-admin", server::Role::kAdmin);
  Check(admin.status(), "key");
  std::vector<std::string> tenant_ids;
  std::string submitter;
  for (int i = 0; i < 10; ++i) {
    absl::StatusOr<server::CreatedKey> k = keys.Create(absl::StrCat("tenant", i), server::Role::kSubmitter);
    Check(k.status(), "key");
    tenant_ids.push_back(k->key.id);
    if (i == 0) submitter = k->secret;
  }
  const Clock::time_point fill_start = Clock::now();
  Fill(*shared.db, problems, tenant_ids, jobs, server::SystemNowMs());
  std::cout << absl::StrFormat("filled %d jobs over %d problems in %.1f s\n", jobs, problems.size(),
                               Ms(Clock::now() - fill_start) / 1000);

  absl::StatusOr<std::unique_ptr<dashboard::Queries>> queries = dashboard::Queries::Open(db_path);
  Check(queries.status(), "dashboard");
  httplib::Server http;
  http.set_tcp_nodelay(true);  // as kjudge-dashboard does
  server::LiveCatalog live(problems_dir, std::move(*catalog));
  dashboard::App app(queries->get(), &live, {true, false});
  app.Register(http);
  const int port = http.bind_to_any_port("127.0.0.1");
  std::thread serving([&] { http.listen_after_bind(); });
  httplib::Client client("127.0.0.1", port);
  client.set_keep_alive(true);
  client.set_tcp_nodelay(true);

  const std::string problem = problems.front();
  const std::string job_id = std::to_string(jobs / 2 + 1);  // row jobs / 2: tenant0, the submitter timed below
  const std::vector<std::string> paths = {
      "/", "/jobs", "/jobs?verdict=TIMEOUT", "/jobs?problem=" + problem + "&tag=model%3Dm3", "/jobs?before_id=50000",
      "/jobs/" + job_id, "/problems", "/problems/" + problem, "/problems/" + problem + "?by=model", "/runs",
      "/runs?a=model%3Dm1&b=model%3Dm2", "/api/overview", "/api/jobs/" + job_id};
  std::cout << absl::StrFormat("%-44s %8s %12s %12s %10s\n", "page", "viewer", "median ms", "max ms", "bytes");
  double worst = 0;
  for (const auto& [viewer, key] : {std::pair<std::string, std::string>{"admin", admin->secret}, {"tenant", submitter}}) {
    for (const std::string& path : paths) {
      PageTime t = Time(client, key, path, 15);
      worst = std::max(worst, t.median_ms);
      std::cout << absl::StrFormat("%-44s %8s %12.2f %12.2f %10d%s\n", path, viewer, t.median_ms, t.max_ms, t.bytes,
                                   t.status == 200 ? "" : absl::StrCat("  HTTP ", t.status));
    }
  }
  std::cout << absl::StrFormat("slowest page (median): %.2f ms (target: under 100 ms)\n", worst);

  // Writes while nothing reads, then while a reader loads the heaviest pages in a loop.
  server::JobStore store(&shared, server::JobStoreOptions{});
  std::vector<double> alone = TimeWrites(store, 400);
  std::atomic<bool> stop{false};
  std::atomic<int> pages{0};
  std::thread reader([&] {
    httplib::Client c("127.0.0.1", port);
    httplib::Headers headers = {{"Authorization", "Bearer " + admin->secret}};
    while (!stop) {
      for (const char* path : {"/", "/runs?a=model%3Dm1&b=model%3Dm2", "/problems/level1/19_ReLU"}) {
        c.Get(path, headers);
        ++pages;
      }
    }
  });
  std::vector<double> busy = TimeWrites(store, 400);
  stop = true;
  reader.join();
  auto pct = [](const std::vector<double>& v, double p) { return v[static_cast<size_t>(p * (v.size() - 1))]; };
  std::cout << absl::StrFormat("server writes (Enqueue, one transaction, fsync): alone p50 %.2f ms p99 %.2f ms max %.2f ms\n",
                               pct(alone, 0.5), pct(alone, 0.99), alone.back());
  std::cout << absl::StrFormat("                while %d pages were read:          p50 %.2f ms p99 %.2f ms max %.2f ms\n",
                               pages.load(), pct(busy, 0.5), pct(busy, 0.99), busy.back());
  http.stop();
  serving.join();
  return worst < 100 ? 0 : 1;
}

}  // namespace
}  // namespace kjudge

int main(int argc, char** argv) {
  std::string db = "/tmp/kjudge-dashboard-bench.sqlite", problems = "problems";
  int jobs = 100000;
  CLI::App app{"kjudge-bench-dashboard: time every dashboard page with N jobs in the database, and the server's\n"
               "writes with and without pages being read. Exit 1 when a page's median is 100 ms or more."};
  app.add_option("--db", db, "SQLite file to create (deleted first)")->capture_default_str();
  app.add_option("--problems", problems, "problem catalog directory")->capture_default_str();
  app.add_option("--jobs", jobs, "jobs to put in the database")->capture_default_str()->check(CLI::Range(100, 10000000));
  CLI11_PARSE(app, argc, argv);
  return kjudge::Main(db, problems, jobs);
}
