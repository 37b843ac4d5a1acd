// JobStore on real SQLite files in a temporary directory; time is moved by the test's clock.
#include "server/job_store.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "server/migrations.h"

namespace kjudge::server {
namespace {

class JobStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("kjudge-jobstore-" + std::to_string(getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".sqlite"))
                .string();
    Remove();
    Open();
  }
  void TearDown() override {
    store_.reset();
    shared_.reset();
    Remove();
  }
  void Remove() {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + suffix);
  }
  void Open() {
    store_.reset();
    shared_ = std::make_unique<SharedDatabase>();
    absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(path_);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE(ApplyMigrations(**db, BuiltinMigrations()).ok());
    shared_->db = std::move(*db);
    shared_->now_ms = [this] { return now_; };
    store_ = std::make_unique<JobStore>(shared_.get(), JobStoreOptions{2, 1000});
  }
  int64_t Enqueue(bool compile_only = false, const std::string& source = "__global__ void k(){}") {
    NewJob job;
    job.problem = "level1/19_ReLU";
    job.source = source;
    job.launch_plan = "k<<<1,1>>>(X);";
    job.compile_only = compile_only;
    job.seed = 42;
    absl::StatusOr<int64_t> id = store_->Enqueue(job);
    EXPECT_TRUE(id.ok()) << id.status();
    return *id;
  }
  v1::Job Get(int64_t id) {
    absl::StatusOr<std::optional<v1::Job>> job = store_->Get(id);
    EXPECT_TRUE(job.ok() && job->has_value());
    return **job;
  }
  std::optional<LeasedJob> Lease(const std::string& worker, bool gpu = true) {
    absl::StatusOr<std::optional<LeasedJob>> leased = store_->LeaseNext(worker, gpu);
    EXPECT_TRUE(leased.ok()) << leased.status();
    return *leased;
  }

  std::string path_;
  int64_t now_ = 1'000'000;
  std::unique_ptr<SharedDatabase> shared_;
  std::unique_ptr<JobStore> store_;
};

TEST_F(JobStoreTest, LeasesInSubmissionOrderWithQueuePositions) {
  const int64_t a = Enqueue();
  const int64_t b = Enqueue();
  EXPECT_EQ(Get(a).queue_position(), 1);
  EXPECT_EQ(Get(b).queue_position(), 2);
  std::optional<LeasedJob> first = Lease("w1");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->id, a);
  EXPECT_EQ(first->attempt, 1);
  EXPECT_EQ(first->spec.seed(), 42u);
  EXPECT_EQ(first->spec.launch_plan(), "k<<<1,1>>>(X);");
  EXPECT_EQ(Get(a).state(), v1::RUNNING);
  EXPECT_EQ(Get(b).queue_position(), 1);
  std::optional<LeasedJob> second = Lease("w2");
  ASSERT_TRUE(second);
  EXPECT_EQ(second->id, b);
  EXPECT_FALSE(Lease("w3"));
}

TEST_F(JobStoreTest, CompileOnlyWorkersGetOnlyCompileOnlyJobs) {
  const int64_t gpu_job = Enqueue(false);
  const int64_t compile_job = Enqueue(true);
  std::optional<LeasedJob> leased = Lease("cpu", /*gpu=*/false);
  ASSERT_TRUE(leased);
  EXPECT_EQ(leased->id, compile_job);
  EXPECT_FALSE(Lease("cpu", false));
  leased = Lease("gpu", true);
  ASSERT_TRUE(leased);
  EXPECT_EQ(leased->id, gpu_job);
}

TEST_F(JobStoreTest, SourceIsStoredOncePerHash) {
  Enqueue(false, "same");
  Enqueue(false, "same");
  Enqueue(false, "other");
  absl::StatusOr<Statement> count = shared_->db->Prepare("SELECT COUNT(*) FROM sources");
  ASSERT_TRUE(count.ok());
  ASSERT_TRUE(*count->Step());
  EXPECT_EQ(count->ColumnInt(0), 2);
}

TEST_F(JobStoreTest, ExpiredLeaseRequeuesThenFailsAfterMaxAttempts) {
  const int64_t id = Enqueue();
  ASSERT_TRUE(Lease("w1"));
  now_ += 500;
  EXPECT_EQ(*store_->ExpireLeases(), 0);  // still within the lease
  EXPECT_TRUE(*store_->Renew(id, "w1"));
  now_ += 900;
  EXPECT_EQ(*store_->ExpireLeases(), 0);  // renewal moved the expiry
  now_ += 200;
  EXPECT_EQ(*store_->ExpireLeases(), 1);
  EXPECT_EQ(Get(id).state(), v1::QUEUED);
  EXPECT_FALSE(*store_->Renew(id, "w1"));  // the lease is gone

  std::optional<LeasedJob> again = Lease("w2");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->attempt, 2);
  now_ += 5000;
  EXPECT_EQ(*store_->ExpireLeases(), 1);
  v1::Job job = Get(id);
  EXPECT_EQ(job.state(), v1::DONE);
  EXPECT_EQ(job.result().verdict(), v1::INTERNAL_ERROR);
  EXPECT_NE(job.result().message().find("2 attempts"), std::string::npos) << job.result().message();
  EXPECT_FALSE(Lease("w3"));
}

TEST_F(JobStoreTest, OnlyTheLeaseHolderCompletesAndOnlyOnce) {
  const int64_t id = Enqueue();
  ASSERT_TRUE(Lease("w1"));
  v1::JobResult result;
  result.set_verdict(v1::CORRECT);
  EXPECT_FALSE(*store_->Complete(id, "intruder", result));
  EXPECT_TRUE(*store_->Complete(id, "w1", result));
  EXPECT_FALSE(*store_->Complete(id, "w1", result));
  v1::Job job = Get(id);
  EXPECT_EQ(job.state(), v1::DONE);
  EXPECT_EQ(job.result().verdict(), v1::CORRECT);
  EXPECT_GT(job.finished_unix_ms(), 0);
}

TEST_F(JobStoreTest, LateResultAfterExpiryIsRefused) {
  const int64_t id = Enqueue();
  ASSERT_TRUE(Lease("slow"));
  now_ += 2000;
  ASSERT_EQ(*store_->ExpireLeases(), 1);
  ASSERT_TRUE(Lease("fast"));
  v1::JobResult result;
  result.set_verdict(v1::WRONG_ANSWER);
  EXPECT_FALSE(*store_->Complete(id, "slow", result));
  result.set_verdict(v1::CORRECT);
  EXPECT_TRUE(*store_->Complete(id, "fast", result));
  EXPECT_EQ(Get(id).result().verdict(), v1::CORRECT);
}

TEST_F(JobStoreTest, ReleaseRequeuesAtOnceAndCountsTheAttempt) {
  const int64_t id = Enqueue();
  ASSERT_TRUE(Lease("w1"));
  EXPECT_FALSE(*store_->Release(id, "other", "no"));
  EXPECT_TRUE(*store_->Release(id, "w1", "runner died"));
  EXPECT_EQ(Get(id).state(), v1::QUEUED);
  ASSERT_TRUE(Lease("w2"));
  EXPECT_TRUE(*store_->Release(id, "w2", "runner was killed by signal 9"));
  v1::Job job = Get(id);
  EXPECT_EQ(job.state(), v1::DONE);
  EXPECT_EQ(job.result().verdict(), v1::INTERNAL_ERROR);
  EXPECT_NE(job.result().message().find("signal 9"), std::string::npos);
}

TEST_F(JobStoreTest, QueueSurvivesReopeningTheFile) {
  const int64_t queued = Enqueue();
  const int64_t running = Enqueue();
  ASSERT_TRUE(Lease("w1"));
  Open();  // as after a crash: a new connection on the same file
  EXPECT_EQ(Get(queued).state(), v1::RUNNING);  // the first one was leased (oldest first)
  EXPECT_EQ(Get(running).state(), v1::QUEUED);
  now_ += 10000;
  EXPECT_EQ(*store_->ExpireLeases(), 1);
  EXPECT_EQ(Get(queued).state(), v1::QUEUED);
}

TEST_F(JobStoreTest, ABusyDatabaseIsWaitedOutNotSurfaced) {
  // Another connection (another process in production: the dashboard, a backup) holds the
  // write lock for a while; the submission waits for it instead of failing with SQLITE_BUSY.
  absl::StatusOr<std::unique_ptr<Database>> other = Database::Open(path_);
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE((*other)->Execute("BEGIN EXCLUSIVE").ok());
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    EXPECT_TRUE((*other)->Execute("COMMIT").ok());
  });
  const auto start = std::chrono::steady_clock::now();
  const int64_t id = Enqueue();
  release.join();
  EXPECT_GT(id, 0);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(500));
  EXPECT_EQ(Get(id).state(), v1::QUEUED);
}

TEST_F(JobStoreTest, ImmediateResultsAreStoredDone) {
  NewJob job;
  job.problem = "p";
  job.source = "s";
  job.launch_plan = "";
  v1::JobResult rejected;
  rejected.set_verdict(v1::REJECTED);
  rejected.set_message("x.cu:3:4: expected ';'");
  job.immediate_result = rejected;
  const int64_t id = *store_->Enqueue(job);
  v1::Job stored = Get(id);
  EXPECT_EQ(stored.state(), v1::DONE);
  EXPECT_EQ(stored.result().message(), "x.cu:3:4: expected ';'");
  EXPECT_FALSE(Lease("w"));
}

TEST_F(JobStoreTest, MigrationsAreIdempotentAndRefuseNewerSchemas) {
  EXPECT_TRUE(ApplyMigrations(*shared_->db, BuiltinMigrations()).ok());
  ASSERT_TRUE(shared_->db->Execute("PRAGMA user_version = 999").ok());
  absl::Status status = ApplyMigrations(*shared_->db, BuiltinMigrations());
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("newer"), absl::string_view::npos);
}

}  // namespace
}  // namespace kjudge::server
