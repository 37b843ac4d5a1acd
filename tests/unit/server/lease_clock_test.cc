// Leases follow a clock that never steps: the store's wall clock (SharedDatabase::now_ms, what
// a test or an NTP step moves) jumps forward or back while real time runs on. Real SQLite
// files; the lease clock is the store's default (MonotonicWallMs), not a test clock.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "server/job_store.h"
#include "server/migrations.h"

namespace kjudge::server {
namespace {

class LeaseClockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("kjudge-leaseclock-" + std::to_string(getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".sqlite"))
                .string();
    Remove();
    Open(30000);
  }
  void TearDown() override {
    store_.reset();
    shared_.reset();
    Remove();
  }
  void Remove() {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + suffix);
  }
  void Open(int64_t lease_ms) {
    store_.reset();
    shared_ = std::make_unique<SharedDatabase>();
    absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(path_);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE(ApplyMigrations(**db, BuiltinMigrations()).ok());
    shared_->db = std::move(*db);
    shared_->now_ms = [this] { return SystemNowMs() + wall_step_ms_; };
    store_ = std::make_unique<JobStore>(shared_.get(), JobStoreOptions{3, lease_ms});
  }
  LeaseRef EnqueueAndLease() {
    NewJob job;
    job.problem = "level1/19_ReLU";
    job.source = "__global__ void k(){}";
    job.launch_plan = "k<<<1,1>>>(X);";
    job.seed = 1;
    absl::StatusOr<int64_t> id = store_->Enqueue(job);
    EXPECT_TRUE(id.ok()) << id.status();
    absl::StatusOr<std::optional<LeasedJob>> leased = store_->LeaseNext("w1", true);
    EXPECT_TRUE(leased.ok() && leased->has_value());
    return LeaseRef{(*leased)->id, "w1", (*leased)->lease_token};
  }
  v1::JobState State(int64_t id) {
    absl::StatusOr<std::optional<v1::Job>> job = store_->Get(id);
    EXPECT_TRUE(job.ok() && job->has_value());
    return (*job)->state();
  }

  std::string path_;
  int64_t wall_step_ms_ = 0;  // how far the store's wall clock has been stepped
  std::unique_ptr<SharedDatabase> shared_;
  std::unique_ptr<JobStore> store_;
};

// The issue: a +120 s wall-clock step dropped a live lease.
TEST_F(LeaseClockTest, AForwardWallClockStepKeepsALiveLease) {
  const LeaseRef lease = EnqueueAndLease();
  wall_step_ms_ = 120'000;
  EXPECT_EQ(*store_->ExpireLeases(), 0);
  EXPECT_TRUE(*store_->Renew(lease));
  EXPECT_TRUE(*store_->UpdateProgress(lease, v1::STAGE_CHECKING, 1, 2));
  EXPECT_EQ(State(lease.job_id), v1::RUNNING);
}

// The issue: a -1 h step kept a dead worker's job RUNNING for an hour. Lease 300 ms, the
// worker stops renewing, the wall clock goes back an hour: the lease still ends ~300 ms on.
TEST_F(LeaseClockTest, ABackwardWallClockStepDoesNotKeepADeadLease) {
  Open(300);
  const LeaseRef lease = EnqueueAndLease();
  wall_step_ms_ = -3'600'000;
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  EXPECT_FALSE(*store_->Renew(lease));  // dead even before ExpireLeases runs
  EXPECT_EQ(*store_->ExpireLeases(), 1);
  EXPECT_EQ(State(lease.job_id), v1::QUEUED);
}

// A server restart: the running job's stored expiry is from the old process; RestartLeases
// gives it a full period on this process's clock, however far the wall clock moved meanwhile.
TEST_F(LeaseClockTest, RestartGivesRunningLeasesAFullPeriod) {
  const LeaseRef lease = EnqueueAndLease();
  // What an old process with a far-behind clock would have stored: expired long ago.
  ASSERT_TRUE(shared_->db->Execute("UPDATE jobs SET lease_expires_unix_ms = 1").ok());
  EXPECT_EQ(*store_->RestartLeases(), 1);
  EXPECT_EQ(*store_->ExpireLeases(), 0);
  EXPECT_TRUE(*store_->Renew(lease));
  EXPECT_EQ(State(lease.job_id), v1::RUNNING);
}

}  // namespace
}  // namespace kjudge::server
