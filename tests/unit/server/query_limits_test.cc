// Bounded reads (issue 25): QueryLimits stops an endless read within its deadline with a
// sentence for the client, caps rows, never lets an interrupted read pin the WAL, and the
// dashboard's Queries run every call under one. Also the dashboard's own reads against the
// /jobs?tag= injection and its tenant-scoped overview counts. Real SQLite files throughout:
// a writer (the server's connection) and read-only readers (the dashboard's).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "dashboard/queries.h"
#include "server/database.h"
#include "server/job_store.h"
#include "server/migrations.h"

namespace kjudge::server {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// Counts forever: only an interrupt ends it.
constexpr char kEndless[] =
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c";

class QueryLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("kjudge-query-limits-" + std::to_string(getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".sqlite"))
                .string();
    Remove();
    absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(path_);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE(ApplyMigrations(**db, BuiltinMigrations()).ok());
    shared_.db = std::move(*db);
    shared_.now_ms = [] { return int64_t{1'000'000}; };
    store_ = std::make_unique<JobStore>(&shared_, JobStoreOptions{});
  }
  void TearDown() override {
    store_.reset();
    shared_.db.reset();
    Remove();
  }
  void Remove() {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + suffix);
  }
  int64_t Enqueue(const std::string& key, const std::map<std::string, std::string>& tags = {}) {
    NewJob job;
    job.problem = "level1/19_ReLU";
    job.source = "__global__ void k(){}";
    job.launch_plan = "k<<<1,1>>>(X);";
    job.api_key_id = key;
    job.tags = tags;
    absl::StatusOr<int64_t> id = store_->Enqueue(job);
    EXPECT_TRUE(id.ok()) << id.status();
    return id.value_or(0);
  }
  std::unique_ptr<Database> Reader() {
    absl::StatusOr<std::unique_ptr<Database>> db = Database::OpenReadOnly(path_);
    EXPECT_TRUE(db.ok()) << db.status();
    return db.ok() ? std::move(*db) : nullptr;
  }

  std::string path_;
  SharedDatabase shared_;
  std::unique_ptr<JobStore> store_;
};

TEST_F(QueryLimitsTest, AnEndlessReadStopsAtItsDeadlineWithASentence) {
  std::unique_ptr<Database> reader = Reader();
  ASSERT_NE(reader, nullptr);
  QueryLimits limits(*reader, milliseconds(200));
  absl::StatusOr<Statement> stmt = reader->Prepare(kEndless);
  ASSERT_TRUE(stmt.ok()) << stmt.status();
  const steady_clock::time_point start = steady_clock::now();
  absl::StatusOr<bool> row = stmt->Step();
  const milliseconds took = std::chrono::duration_cast<milliseconds>(steady_clock::now() - start);
  ASSERT_FALSE(row.ok());
  EXPECT_TRUE(absl::IsDeadlineExceeded(row.status())) << row.status();
  EXPECT_EQ(row.status().message(), "the query took longer than 0.2 s; narrow the filter");
  EXPECT_GE(took.count(), 200);
  EXPECT_LT(took.count(), 2000) << "a generous bound: the deadline is checked every 1,000 VM steps";
}

TEST_F(QueryLimitsTest, AnInterruptedReadDoesNotPinTheWal) {
  for (int i = 0; i < 50; ++i) Enqueue("kj_a");
  std::unique_ptr<Database> reader = Reader();
  ASSERT_NE(reader, nullptr);
  QueryLimits limits(*reader, milliseconds(100));
  // A read over the jobs (so its snapshot holds the WAL) that never ends on its own.
  absl::StatusOr<Statement> stmt = reader->Prepare(
      "WITH RECURSIVE c(x) AS (SELECT (SELECT COUNT(*) FROM jobs) UNION ALL SELECT x + 1 FROM c) "
      "SELECT COUNT(*) FROM c");
  ASSERT_TRUE(stmt.ok()) << stmt.status();
  ASSERT_TRUE(absl::IsDeadlineExceeded(stmt->Step().status()));
  // The statement object is still alive; its read transaction must be over already.
  for (int i = 0; i < 50; ++i) Enqueue("kj_a");
  absl::StatusOr<Statement> checkpoint = shared_.db->Prepare("PRAGMA wal_checkpoint(TRUNCATE)");
  ASSERT_TRUE(checkpoint.ok()) << checkpoint.status();
  ASSERT_TRUE(*checkpoint->Step());
  EXPECT_EQ(checkpoint->ColumnInt(0), 0) << "checkpoint blocked by a reader";
  EXPECT_EQ(std::filesystem::file_size(path_ + "-wal"), 0U) << "the WAL was truncated: nobody pins it";
}

TEST_F(QueryLimitsTest, ARowCapStopsAStatementWithASentence) {
  std::unique_ptr<Database> reader = Reader();
  ASSERT_NE(reader, nullptr);
  QueryLimits limits(*reader, milliseconds(5000), /*max_rows=*/10);
  absl::StatusOr<Statement> stmt =
      reader->Prepare("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100) SELECT x FROM c");
  ASSERT_TRUE(stmt.ok());
  int rows = 0;
  absl::Status status;
  while (true) {
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) {
      status = row.status();
      break;
    }
    if (!*row) break;
    ++rows;
  }
  EXPECT_EQ(rows, 10);
  EXPECT_TRUE(absl::IsResourceExhausted(status)) << status;
  EXPECT_EQ(status.message(), "the query matched more than 10 rows; narrow the filter");
}

TEST_F(QueryLimitsTest, AnInnerGuardNeverExtendsTheOuterDeadlineAndTheHandlerEndsWithTheGuards) {
  std::unique_ptr<Database> reader = Reader();
  ASSERT_NE(reader, nullptr);
  const steady_clock::time_point start = steady_clock::now();
  {
    QueryLimits outer(*reader, milliseconds(100));
    QueryLimits inner(*reader, milliseconds(60'000));
    absl::StatusOr<Statement> stmt = reader->Prepare(kEndless);
    ASSERT_TRUE(stmt.ok());
    absl::StatusOr<bool> row = stmt->Step();
    EXPECT_EQ(row.status().message(), "the query took longer than 0.1 s; narrow the filter");
  }
  EXPECT_LT(std::chrono::duration_cast<milliseconds>(steady_clock::now() - start).count(), 2000);
  // With no guard left, a long read runs to the end: no handler stays behind.
  absl::StatusOr<Statement> counted = reader->Prepare(
      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 300000) SELECT COUNT(*) FROM c");
  ASSERT_TRUE(counted.ok());
  {
    QueryLimits expired(*reader, milliseconds(0));
  }
  absl::StatusOr<bool> row = counted->Step();
  ASSERT_TRUE(row.ok()) << row.status();
  EXPECT_EQ(counted->ColumnInt(0), 300000);
}

TEST_F(QueryLimitsTest, JobStoreReadsRunUnderTheServerBudget) {
  // The server's budget is in force inside JobStore's reads: an outer guard of 0 ms (already
  // expired) is not extended by it, so a read of many rows is stopped. (A read too short to
  // reach its first progress check may finish: the handler looks every 1,000 VM steps.)
  for (int i = 0; i < 200; ++i) Enqueue("kj_a");
  QueryLimits expired(*shared_.db, milliseconds(0));
  JobFilter all;
  all.limit = 1000;
  absl::StatusOr<std::vector<v1::Job>> jobs = store_->List(Viewer{"kj_a", false}, all);
  EXPECT_TRUE(absl::IsDeadlineExceeded(jobs.status())) << jobs.status();
}

TEST_F(QueryLimitsTest, AReadOnlyDatabaseFileIsNamedClearly) {
  if (geteuid() == 0) GTEST_SKIP() << "root writes a 0444 file anyway; run as a user to test this";
  shared_.db.reset();
  ASSERT_EQ(chmod(path_.c_str(), 0444), 0);
  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(path_);
  ASSERT_FALSE(db.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(db.status())) << db.status();
  EXPECT_NE(db.status().message().find("the database file " + path_ + " is read-only"), std::string_view::npos)
      << db.status();
  EXPECT_EQ(db.status().message().find("attempt to write"), std::string_view::npos) << db.status();
  chmod(path_.c_str(), 0644);
}

// The dashboard's reads: Queries over read-only connections.
TEST_F(QueryLimitsTest, DashboardListsAndStatsTakeHostileTagsAsData) {
  const int64_t mine = Enqueue("kj_a", {{"run", "r1"}});
  Enqueue("kj_b", {{"run", "r1"}, {"secret", "s"}});
  absl::StatusOr<std::unique_ptr<dashboard::Queries>> queries = dashboard::Queries::Open(path_, 1);
  ASSERT_TRUE(queries.ok()) << queries.status();
  const Viewer alice{"kj_a", false};
  for (const std::string& key :
       {std::string("x\"') OR 1=1 --"),
        std::string("x\"') = '' UNION SELECT id, name, role, 0, 0, 0, 0, 0, sha256, '', NULL, 0, 0, 0, 0, '', 0 "
                    "FROM api_keys --"),
        std::string("'"), std::string("\""), std::string(")"), std::string("--"), std::string(";"),
        std::string("*/"), std::string("\xE2\x80\xAE")}) {
    JobFilter filter;
    filter.tags[key] = "r1";
    absl::StatusOr<std::vector<v1::Job>> jobs = (*queries)->ListJobs(alice, filter);
    ASSERT_TRUE(jobs.ok()) << key << ": " << jobs.status();
    EXPECT_TRUE(jobs->empty()) << key;
    absl::StatusOr<dashboard::RunStats> run = (*queries)->Run({{key, "r1"}}, "", LibraryNames{}, alice);
    ASSERT_TRUE(run.ok()) << key << ": " << run.status();
    EXPECT_EQ(run->stats.jobs(), 0) << key;
  }
  JobFilter run;
  run.tags["run"] = "r1";
  absl::StatusOr<std::vector<v1::Job>> jobs = (*queries)->ListJobs(alice, run);
  ASSERT_TRUE(jobs.ok() && jobs->size() == 1U);
  EXPECT_EQ((*jobs)[0].id(), std::to_string(mine));
}

TEST_F(QueryLimitsTest, DashboardOverviewCountsOnlyTheTenantsOwnJobs) {
  Enqueue("kj_a");
  for (int i = 0; i < 3; ++i) Enqueue("kj_b");
  absl::StatusOr<std::unique_ptr<dashboard::Queries>> queries = dashboard::Queries::Open(path_, 1);
  ASSERT_TRUE(queries.ok()) << queries.status();
  absl::StatusOr<dashboard::Overview> alice = (*queries)->GetOverview(Viewer{"kj_a", false}, 2'000'000, false);
  ASSERT_TRUE(alice.ok()) << alice.status();
  EXPECT_EQ(alice->queued, 1);
  absl::StatusOr<dashboard::Overview> carol = (*queries)->GetOverview(Viewer{"kj_c", false}, 2'000'000, false);
  ASSERT_TRUE(carol.ok()) << carol.status();
  EXPECT_EQ(carol->queued, 0);
  EXPECT_EQ(carol->oldest_queued_unix_ms, 0) << "another tenant's queue is not the viewer's";
  absl::StatusOr<dashboard::Overview> admin = (*queries)->GetOverview(Viewer{"kj_root", true}, 2'000'000, false);
  ASSERT_TRUE(admin.ok()) << admin.status();
  EXPECT_EQ(admin->queued, 4);
  EXPECT_EQ(admin->oldest_queued_unix_ms, 1'000'000);
}

TEST_F(QueryLimitsTest, DashboardCallsRunUnderTheirBudget) {
  for (int i = 0; i < 300; ++i) Enqueue("kj_a");
  // A budget of 0: every call that reaches a progress check is stopped, with the sentence.
  absl::StatusOr<std::unique_ptr<dashboard::Queries>> queries = dashboard::Queries::Open(path_, 1, milliseconds(0));
  ASSERT_TRUE(queries.ok()) << queries.status();
  JobFilter all;
  all.limit = 1000;
  absl::StatusOr<std::vector<v1::Job>> jobs = (*queries)->ListJobs(Viewer{"kj_a", false}, all);
  ASSERT_TRUE(absl::IsDeadlineExceeded(jobs.status())) << jobs.status();
  EXPECT_EQ(jobs.status().message(), "the query took longer than 0 s; narrow the filter");
  // The lane went back to the pool with its guard gone: a second Queries with a real budget
  // over the same file reads everything.
  absl::StatusOr<std::unique_ptr<dashboard::Queries>> normal = dashboard::Queries::Open(path_, 1);
  ASSERT_TRUE(normal.ok());
  jobs = (*normal)->ListJobs(Viewer{"kj_a", false}, all);
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  EXPECT_EQ(jobs->size(), 300U);
}

}  // namespace
}  // namespace kjudge::server
