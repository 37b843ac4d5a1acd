// JobStore's client-side queries on a real SQLite file: tenancy, idempotency, the active-job
// cap in the insert transaction, listing and cancelling, and what stats read (job_stats).
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <thread>

#include "server/job_store.h"
#include "proto/proto_json.h"
#include "server/migrations.h"

namespace kjudge::server {
namespace {

class JobStoreClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("kjudge-jobstore-client-" + std::to_string(getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".sqlite"))
                .string();
    Remove();
    shared_ = std::make_unique<SharedDatabase>();
    absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(path_);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE(ApplyMigrations(**db, BuiltinMigrations()).ok());
    shared_->db = std::move(*db);
    shared_->now_ms = [] { return int64_t{1'000'000}; };
    store_ = std::make_unique<JobStore>(shared_.get(), JobStoreOptions{2, 1000});
  }
  void TearDown() override {
    store_.reset();
    shared_.reset();
    Remove();
  }
  void Remove() {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + suffix);
  }
  static NewJob Job(const std::string& key, const std::string& idempotency_key = "", const std::string& sha = "r1") {
    NewJob job;
    job.problem = "level1/19_ReLU";
    job.source = "__global__ void k(){}";
    job.launch_plan = "k<<<1,1>>>(X);";
    job.seed = 42;
    job.api_key_id = key;
    job.idempotency_key = idempotency_key;
    job.request_sha256 = sha;
    return job;
  }

  std::string path_;
  std::unique_ptr<SharedDatabase> shared_;
  std::unique_ptr<JobStore> store_;
};

TEST_F(JobStoreClientTest, ATenantSeesOnlyItsOwnJobsAndNoWorkerIds) {
  const int64_t mine = *store_->Enqueue(Job("kj_a"));
  const int64_t theirs = *store_->Enqueue(Job("kj_b"));
  ASSERT_TRUE(store_->LeaseNext("worker-1", true).ok());
  const Viewer alice{"kj_a", false};
  absl::StatusOr<std::optional<v1::Job>> own = store_->GetFor(mine, alice);
  ASSERT_TRUE(own.ok() && own->has_value());
  EXPECT_EQ((*own)->worker(), "");
  absl::StatusOr<std::optional<v1::Job>> other = store_->GetFor(theirs, alice);
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(other->has_value());
  absl::StatusOr<std::optional<v1::Job>> admin = store_->GetFor(mine, Viewer{"kj_root", true});
  ASSERT_TRUE(admin.ok() && admin->has_value());
  EXPECT_EQ((*admin)->worker(), "worker-1");
  EXPECT_EQ(store_->List(alice, JobFilter{})->size(), 1U);
  EXPECT_EQ(store_->List(Viewer{"kj_root", true}, JobFilter{})->size(), 2U);
  EXPECT_TRUE(absl::IsNotFound(store_->Cancel(theirs, alice).status()));
}

// The dashboard's /jobs?tag= injection (issue 25): a tag key was pasted into a json_extract
// path. Keys and values are now bound, so these are just keys no job has.
TEST_F(JobStoreClientTest, TagFiltersAreParametersNotSql) {
  NewJob own = Job("kj_a");
  own.tags["run"] = "r1";
  const int64_t mine = *store_->Enqueue(own);
  NewJob other = Job("kj_b");
  other.tags["run"] = "r1";
  ASSERT_TRUE(store_->Enqueue(other).ok());
  const Viewer alice{"kj_a", false};
  const std::vector<std::string> hostile = {
      "x\"') OR 1=1 --",
      "x\"') = '' UNION SELECT id, name, role, 0, 0, 0, 0, 0, sha256, '', NULL, 0, 0, 0, 0, '', 0 FROM api_keys --",
      "run\"') OR api_key_id != '' --",
      "'", "\"", ")", "--", ";", "*/", "/*", "$.run", "run' OR '1'='1", "\xE2\x80\xAE\xF0\x9F\x98\x80", ""};
  for (const std::string& text : hostile) {
    JobFilter by_key;
    by_key.tags[text] = "r1";
    absl::StatusOr<std::vector<v1::Job>> jobs = store_->List(alice, by_key);
    ASSERT_TRUE(jobs.ok()) << text << ": " << jobs.status();
    EXPECT_TRUE(jobs->empty()) << "key " << text;
    JobFilter by_value;
    by_value.tags["run"] = text;
    jobs = store_->List(alice, by_value);
    ASSERT_TRUE(jobs.ok()) << text << ": " << jobs.status();
    EXPECT_TRUE(jobs->empty()) << "value " << text;
    JobFilter by_problem;
    by_problem.problem = text;
    jobs = store_->List(alice, by_problem);
    ASSERT_TRUE(jobs.ok()) << text << ": " << jobs.status();
    EXPECT_EQ(jobs->size(), text.empty() ? 1U : 0U) << "problem " << text << " (\"\" is no filter: the caller's own job)";
    absl::StatusOr<std::vector<JudgedResult>> stats = store_->FinishedResults({{text, text}}, text, StatsScope{alice, false});
    ASSERT_TRUE(stats.ok()) << text << ": " << stats.status();
    EXPECT_TRUE(stats->empty());
  }
  // The real tag still finds only the caller's job, alone or with a hostile one beside it.
  JobFilter run;
  run.tags["run"] = "r1";
  absl::StatusOr<std::vector<v1::Job>> jobs = store_->List(alice, run);
  ASSERT_TRUE(jobs.ok() && jobs->size() == 1U);
  EXPECT_EQ((*jobs)[0].id(), std::to_string(mine));
  run.tags["x\"') OR 1=1 --"] = "";
  EXPECT_TRUE(store_->List(alice, run)->empty());
  // A value holding SQL metacharacters is matched exactly, as data.
  NewJob odd = Job("kj_a");
  odd.tags["note"] = "a'); DROP TABLE jobs; --\"*/";
  const int64_t odd_id = *store_->Enqueue(odd);
  JobFilter exact;
  exact.tags["note"] = "a'); DROP TABLE jobs; --\"*/";
  jobs = store_->List(alice, exact);
  ASSERT_TRUE(jobs.ok() && jobs->size() == 1U);
  EXPECT_EQ((*jobs)[0].id(), std::to_string(odd_id));
}

TEST_F(JobStoreClientTest, MoreThanSixteenTagsIsInvalidArgument) {
  JobFilter many;
  std::map<std::string, std::string> tags;
  for (int i = 0; i < 17; ++i) tags["t" + std::to_string(i)] = "v";
  many.tags = tags;
  absl::StatusOr<std::vector<v1::Job>> jobs = store_->List(Viewer{"kj_a", false}, many);
  EXPECT_TRUE(absl::IsInvalidArgument(jobs.status())) << jobs.status();
  EXPECT_NE(jobs.status().message().find("16"), std::string_view::npos) << jobs.status();
  absl::StatusOr<std::vector<JudgedResult>> stats = store_->FinishedResults(tags, "", StatsScope{Viewer{"kj_a", false}});
  EXPECT_TRUE(absl::IsInvalidArgument(stats.status())) << stats.status();
  tags.erase("t0");
  many.tags = tags;
  EXPECT_TRUE(store_->List(Viewer{"kj_a", false}, many).ok()) << "16 tags is the limit, not over it";
}

TEST_F(JobStoreClientTest, IdempotencyKeyReturnsTheFirstJobPerApiKey) {
  const int64_t first = *store_->Enqueue(Job("kj_a", "k1"));
  EXPECT_EQ(*store_->Enqueue(Job("kj_a", "k1")), first);
  EXPECT_NE(*store_->Enqueue(Job("kj_b", "k1")), first) << "keys are per tenant";
  absl::StatusOr<int64_t> reused = store_->Enqueue(Job("kj_a", "k1", "r2"));
  EXPECT_TRUE(absl::IsAlreadyExists(reused.status())) << reused.status();
}

TEST_F(JobStoreClientTest, TheActiveCapHoldsUnderConcurrentEnqueues) {
  std::vector<std::thread> threads;
  threads.reserve(20);
  std::atomic<int> stored{0};
  for (int i = 0; i < 20; ++i) {
    threads.emplace_back([&] {
      NewJob job = Job("kj_a");
      job.active_cap = 5;
      if (store_->Enqueue(job).ok()) ++stored;
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(stored.load(), 5);
  EXPECT_EQ(*store_->CountActiveForKey("kj_a"), 5);
}

TEST_F(JobStoreClientTest, CancelEndsQueuedAndRunningJobsAndTheLeaseWithThem) {
  const Viewer alice{"kj_a", false};
  const int64_t queued = *store_->Enqueue(Job("kj_a"));
  const int64_t running = *store_->Enqueue(Job("kj_a"));
  absl::StatusOr<std::optional<LeasedJob>> leased = store_->LeaseNext("worker-1", true);  // `queued`, the oldest
  ASSERT_TRUE(leased.ok() && leased->has_value());
  ASSERT_EQ((*leased)->id, queued);
  absl::StatusOr<v1::Job> cancelled = store_->Cancel(queued, alice);
  ASSERT_TRUE(cancelled.ok()) << cancelled.status();
  EXPECT_EQ(cancelled->result().verdict(), v1::CANCELLED);
  EXPECT_FALSE(*store_->Renew(LeaseRef{queued, "worker-1", (*leased)->lease_token}))
      << "the worker loses the lease of a cancelled job";
  ASSERT_TRUE(store_->Cancel(running, alice).ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(store_->Cancel(running, alice).status()));
  JobFilter done;
  done.state = v1::DONE;
  EXPECT_EQ(store_->List(alice, done)->size(), 2U);
  EXPECT_TRUE(store_->FinishedResults({}, "", StatsScope{alice, false})->empty())
      << "cancelled jobs were never judged: stats do not count them";
}

TEST_F(JobStoreClientTest, ListFiltersByTagAndPagesNewestFirst) {
  const Viewer alice{"kj_a", false};
  for (int i = 0; i < 5; ++i) {
    NewJob job = Job("kj_a");
    job.tags["run"] = i % 2 == 0 ? "even" : "odd";
    ASSERT_TRUE(store_->Enqueue(job).ok());
  }
  JobFilter even;
  even.tags["run"] = "even";
  absl::StatusOr<std::vector<v1::Job>> jobs = store_->List(alice, even);
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->size(), 3U);
  EXPECT_EQ((*jobs)[0].id(), "5");
  JobFilter page;
  page.limit = 2;
  page.before_id = 4;
  jobs = store_->List(alice, page);
  ASSERT_EQ(jobs->size(), 2U);
  EXPECT_EQ((*jobs)[0].id(), "3");
  EXPECT_EQ((*jobs)[1].id(), "2");
}

}  // namespace
}  // namespace kjudge::server

namespace kjudge::server {
namespace {

// Stats read tags through job_tags (filled by a trigger): any key works, even one that would
// break a JSON path. Only what ComputeStats reads comes back (verdict, problem, GPU, speedups,
// the timed shapes' medians), and stats over it equal stats over the stored results.
TEST_F(JobStoreClientTest, FinishedResultsMatchTagsExactlyAndKeepOnlyWhatStatsRead) {
  const Viewer admin{"", true};
  const std::vector<std::pair<std::string, v1::Verdict>> jobs = {
      {"m1", v1::CORRECT}, {"m1", v1::SUSPICIOUS}, {"m1", v1::WRONG_ANSWER}, {"m2", v1::CORRECT}, {"m1\"'.x", v1::CORRECT}};
  std::vector<JudgedResult> stored_m1;
  double candidate_us = 10.0;
  for (const auto& [model, verdict] : jobs) {
    NewJob job = Job("kj_a");
    job.tags["model"] = model;
    job.tags["odd key \"$"] = "v";
    ASSERT_TRUE(store_->Enqueue(job).ok());
    absl::StatusOr<std::optional<LeasedJob>> leased = store_->LeaseNext("worker-1", true);
    ASSERT_TRUE(leased.ok() && leased->has_value());
    v1::JobResult result;
    result.set_verdict(verdict);
    result.set_gpu("NVIDIA H100 80GB HBM3");
    result.set_message("stored, but not needed by stats");
    if (verdict != v1::WRONG_ANSWER) {  // timed: a SUSPICIOUS job's baseline times count too
      for (const char* shape : {"N=1", "N=2"}) {
        v1::ShapeTiming* timing = result.add_timings();
        timing->set_shape(shape);
        timing->mutable_timing()->set_median_us(candidate_us);
        timing->mutable_timing()->set_p95_us(candidate_us * 2);
        for (const auto& [baseline, us] : {std::pair{"reference", 25.0}, std::pair{"torch_eager", 15.0}}) {
          v1::Speedup* speedup = result.add_speedups();
          speedup->set_shape(shape);
          speedup->set_baseline(baseline);
          speedup->set_speedup(us / candidate_us);
        }
      }
      candidate_us += 5.0;
    }
    ASSERT_TRUE(store_->Complete(LeaseRef{(*leased)->id, "worker-1", (*leased)->lease_token}, result).ok());
    if (model == "m1") stored_m1.push_back(JudgedResult{job.problem, result});
  }
  absl::StatusOr<std::vector<JudgedResult>> m1 = store_->FinishedResults({{"model", "m1"}}, "", StatsScope{admin, false});
  ASSERT_TRUE(m1.ok()) << m1.status();
  ASSERT_EQ(m1->size(), 3U);
  const v1::JobResult& first = (*m1)[0].result;
  EXPECT_EQ((*m1)[0].problem, stored_m1[0].problem);
  EXPECT_EQ(first.verdict(), v1::CORRECT);
  EXPECT_EQ(first.gpu(), "NVIDIA H100 80GB HBM3");
  ASSERT_EQ(first.speedups_size(), 4);
  EXPECT_EQ(first.speedups(1).baseline(), "torch_eager");
  EXPECT_DOUBLE_EQ(first.speedups(1).speedup(), 1.5);
  ASSERT_EQ(first.timings_size(), 2);
  EXPECT_EQ(first.timings(1).shape(), "N=2");
  EXPECT_DOUBLE_EQ(first.timings(1).timing().median_us(), 10.0);
  EXPECT_EQ(first.timings(1).timing().p95_us(), 0.0) << "no Timing field beyond the median";
  EXPECT_TRUE(first.message().empty()) << "stats read no message";
  EXPECT_EQ((*m1)[1].result.verdict(), v1::SUSPICIOUS);
  EXPECT_EQ((*m1)[1].result.timings_size(), 2);
  EXPECT_EQ((*m1)[2].result.verdict(), v1::WRONG_ANSWER);
  EXPECT_EQ((*m1)[2].result.speedups_size(), 0);
  EXPECT_EQ((*m1)[2].result.gpu(), "NVIDIA H100 80GB HBM3");
  for (const char* baseline : {"", "reference", "torch_eager"}) {
    const v1::Stats lean = ComputeStats(*m1, baseline, {});
    const v1::Stats full = ComputeStats(stored_m1, baseline, {});
    google::protobuf::util::MessageDifferencer same;  // SQLite's and protobuf's double parsing may differ by an ulp
    same.set_float_comparison(google::protobuf::util::MessageDifferencer::APPROXIMATE);
    EXPECT_TRUE(same.Compare(lean, full))
        << "baseline '" << baseline << "'\nlean: " << lean.ShortDebugString() << "\nfull: " << full.ShortDebugString();
  }
  EXPECT_EQ(store_->FinishedResults({{"model", "m1\"'.x"}}, "", StatsScope{admin, false})->size(), 1U);
  EXPECT_EQ(store_->FinishedResults({{"odd key \"$", "v"}, {"model", "m2"}}, "", StatsScope{admin, false})->size(), 1U);
  EXPECT_EQ(store_->FinishedResults({{"model", "m1"}}, "", StatsScope{Viewer{"kj_b", false}, false})->size(), 0U);
}

// A database written before schema 0007 (results only in result_json) gets its job_metrics rows
// from the migration's backfill, and stats over it equal stats over the stored results.
TEST(JobMetricsMigration, BackfillsResultsStoredBeforeIt) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("kjudge-job-metrics-" + std::to_string(getpid()) + ".sqlite")).string();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(path);
  ASSERT_TRUE(db.ok()) << db.status();
  std::vector<Migration> before;
  for (const Migration& m : BuiltinMigrations()) {
    if (m.version < 7) before.push_back(m);
  }
  ASSERT_TRUE(ApplyMigrations(**db, before).ok());
  v1::JobResult result;
  result.set_verdict(v1::CORRECT);
  result.set_gpu("NVIDIA H200");
  v1::ShapeTiming* timing = result.add_timings();
  timing->set_shape("N=8");
  timing->mutable_timing()->set_median_us(4.0);
  v1::Speedup* speedup = result.add_speedups();
  speedup->set_shape("N=8");
  speedup->set_baseline("cublas");
  speedup->set_speedup(2.5);
  ASSERT_TRUE((*db)->Execute("INSERT INTO sources VALUES('s', 'x', 0)").ok());
  absl::StatusOr<Statement> insert = (*db)->Prepare(
      "INSERT INTO jobs(problem, source_sha256, launch_plan, seed, state, stage, max_attempts, verdict, result_json, "
      "created_unix_ms) VALUES('p', 's', '', 1, 3, 6, 3, 1, ?, 0)");
  ASSERT_TRUE(insert.ok()) << insert.status();
  insert->Bind(1, ToJson(result));
  ASSERT_TRUE(insert->Run().ok());
  ASSERT_TRUE(ApplyMigrations(**db, BuiltinMigrations()).ok());
  SharedDatabase shared;
  shared.db = std::move(*db);
  shared.now_ms = [] { return int64_t{1}; };
  JobStore store(&shared, JobStoreOptions{});
  absl::StatusOr<std::vector<JudgedResult>> got = store.FinishedResults({}, "", StatsScope{Viewer{"", true}, false});
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), 1U);
  const v1::JobResult& read = (*got)[0].result;
  EXPECT_EQ(read.gpu(), "NVIDIA H200");
  ASSERT_EQ(read.timings_size(), 1);
  EXPECT_DOUBLE_EQ(read.timings(0).timing().median_us(), 4.0);
  ASSERT_EQ(read.speedups_size(), 1);
  EXPECT_EQ(read.speedups(0).baseline(), "cublas");
  EXPECT_DOUBLE_EQ(read.speedups(0).speedup(), 2.5);
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
}

// FinishedResults reads job_stats (schema 0009), one row per finished job kept by triggers: it
// must follow every change of the jobs row, whoever makes it (JobStore or plain SQL), and hold
// exactly the values of the job's job_metrics rows.
TEST_F(JobStoreClientTest, FinishedResultsFollowEveryChangeOfTheJobRow) {
  const Viewer admin{"", true};
  auto finished = [&](const StatsScope& scope) {
    absl::StatusOr<std::vector<JudgedResult>> got = store_->FinishedResults({}, "", scope);
    EXPECT_TRUE(got.ok()) << got.status();
    return got.ok() ? *got : std::vector<JudgedResult>{};
  };
  const int64_t id = *store_->Enqueue(Job("kj_a"));
  EXPECT_TRUE(finished({admin, false}).empty()) << "queued";
  absl::StatusOr<std::optional<LeasedJob>> leased = store_->LeaseNext("worker-1", true);
  ASSERT_TRUE(leased.ok() && leased->has_value());
  EXPECT_TRUE(finished({admin, false}).empty()) << "running";
  v1::JobResult result;
  result.set_verdict(v1::CORRECT);
  result.set_gpu("NVIDIA H100 80GB HBM3");
  v1::ShapeTiming* timing = result.add_timings();
  timing->set_shape("N=1");
  timing->mutable_timing()->set_median_us(4.0);
  ASSERT_TRUE(store_->Complete(LeaseRef{id, "worker-1", (*leased)->lease_token}, result).ok());
  std::vector<JudgedResult> got = finished({admin, false});
  ASSERT_EQ(got.size(), 1U);
  EXPECT_EQ(got[0].result.gpu(), "NVIDIA H100 80GB HBM3");
  EXPECT_TRUE(finished({admin, true}).empty()) << "not public";
  Database& db = *shared_->db;
  // Each change is to this one job: " WHERE id = <id>" (an integer the test holds).
  const auto on_job = [id](SqlText change) { return Sql(change).Append(" WHERE id = ").AppendInteger(id); };
  ASSERT_TRUE(db.Execute(on_job("UPDATE jobs SET public = 1")).ok());
  EXPECT_EQ(finished({admin, true}).size(), 1U) << "made public";
  ASSERT_TRUE(db.Execute(on_job("UPDATE jobs SET problem = 'level2/x'")).ok());
  EXPECT_EQ(store_->FinishedResults({}, "level2/", {admin, false})->size(), 1U);
  ASSERT_TRUE(db.Execute(on_job("UPDATE jobs SET result_json = json_set(result_json, '$.timings[0].timing.median_us', 2.5)")).ok());
  got = finished({admin, false});
  ASSERT_EQ(got.size(), 1U);
  ASSERT_EQ(got[0].result.timings_size(), 1);
  EXPECT_EQ(got[0].result.timings(0).timing().median_us(), 2.5) << "a new result";
  ASSERT_TRUE(db.Execute(on_job("UPDATE jobs SET verdict = 13")).ok());
  EXPECT_TRUE(finished({admin, false}).empty()) << "CANCELLED is not counted";
  ASSERT_TRUE(db.Execute(on_job("UPDATE jobs SET verdict = 1, state = 1")).ok());
  EXPECT_TRUE(finished({admin, false}).empty()) << "no longer finished";
  ASSERT_TRUE(db.Execute(on_job("UPDATE jobs SET state = 3")).ok());
  EXPECT_EQ(finished({admin, false}).size(), 1U) << "finished again, result kept";
  ASSERT_TRUE(db.Execute(on_job("DELETE FROM jobs")).ok());
  EXPECT_TRUE(finished({admin, false}).empty()) << "deleted";
  EXPECT_EQ(store_->CountByState()->done, 0);
}

// The doubles come back bit for bit as job_metrics holds them (its value printed with 21
// significant digits, parsed correctly rounded), shapes and baselines byte for byte.
TEST_F(JobStoreClientTest, FinishedResultsHoldJobMetricsValuesExactly) {
  std::vector<double> values = {0.1, 1.0 / 3.0, 30.0 / 7.0, 2.5, 1e-7, 123456.789e10, 4.9406564584124654e-324,
                                2.2250738585072014e-308, 1.7976931348623157e308, 9007199254740993.0, 0.0};
  std::mt19937_64 bits(7);
  while (values.size() < 400) {
    double v = 0;
    const uint64_t pattern = bits() >> 1;  // positive
    std::memcpy(&v, &pattern, sizeof(v));
    if (std::isfinite(v)) values.push_back(v);
  }
  NewJob job = Job("kj_a");
  job.immediate_result = v1::JobResult();  // stored finished, as a result judged at submission
  job.immediate_result->set_verdict(v1::CORRECT);
  for (size_t i = 0; i < values.size(); ++i) {
    v1::ShapeTiming* timing = job.immediate_result->add_timings();
    timing->set_shape(i % 2 == 0 ? "N=1 M=2" : "shape \"quoted\" 7 8 ");
    timing->mutable_timing()->set_median_us(values[i]);
    v1::Speedup* speedup = job.immediate_result->add_speedups();
    speedup->set_shape(timing->shape());
    speedup->set_baseline(i % 3 == 0 ? "" : "cu blas");
    speedup->set_speedup(values[values.size() - 1 - i]);
  }
  const int64_t id = *store_->Enqueue(job);
  absl::StatusOr<std::vector<JudgedResult>> got = store_->FinishedResults({}, "", StatsScope{Viewer{"", true}, false});
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), 1U);
  const v1::JobResult& read = (*got)[0].result;
  ASSERT_EQ(read.timings_size(), static_cast<int>(values.size()));
  ASSERT_EQ(read.speedups_size(), static_cast<int>(values.size()));
  absl::StatusOr<Statement> stored = shared_->db->Prepare(
      "SELECT kind, idx, value FROM job_metrics WHERE job_id = ? AND kind > 0 ORDER BY kind, idx");
  ASSERT_TRUE(stored.ok()) << stored.status();
  stored->Bind(1, id);
  int rows = 0;
  while (*stored->Step()) {
    const int i = static_cast<int>(stored->ColumnInt(1));
    const double expected = stored->ColumnDouble(2);
    const double actual = stored->ColumnInt(0) == 1 ? read.timings(i).timing().median_us() : read.speedups(i).speedup();
    EXPECT_EQ(std::memcmp(&expected, &actual, sizeof(double)), 0) << "kind " << stored->ColumnInt(0) << " idx " << i
                                                                  << ": " << expected << " read as " << actual;
    ++rows;
  }
  EXPECT_EQ(rows, 2 * static_cast<int>(values.size()));
  for (size_t i = 0; i < values.size(); ++i) {
    const v1::Speedup& stored_speedup = job.immediate_result->speedups(static_cast<int>(i));
    EXPECT_EQ(read.timings(static_cast<int>(i)).shape(), job.immediate_result->timings(static_cast<int>(i)).shape());
    EXPECT_EQ(read.speedups(static_cast<int>(i)).baseline(), stored_speedup.baseline());
    EXPECT_DOUBLE_EQ(read.timings(static_cast<int>(i)).timing().median_us(), values[i]);
  }
}

// A database an older server wrote (schema 8) gets a job_stats row for each finished job from
// the migration, and one for each job finished after it.
TEST(JobStatsMigration, BackfillsJobsFinishedBeforeIt) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("kjudge-job-stats-" + std::to_string(getpid()) + ".sqlite")).string();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(path);
  ASSERT_TRUE(db.ok()) << db.status();
  std::vector<Migration> before;
  for (const Migration& m : BuiltinMigrations()) {
    if (m.version < 9) before.push_back(m);
  }
  ASSERT_TRUE(ApplyMigrations(**db, before).ok());
  SharedDatabase shared;
  shared.db = std::move(*db);
  shared.now_ms = [] { return int64_t{1}; };
  v1::JobResult result;
  result.set_verdict(v1::CORRECT);
  result.set_gpu("NVIDIA H200");
  v1::Speedup* speedup = result.add_speedups();
  speedup->set_shape("N=8");
  speedup->set_baseline("cublas");
  speedup->set_speedup(2.5);
  NewJob job;
  job.problem = "p";
  job.source = "x";
  job.seed = 1;
  job.immediate_result = result;
  {
    JobStore old_store(&shared, JobStoreOptions{});
    ASSERT_TRUE(old_store.Enqueue(job).ok());  // finished, written by schema 8's triggers
    job.immediate_result.reset();
    ASSERT_TRUE(old_store.Enqueue(job).ok());  // queued
  }
  ASSERT_TRUE(ApplyMigrations(*shared.db, BuiltinMigrations()).ok());
  JobStore store(&shared, JobStoreOptions{});
  const StatsScope everyone{Viewer{"", true}, false};
  absl::StatusOr<std::vector<JudgedResult>> got = store.FinishedResults({}, "", everyone);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), 1U);
  EXPECT_EQ((*got)[0].result.gpu(), "NVIDIA H200");
  ASSERT_EQ((*got)[0].result.speedups_size(), 1);
  EXPECT_EQ((*got)[0].result.speedups(0).speedup(), 2.5);
  absl::StatusOr<std::optional<LeasedJob>> leased = store.LeaseNext("w", true);
  ASSERT_TRUE(leased.ok() && leased->has_value());
  ASSERT_TRUE(store.Complete(LeaseRef{(*leased)->id, "w", (*leased)->lease_token}, result).ok());
  EXPECT_EQ(store.FinishedResults({}, "", everyone)->size(), 2U);
  EXPECT_EQ(store.CountByState()->done, 2);
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
}

TEST_F(JobStoreClientTest, ListFiltersByVerdictAndSubmissionTime) {
  const Viewer alice{"kj_a", false};
  int64_t now = 1'000'000;
  shared_->now_ms = [&now] { return now; };
  for (int i = 0; i < 3; ++i, now += 1000) {
    NewJob job = Job("kj_a");
    if (i == 1) {
      job.immediate_result = v1::JobResult();
      job.immediate_result->set_verdict(v1::REJECTED);
    }
    ASSERT_TRUE(store_->Enqueue(job).ok());
  }
  JobFilter rejected;
  rejected.verdict = v1::REJECTED;
  absl::StatusOr<std::vector<v1::Job>> jobs = store_->List(alice, rejected);
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->size(), 1U);
  EXPECT_EQ((*jobs)[0].id(), "2");
  JobFilter window;
  window.created_after_ms = 1'001'000;
  window.created_before_ms = 1'002'000;
  jobs = store_->List(alice, window);
  ASSERT_EQ(jobs->size(), 1U);
  EXPECT_EQ((*jobs)[0].id(), "2");
}

}  // namespace
}  // namespace kjudge::server
