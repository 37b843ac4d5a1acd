// The dashboard end to end: a real kjudge-server (--require-auth) on a real SQLite file, seeded
// with compile-only jobs judged by a real compile-only worker, recorded results of every other
// verdict posted through the worker API by a registered (fake-GPU) worker, a cancelled job, a
// running one and three queued ones; then kjudge-dashboard on the same file, every page opened
// in headless Chromium after signing in through the sign-in form as a person does (DevTools
// protocol over a pipe, tests/integration/chromium.h). The numbers on the pages are
// checked against the database itself (queue depth, a job's median, a leaderboard's order, a
// run's fast_p), a submitter's pages hold none of another tenant's jobs, and screenshots of the
// pages are saved under <build>/test-artifacts/dashboard/.
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <thread>

#include "tests/integration/api_client.h"
#include "tests/integration/chromium.h"
#include "tests/support/binary_path.h"

namespace kjudge::testing {
namespace {

const std::string kProblem = "level1/19_ReLU";

std::string KeyId(const std::string& key) { return key.substr(0, key.find('_', 3)); }

std::string ChromiumPath() { return Chromium::BinaryPath(); }

std::string QueryEncode(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '/') {
      out += static_cast<char>(c);
    } else {
      char hex[4];
      std::snprintf(hex, sizeof(hex), "%%%02X", c);
      out += hex;
    }
  }
  return out;
}

// One value (or one column of rows) from the seeded database, read independently of the
// dashboard's own queries.
std::vector<std::string> Sql(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::vector<std::string> out;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << "cannot open " << db_path;
    sqlite3_close(db);
    return out;
  }
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sqlite3_errmsg(db) << " in " << sql;
  while (stmt != nullptr && sqlite3_step(stmt) == SQLITE_ROW) {
    const unsigned char* text = sqlite3_column_text(stmt, 0);
    out.emplace_back(text ? reinterpret_cast<const char*>(text) : "");
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return out;
}

// Every value of `attribute` in `html`, in order.
std::vector<std::string> Attributes(const std::string& html, const std::string& prefix, const std::string& attribute) {
  std::vector<std::string> out;
  const std::regex re(prefix + "[^>]*" + attribute + "=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), re); it != std::sregex_iterator(); ++it) {
    out.push_back((*it)[1].str());
  }
  return out;
}

// The text of the element with id="ID".
std::string ById(const std::string& html, const std::string& id) {
  std::smatch m;
  if (!std::regex_search(html, m, std::regex("id=\"" + id + "\"[^>]*>([^<]*)<"))) return "<missing " + id + ">";
  return m[1].str();
}

std::string OneDecimal(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f", v);
  return text;
}

// The reference's median at the bench shape, as the fake GPU worker measured it: every recorded
// speedup is kReferenceUs / median (the server computes it so, server/speedup_rule.h).
constexpr double kReferenceUs = 20.0;

v1::JobResult Recorded(v1::Verdict verdict, const std::string& shape, double median_us, double speedup) {
  v1::JobResult r;
  r.set_verdict(verdict);
  r.set_message("recorded " + v1::Verdict_Name(verdict));
  r.set_seed(42);
  r.set_gpu("NVIDIA H100 80GB HBM3");
  r.set_compile_ms(120);
  if (verdict == v1::CORRECT || verdict == v1::SUSPICIOUS) {
    v1::ShapeTiming* t = r.add_timings();
    t->set_shape(shape);
    v1::Timing* timing = t->mutable_timing();
    timing->set_median_us(median_us);
    timing->set_p50_us(median_us);
    timing->set_mean_us(median_us * 1.02);
    timing->set_std_us(median_us * 0.03);
    timing->set_min_us(median_us * 0.97);
    timing->set_p95_us(median_us * 1.08);
    timing->set_p99_us(median_us * 1.12);
    timing->set_max_us(median_us * 1.2);
    timing->set_samples(200);
    // The raw samples, as the judge sends them: 200 around the median, in the order taken.
    for (int i = 0; i < 200; ++i) timing->add_samples_us(static_cast<float>(median_us * (0.97 + 0.0012 * ((i * 37) % 200))));
    timing->set_sol_percent(40.0 * speedup / 4.0);
    v1::Speedup* s = r.add_speedups();
    s->set_shape(shape);
    s->set_baseline("reference");
    s->set_speedup(speedup);
    // As the server records it: level1/19_ReLU has no library baseline, so reference.
    v1::Denominator* d = r.mutable_default_denominator();
    d->set_baseline("reference");
    d->set_kind(v1::BASELINE_KIND_REFERENCE_ONLY);
    d->set_is_default(true);
    d->set_note("vs reference (catalog kernel; no library or PyTorch baseline measured)");
  }
  if (verdict == v1::WRONG_ANSWER) {
    v1::TestOutcome* test = r.add_tests();
    test->set_shape("M=3,N=37");
    test->set_mismatch_count(5);
    test->set_detail("5 elements outside tolerance");
    v1::Mismatch* m = test->add_first_mismatches();
    m->set_tensor("Y");
    m->set_index(17);
    m->set_expected(1.5);
    m->set_actual(-2.25);
  }
  if (verdict == v1::RUNTIME_ERROR) r.set_cuda_error("cudaErrorIllegalAddress: an illegal memory access was encountered");
  return r;
}

class Dashboard : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = ChromiumPath();
    if (chromium_.empty()) GTEST_SKIP() << "SKIPPED: Chromium not installed (apt-get install chromium; deploy/install-deps.sh does)";
    cluster_ = std::make_unique<Cluster>("dashboard");
    alice_key_ = cluster_->CreateKey("submitter");
    bob_key_ = cluster_->CreateKey("submitter");
    admin_key_ = cluster_->CreateKey("admin");
    worker_key_ = cluster_->CreateKey("worker");
    db_ = cluster_->dir() + "/kjudge.sqlite";
    artifacts_ = KJUDGE_TEST_ARTIFACTS;
    std::filesystem::create_directories(artifacts_);
  }
  void TearDown() override {
    if (dashboard_) dashboard_->Signal(SIGTERM);
  }

  // Submits as `client` and, unless queued_only, leases the job with the fake GPU worker and
  // posts `result` (or leaves it running when result is nullopt). With `retried`, the first
  // lease reports a stage and gives the job back, and a second lease posts the result.
  std::string Judge(ApiClient& client, const std::map<std::string, std::string>& tags, bool is_public,
                    const std::optional<v1::JobResult>& result, bool lease = true, bool retried = false) {
    v1::SubmitRequest request = ReluRequest();
    request.set_compile_only(false);
    for (const auto& [k, v] : tags) (*request.mutable_tags())[k] = v;
    request.set_public_(is_public);
    v1::SubmitResponse submitted;
    EXPECT_TRUE(client.Submit(request, &submitted).ok());
    if (!lease) return submitted.job_id();
    grpc::ClientContext lease_context;
    lease_context.AddMetadata("authorization", "Bearer " + worker_key_);
    v1::LeaseJobRequest lease_request;
    lease_request.set_worker_id(worker_id_);
    lease_request.set_wait_ms(5000);
    v1::LeaseJobResponse leased;
    EXPECT_TRUE(workers_->LeaseJob(&lease_context, lease_request, &leased).ok());
    EXPECT_EQ(leased.spec().job_id(), submitted.job_id());
    if (retried) {
      ReportAndRelease(leased);
      grpc::ClientContext again;
      again.AddMetadata("authorization", "Bearer " + worker_key_);
      EXPECT_TRUE(workers_->LeaseJob(&again, lease_request, &leased).ok());
      EXPECT_EQ(leased.spec().job_id(), submitted.job_id());
    }
    if (!result) return submitted.job_id();
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + worker_key_);
    v1::CompleteJobRequest complete;
    complete.set_worker_id(worker_id_);
    complete.set_job_id(leased.spec().job_id());
    complete.set_lease_token(leased.lease_token());
    *complete.mutable_result() = *result;
    for (const v1::ShapeTiming& timing : result->timings()) {  // the reference it was compared with
      v1::BaselineTiming* reference = complete.add_new_baselines();
      reference->set_problem(leased.spec().problem());
      reference->set_shape(timing.shape());
      reference->set_name("reference");
      reference->mutable_timing()->set_median_us(kReferenceUs);
    }
    v1::CompleteJobResponse done;
    EXPECT_TRUE(workers_->CompleteJob(&context, complete, &done).ok());
    EXPECT_TRUE(done.accepted());
    return submitted.job_id();
  }

  // The lease holder reports the checking stage, then gives the job back.
  void ReportAndRelease(const v1::LeaseJobResponse& leased) {
    grpc::ClientContext progress_context;
    progress_context.AddMetadata("authorization", "Bearer " + worker_key_);
    v1::ReportProgressRequest progress;
    progress.set_worker_id(worker_id_);
    progress.set_job_id(leased.spec().job_id());
    progress.set_lease_token(leased.lease_token());
    progress.set_stage(v1::STAGE_CHECKING);
    progress.set_total(4);
    v1::ReportProgressResponse still;
    EXPECT_TRUE(workers_->ReportProgress(&progress_context, progress, &still).ok());
    EXPECT_TRUE(still.still_yours());
    grpc::ClientContext release_context;
    release_context.AddMetadata("authorization", "Bearer " + worker_key_);
    v1::ReleaseJobRequest release;
    release.set_worker_id(worker_id_);
    release.set_job_id(leased.spec().job_id());
    release.set_lease_token(leased.lease_token());
    release.set_reason("test: the worker gives the job back once");
    v1::ReleaseJobResponse released;
    EXPECT_TRUE(workers_->ReleaseJob(&release_context, release, &released).ok());
  }

  void RegisterGpuWorker() {
    workers_ = v1::WorkerService::NewStub(grpc::CreateChannel(cluster_->address(), grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + worker_key_);
    v1::RegisterWorkerRequest request;
    request.set_name("gpu-host-1");
    request.mutable_gpu()->set_name("NVIDIA H100 80GB HBM3");
    request.mutable_gpu()->set_sm_count(132);
    request.mutable_gpu()->set_arch("sm_90a");
    v1::RegisterWorkerResponse response;
    ASSERT_TRUE(workers_->RegisterWorker(&context, request, &response).ok());
    worker_id_ = response.worker_id();
  }

  void StartDashboard() {
    port_ = FreeLoopbackPort();
    dashboard_ = std::make_unique<Subprocess>(
        std::vector<std::string>{ResolveBinary("kjudge-dashboard", "KJUDGE_DASHBOARD_BIN", KJUDGE_DASHBOARD_BIN), "--db", db_,
                                 "--problems", SourcePath("problems"), "--listen", "127.0.0.1:" + std::to_string(port_),
                                 "--require-auth"},
        cluster_->dir() + "/dashboard.log");
    ASSERT_TRUE(cluster_->WaitForLog("dashboard.log", "kjudge-dashboard: http://", 30))
        << ReadFileOrEmpty(cluster_->dir() + "/dashboard.log");
  }

  // Opens `path` in headless Chromium signed in with `key` the way a person does: the sign-in
  // page, the key typed into its form, the button; the dashboard then redirects to `path`.
  // Returns the DOM (after the page's own polling ran, where it polls) and saves a screenshot
  // when `shot` is set. The page's script and style must run under its CSP: no violation.
  std::string Browse(const std::string& key, const std::string& path, const std::string& shot = "") {
    ++browses_;
    Chromium browser(chromium_, cluster_->dir() + "/chrome-" + std::to_string(browses_), cluster_->dir() + "/chrome.log");
    EXPECT_TRUE(browser.ok());
    const std::string origin = "http://127.0.0.1:" + std::to_string(port_);
    EXPECT_TRUE(browser.Navigate(origin + "/login?next=" + QueryEncode(path)));
    EXPECT_TRUE(browser.EvaluateAndWaitForLoad(
        "(function(){var f=document.querySelector('form[action=\"/login\"]');f.querySelector('[name=key]').value=" +
        nlohmann::json(key).dump() + ";f.submit()})()"));
    if (browser.Evaluate("document.body.hasAttribute('data-poll')") == true) {
      // Two polls (every 2 s), as the old --virtual-time-budget=5000 let run.
      EXPECT_TRUE(browser.WaitFor("performance.getEntriesByType('resource').filter(function(e){return "
                                  "e.name.indexOf('/api/')>0}).length>=2",
                                  std::chrono::seconds(8)))
          << "the page's polling script did not run (CSP?)";
    }
    if (!shot.empty()) {
      EXPECT_TRUE(browser.Screenshot(artifacts_ + "/" + shot + ".png"));
    }
    for (const std::string& error : browser.Errors()) {
      EXPECT_EQ(error.find("Content Security Policy"), std::string::npos) << path << ": " << error;
    }
    return browser.Dom();
  }

  // Signs in as `key` as Browse does, opens `path` and returns `expression`'s value there.
  nlohmann::json EvaluateOn(const std::string& key, const std::string& path, const std::string& expression) {
    ++browses_;
    Chromium browser(chromium_, cluster_->dir() + "/chrome-" + std::to_string(browses_), cluster_->dir() + "/chrome.log");
    EXPECT_TRUE(browser.ok());
    EXPECT_TRUE(browser.Navigate("http://127.0.0.1:" + std::to_string(port_) + "/login?next=" + QueryEncode(path)));
    EXPECT_TRUE(browser.EvaluateAndWaitForLoad(
        "(function(){var f=document.querySelector('form[action=\"/login\"]');f.querySelector('[name=key]').value=" +
        nlohmann::json(key).dump() + ";f.submit()})()"));
    return browser.Evaluate(expression);
  }

  std::string chromium_, db_, artifacts_, worker_id_;
  std::string alice_key_, bob_key_, admin_key_, worker_key_;
  std::unique_ptr<Cluster> cluster_;
  std::unique_ptr<v1::WorkerService::Stub> workers_;
  std::unique_ptr<Subprocess> dashboard_;
  int port_ = 0, browses_ = 0;
};

TEST_F(Dashboard, EveryPageShowsTheDatabasesNumbersAndOnlyTheViewersJobs) {
  cluster_->StartServer({"--require-auth", "--lease-seconds", "600"});
  // Compile-only jobs, judged for real by a compile-only worker: COMPILED and COMPILE_ERROR.
  const std::string worker_key_file = cluster_->dir() + "/worker.key";
  std::ofstream(worker_key_file) << worker_key_;
  cluster_->StartWorker({"--api-key-file", worker_key_file});
  for (const char* file : {"problems/level1/19_ReLU/solution.cu", "tests/gpu/cases/compile_error.cu"}) {
    CliResult r = cluster_->Cli({"--api-key", alice_key_, "submit", SourcePath(file), "--problem", kProblem,
                                 "--compile-only", "--tag", "model=m-compile", "--wait"});
    ASSERT_EQ(r.json.value("state", ""), "DONE") << r.out << r.err << cluster_->Logs();
  }
  cluster_->StopWorker(SIGTERM);

  // Recorded results of every other verdict, through the worker API of a registered worker.
  RegisterGpuWorker();
  ApiClient alice(*cluster_, alice_key_), bob(*cluster_, bob_key_);
  const std::string shape = "M=4096,N=393216";
  const std::map<std::string, std::string> a = {{"model", "m-a"}}, b = {{"model", "m-b"}};
  Judge(alice, a, true, Recorded(v1::CORRECT, shape, 10.0, 2.0));
  const std::string alice_best = Judge(alice, a, true, Recorded(v1::CORRECT, shape, 8.0, 2.5));
  const std::string bob_public = Judge(bob, b, true, Recorded(v1::CORRECT, shape, 5.0, 4.0));
  const std::string bob_private = Judge(bob, b, false, Recorded(v1::CORRECT, shape, 2.5, 8.0));  // bob's fastest, private
  const std::string wrong = Judge(alice, a, true, Recorded(v1::WRONG_ANSWER, shape, 0, 0), true, /*retried=*/true);
  for (v1::Verdict v : {v1::RUNTIME_ERROR, v1::TIMEOUT, v1::LAUNCH_ERROR, v1::UNWRITTEN_OUTPUT, v1::INPUT_MODIFIED,
                        v1::SUSPICIOUS, v1::INTERNAL_ERROR}) {
    Judge(alice, a, false, Recorded(v, shape, 0.4, 50.0));
  }
  v1::SubmitResponse rejected;  // judged at submission: a REJECTED job
  ASSERT_TRUE(bob.Submit(RejectedRequest(), &rejected).ok());
  const std::string cancelled = Judge(alice, a, false, std::nullopt, /*lease=*/false);
  v1::Job job;
  ASSERT_TRUE(alice.CancelJob(cancelled, &job).ok());
  const std::string running = Judge(bob, b, false, std::nullopt);  // leased, never completed
  for (ApiClient* client : {&alice, &alice, &bob}) Judge(*client, a, false, std::nullopt, /*lease=*/false);

  StartDashboard();
  const std::string alice_id = KeyId(alice_key_), bob_id = KeyId(bob_key_);

  // Overview: queue depth and running as the database has them; both kinds of worker.
  const std::string overview = Browse(admin_key_, "/", "overview");
  EXPECT_EQ(ById(overview, "queue-depth"), Sql(db_, "SELECT COUNT(*) FROM jobs WHERE state = 1").at(0));
  EXPECT_EQ(ById(overview, "queue-depth"), "3");
  EXPECT_EQ(ById(overview, "running"), Sql(db_, "SELECT COUNT(*) FROM jobs WHERE state = 2").at(0));
  EXPECT_NE(overview.find("NVIDIA H100 80GB HBM3"), std::string::npos);
  EXPECT_NE(overview.find(worker_id_), std::string::npos) << "admins see worker ids";
  EXPECT_NE(overview.find("Compile-only workers"), std::string::npos);
  EXPECT_NE(overview.find("data-poll=\"/api/overview\""), std::string::npos) << "the overview updates itself";
  // Every job finished within the last ten minutes: the rate over them is done / 10, also
  // after the page has polled (Chromium's virtual time runs the 2 s poll).
  const double done = std::stod(Sql(db_, "SELECT COUNT(*) FROM jobs WHERE state = 3").at(0));
  EXPECT_EQ(ById(overview, "jobs-per-minute"), OneDecimal(done / 10.0));
  // The verdict mix: each verdict's jobs as the database counts them, all in the newest hour's
  // bar (they finished minutes ago), and no other bar.
  const std::vector<std::string> mix = Sql(db_, "SELECT verdict || ' ' || COUNT(*) FROM jobs WHERE state = 3 GROUP BY verdict");
  ASSERT_GE(mix.size(), 10U);
  for (const std::string& row : mix) {
    const std::string name = v1::Verdict_Name(static_cast<v1::Verdict>(std::stoi(row.substr(0, row.find(' ')))));
    EXPECT_NE(overview.find("<title>-1 h " + name + ": " + row.substr(row.find(' ') + 1) + "</title>"), std::string::npos)
        << name;
  }
  EXPECT_EQ(overview.find("<title>-2 h "), std::string::npos) << "nothing finished an hour ago";
  // The fake GPU worker's row: jobs served and faults (INTERNAL_ERROR) as the database has them.
  const size_t row_start = overview.find("<td>" + worker_id_ + "</td>");
  ASSERT_NE(row_start, std::string::npos);
  const std::string row_html = overview.substr(row_start, overview.find("</tr>", row_start) - row_start);
  std::vector<std::string> numbers;
  const std::regex number("<td class=\"n\">([^<]*)</td>");
  for (auto it = std::sregex_iterator(row_html.begin(), row_html.end(), number); it != std::sregex_iterator(); ++it) {
    numbers.push_back((*it)[1].str());
  }
  ASSERT_EQ(numbers.size(), 4U) << row_html;  // last heartbeat, jobs served, faults, restarts
  const std::string by_worker = " FROM jobs WHERE worker_id = '" + worker_id_ + "' AND state = 3";
  EXPECT_EQ(numbers[1], Sql(db_, "SELECT COUNT(*)" + by_worker).at(0));
  EXPECT_EQ(numbers[2], Sql(db_, "SELECT COUNT(*)" + by_worker + " AND verdict = 12").at(0));
  EXPECT_EQ(numbers[2], "1");

  // Jobs: the admin sees every job; a filter by verdict shows only that verdict.
  const std::string all_jobs = Browse(admin_key_, "/jobs", "jobs");
  std::vector<std::string> ids = Attributes(all_jobs, "<tr class=\"job-row\"", "data-job");
  EXPECT_EQ(ids, Sql(db_, "SELECT id FROM jobs ORDER BY id DESC"));
  const std::string wrong_only = Browse(admin_key_, "/jobs?verdict=WRONG_ANSWER");
  EXPECT_EQ(Attributes(wrong_only, "<tr class=\"job-row\"", "data-job"), std::vector<std::string>{wrong});

  // A job page: the median shown is the stored one; the default baseline is marked.
  const std::string page = Browse(admin_key_, "/jobs/" + alice_best, "job-correct");
  const std::vector<std::string> medians = Attributes(page, "<tr class=\"timing\"", "data-median-us");
  ASSERT_EQ(medians.size(), 1U) << page;
  EXPECT_DOUBLE_EQ(std::stod(medians[0]),
                   std::stod(Sql(db_, "SELECT json_extract(result_json, '$.timings[0].timing.median_us') FROM jobs WHERE id = " +
                                          alice_best).at(0)));
  EXPECT_NE(page.find("reference (default)"), std::string::npos);
  EXPECT_NE(ById(page, "default-speedup").find("vs reference (catalog kernel"), std::string::npos) << page;
  EXPECT_NE(page.find("<svg"), std::string::npos);
  // The raw samples: stored apart from the result (job_samples, 200 float32), plotted with the
  // stored median marked; the stored result carries none.
  EXPECT_EQ(Attributes(page, "<svg class=\"samples\"", "data-count"), (std::vector<std::string>{"200"}));
  EXPECT_EQ(Attributes(page, "<svg class=\"samples\"", "data-median-us"), (std::vector<std::string>{"8"}));
  EXPECT_EQ(Sql(db_, "SELECT length(samples) FROM job_samples WHERE job_id = " + alice_best),
            (std::vector<std::string>{"800"}));
  EXPECT_EQ(Sql(db_, "SELECT COALESCE(json_array_length(result_json, '$.timings[0].timing.samples_us'), 0) FROM jobs "
                     "WHERE id = " + alice_best),
            (std::vector<std::string>{"0"}));
  const std::string wrong_page = Browse(admin_key_, "/jobs/" + wrong, "job-wrong-answer");
  EXPECT_NE(wrong_page.find("expected 1.5"), std::string::npos);
  EXPECT_NE(wrong_page.find("got -2.25"), std::string::npos);
  // Its whole timeline, row for row as job_events has it: queued, leased, a stage, requeued
  // (released), leased again, finished.
  const std::string events_of_wrong = " FROM job_events WHERE job_id = " + wrong + " ORDER BY id";
  EXPECT_EQ(Attributes(wrong_page, "<tr class=\"event\"", "data-event"), Sql(db_, "SELECT event" + events_of_wrong));
  EXPECT_EQ(Attributes(wrong_page, "<tr class=\"event\"", "data-event"),
            (std::vector<std::string>{"queued", "leased", "stage", "requeued", "leased", "finished"}));
  EXPECT_EQ(Attributes(wrong_page, "<tr class=\"event\"", "data-at"), Sql(db_, "SELECT at_unix_ms" + events_of_wrong));
  EXPECT_EQ(Attributes(wrong_page, "<tr class=\"event\"", "data-attempt"), Sql(db_, "SELECT attempt" + events_of_wrong));
  EXPECT_NE(wrong_page.find("test: the worker gives the job back once"), std::string::npos);
  EXPECT_NE(wrong_page.find("stage STAGE_CHECKING"), std::string::npos);
  const std::string compile_error_id = Sql(db_, "SELECT id FROM jobs WHERE verdict = 3").at(0);
  EXPECT_NE(Browse(admin_key_, "/jobs/" + compile_error_id, "job-compile-error").find("id=\"compile-log\""), std::string::npos);

  // Leaderboard: best CORRECT time per owner, fastest first, as the database orders them.
  const std::string best_per_owner =
      "SELECT id FROM (SELECT id, api_key_id, MIN(json_extract(result_json, '$.timings[0].timing.median_us')) AS t "
      "FROM jobs WHERE problem = '" + kProblem + "' AND verdict = 1 AND compile_only = 0 %s GROUP BY api_key_id) ORDER BY t";
  auto expected_board = [&](const std::string& scope) {
    char sql[1024];
    std::snprintf(sql, sizeof(sql), best_per_owner.c_str(), scope.c_str());
    return Sql(db_, sql);
  };
  const std::string admin_board = Browse(admin_key_, "/problems/" + kProblem, "problem");
  EXPECT_EQ(Attributes(admin_board, "<tr class=\"lb-row\"", "data-job"), expected_board(""));
  EXPECT_EQ(Attributes(admin_board, "<tr class=\"lb-row\"", "data-job"), (std::vector<std::string>{bob_private, alice_best}));
  const std::string alice_board = Browse(alice_key_, "/problems/" + kProblem);
  EXPECT_EQ(Attributes(alice_board, "<tr class=\"lb-row\"", "data-job"),
            expected_board("AND (public = 1 OR api_key_id = '" + alice_id + "')"));
  EXPECT_EQ(Attributes(alice_board, "<tr class=\"lb-row\"", "data-job"), (std::vector<std::string>{bob_public, alice_best}));

  // Runs: fast_1.0 of model=m-a is the database's fraction.
  const std::string runs = Browse(admin_key_, "/runs?a=model%3Dm-a&b=model%3Dm-b", "runs");
  const std::string counted = "FROM jobs WHERE state = 3 AND compile_only = 0 AND verdict != 13 AND "
                              "json_extract(tags_json, '$.model') = 'm-a'";
  const double fast = std::stod(Sql(db_, "SELECT COUNT(*) " + counted +
                                             " AND verdict = 1 AND json_extract(result_json, '$.speedups[0].speedup') > 1.0").at(0)) /
                      std::stod(Sql(db_, "SELECT COUNT(*) " + counted).at(0));
  const std::vector<std::string> fast_1 = Attributes(runs, "id=\"fastp-a-1.00\"", "data-value");
  ASSERT_EQ(fast_1.size(), 1U) << runs;
  EXPECT_NEAR(std::stod(fast_1[0]), fast, 1e-6);
  EXPECT_GT(fast, 0.0);
  EXPECT_NE(runs.find("<polyline"), std::string::npos) << "the fast_p curve";
  // No baseline asked for: each problem's default denominator, named as `kjudge stats` does.
  EXPECT_EQ(Attributes(runs, "<tr class=\"run-problem\" data-problem=\"" + kProblem + "\"", "data-baseline"),
            (std::vector<std::string>{"reference", "reference"}));
  EXPECT_EQ(Attributes(Browse(admin_key_, "/runs?a=model%3Dm-a&baseline=reference"), "id=\"fastp-a-1.00\"", "data-value"),
            fast_1);
  const std::string typed = Browse(admin_key_, "/runs?a=model=m-a");  // '=' left unescaped, as typed
  EXPECT_EQ(Attributes(typed, "id=\"fastp-a-1.00\"", "data-value"), fast_1);
  // A compile-only run: its compile rate (1 of 2 compiled), and n/a, not zeros, for everything a
  // GPU measures: no fast_p line at 0 (issue 27 point 8).
  const std::string compile_run = Browse(admin_key_, "/runs?a=model%3Dm-compile");
  EXPECT_NE(compile_run.find("id=\"compile-rate-a\">50.0%<"), std::string::npos) << compile_run;
  EXPECT_NE(compile_run.find("id=\"jobs-a\">0 judged + 2 compile-only<"), std::string::npos) << compile_run;
  EXPECT_NE(compile_run.find("id=\"curve-na\""), std::string::npos) << compile_run;
  EXPECT_EQ(compile_run.find("<polyline"), std::string::npos) << "no fast_p curve for a compile-only run";
  EXPECT_NE(compile_run.find("id=\"correct-rate-a\">n/a<"), std::string::npos) << compile_run;
  // A problem set (?set=level1/): every level-1 problem counts; those without a judged job are failures.
  const std::string with_set = Browse(admin_key_, "/runs?a=model%3Dm-a&set=level1%2F");
  EXPECT_NE(with_set.find("id=\"pp-unsubmitted-a\""), std::string::npos) << with_set;
  EXPECT_NE(with_set.find("with no judged job: failures)"), std::string::npos) << with_set;
  Browse(admin_key_, "/problems", "problems");

  // Issue 27 pt9. A REJECTED job's page shows what was submitted (its source: the plan was missing).
  const std::string rejected_page = Browse(bob_key_, "/jobs/" + rejected.job_id(), "job-rejected");
  const size_t source_at = rejected_page.find("<pre id=\"source\">");
  ASSERT_NE(source_at, std::string::npos) << rejected_page;
  const std::string source_html = rejected_page.substr(source_at, rejected_page.find("</pre>", source_at) - source_at);
  EXPECT_EQ(std::regex_replace(source_html, std::regex("<[^>]*>"), ""), RejectedRequest().source()) << source_html;
  EXPECT_NE(rejected_page.find("<th>compile</th><td>n/a</td>"), std::string::npos) << "never compiled: n/a, not 0 ms";
  // A long description wraps at the page's edge (level1/42's has a 174-character line).
  EXPECT_EQ(EvaluateOn(admin_key_, "/problems/level1/42_Max_Pooling_2D",
                       "(function(){var e=document.getElementById('description');"
                       "return e.textContent.length>0&&e.scrollWidth<=e.clientWidth})()"),
            true);
  // Empty states say so: a problem nobody solved, a filter that matches nothing.
  EXPECT_NE(Browse(admin_key_, "/problems/level1/42_Max_Pooling_2D").find("id=\"leaderboard-empty\">none yet"),
            std::string::npos);
  EXPECT_NE(Browse(admin_key_, "/jobs?verdict=TIMEOUT&tag=model%3Dnobody").find("id=\"jobs-empty\">none yet"),
            std::string::npos);

  // Tenancy: alice's pages hold exactly her jobs; bob's job reads like a missing one.
  const std::string alice_jobs = Browse(alice_key_, "/jobs", "jobs-as-submitter");
  const std::vector<std::string> alice_seen = Attributes(alice_jobs, "<tr class=\"job-row\"", "data-job");
  EXPECT_EQ(alice_seen, Sql(db_, "SELECT id FROM jobs WHERE api_key_id = '" + alice_id + "' ORDER BY id DESC"));
  const std::vector<std::string> bobs = Sql(db_, "SELECT id FROM jobs WHERE api_key_id = '" + bob_id + "'");
  for (const std::string& id : bobs) {
    EXPECT_EQ(std::count(alice_seen.begin(), alice_seen.end(), id), 0) << "bob's job " << id << " on alice's page";
  }
  const std::string stolen = Browse(alice_key_, "/jobs/" + running);
  EXPECT_NE(stolen.find("no job " + running), std::string::npos);
  EXPECT_EQ(stolen.find("gpu-host-1"), std::string::npos);
  const std::string alice_overview = Browse(alice_key_, "/");
  EXPECT_EQ(alice_overview.find(worker_id_), std::string::npos) << "submitters never see worker ids";
  EXPECT_EQ(ById(alice_overview, "queue-depth"), "2") << "her own queued jobs; bob's third is not hers to count";

  // Live: the polled document carries the same queue depth; a worker key cannot sign in.
  EXPECT_NE(Browse(admin_key_, "/api/overview").find("\"queue-depth\":3"), std::string::npos);
  EXPECT_NE(Browse(worker_key_, "/").find("worker keys cannot read the dashboard"), std::string::npos);
  EXPECT_NE(Browse("kj_nothing_real", "/").find("unknown or revoked"), std::string::npos);
}

}  // namespace
}  // namespace kjudge::testing
