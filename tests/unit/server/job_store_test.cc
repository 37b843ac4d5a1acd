// JobStore on real SQLite files in a temporary directory; time is moved by the test's clock.
#include "server/job_store.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include "server/api_keys.h"
#include "server/database_check.h"
#include "server/job_outcome.h"
#include "server/migrations.h"
#include "server/worker_registry.h"

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
    store_->SetLeaseClock([this] { return now_; });  // these tests move lease time by hand
  }
  int64_t Enqueue(bool compile_only = false, const std::string& source = "__global__ void k(){}",
                  const std::string& api_key_id = "") {
    NewJob job;
    job.api_key_id = api_key_id;
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
  static LeaseRef Ref(const LeasedJob& job, const std::string& worker) {
    return LeaseRef{job.id, worker, job.lease_token};
  }
  v1::JobResult Result(v1::Verdict verdict) {
    v1::JobResult result;
    result.set_verdict(verdict);
    return result;
  }
  bool Completes(const LeaseRef& lease, v1::Verdict verdict = v1::CORRECT) {
    absl::StatusOr<Completion> done = store_->Complete(lease, Result(verdict));
    EXPECT_TRUE(done.ok()) << done.status();
    return done.ok() && done->accepted;
  }
  // The job ids leased one after another by `worker` (each completed at once) until none is left.
  std::vector<int64_t> DrainInLeaseOrder(const std::string& worker) {
    std::vector<int64_t> order;
    while (std::optional<LeasedJob> job = Lease(worker)) {
      order.push_back(job->id);
      EXPECT_TRUE(Completes(Ref(*job, worker)));
    }
    return order;
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

// A problem with only reference.py (needs_torch): its judged jobs go only to workers with the
// PyTorch oracle, its compile-only jobs anywhere; other jobs are not held back behind it.
TEST_F(JobStoreTest, JobsThatNeedPyTorchGoOnlyToWorkersWithIt) {
  auto enqueue = [&](bool compile_only, bool needs_torch) {
    NewJob job;
    job.problem = "level2/linear_relu";
    job.source = "__global__ void k(){}";
    job.launch_plan = "k<<<1,1>>>(x);";
    job.compile_only = compile_only;
    job.needs_torch = needs_torch;
    absl::StatusOr<int64_t> id = store_->Enqueue(job);
    EXPECT_TRUE(id.ok()) << id.status();
    return *id;
  };
  const int64_t torch_job = enqueue(false, true);
  const int64_t torch_compile_only = enqueue(true, true);
  const int64_t cuda_job = Enqueue();
  // A GPU worker without PyTorch skips the torch job and takes the others, oldest first.
  std::optional<LeasedJob> first = Lease("plain");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->id, torch_compile_only);
  std::optional<LeasedJob> second = Lease("plain");
  ASSERT_TRUE(second);
  EXPECT_EQ(second->id, cuda_job);
  EXPECT_FALSE(Lease("plain"));
  EXPECT_FALSE(Lease("compile-only", /*gpu=*/false));
  EXPECT_EQ(Get(torch_job).state(), v1::QUEUED);
  // A worker with PyTorch takes it.
  absl::StatusOr<std::optional<LeasedJob>> torch = store_->LeaseNext("torch", true, true);
  ASSERT_TRUE(torch.ok() && torch->has_value()) << torch.status();
  EXPECT_EQ((*torch)->id, torch_job);
  // And it takes plain jobs too, and compile-only ones.
  const int64_t later = Enqueue();
  const int64_t later_compile = enqueue(true, true);
  torch = store_->LeaseNext("torch", true, true);
  ASSERT_TRUE(torch.ok() && torch->has_value());
  EXPECT_EQ((*torch)->id, later);
  torch = store_->LeaseNext("torch", true, true);
  ASSERT_TRUE(torch.ok() && torch->has_value());
  EXPECT_EQ((*torch)->id, later_compile);
  // can_run_torch without a GPU means nothing: compile-only workers never judge.
  enqueue(false, true);
  torch = store_->LeaseNext("compile-only", false, true);
  ASSERT_TRUE(torch.ok());
  EXPECT_FALSE(torch->has_value());
}

// The catalog changed between runs: queued jobs are routed by what their problem is now.
TEST_F(JobStoreTest, QueuedJobsAreReroutedByTheCurrentCatalog) {
  const int64_t relu = Enqueue();                 // level1/19_ReLU, routed as CUDA
  const int64_t relu_compile = Enqueue(true);
  // 19_ReLU lost its reference.cu: its judged job now needs PyTorch, its compile-only one not.
  absl::StatusOr<int64_t> changed = store_->RouteQueuedJobs({"level1/19_ReLU", "level2/other"});
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_EQ(*changed, 1);
  std::optional<LeasedJob> leased = Lease("plain");
  ASSERT_TRUE(leased);
  EXPECT_EQ(leased->id, relu_compile);
  EXPECT_FALSE(Lease("plain"));
  // And back: it gained one again.
  changed = store_->RouteQueuedJobs({});
  ASSERT_TRUE(changed.ok());
  EXPECT_EQ(*changed, 1);
  leased = Lease("plain");
  ASSERT_TRUE(leased);
  EXPECT_EQ(leased->id, relu);
  changed = store_->RouteQueuedJobs({});
  ASSERT_TRUE(changed.ok());
  EXPECT_EQ(*changed, 0);
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
  std::optional<LeasedJob> first = Lease("w1");
  ASSERT_TRUE(first);
  now_ += 500;
  EXPECT_EQ(*store_->ExpireLeases(), 0);  // still within the lease
  EXPECT_TRUE(*store_->Renew(Ref(*first, "w1")));
  now_ += 900;
  EXPECT_EQ(*store_->ExpireLeases(), 0);  // renewal moved the expiry
  now_ += 200;
  EXPECT_EQ(*store_->ExpireLeases(), 1);
  EXPECT_EQ(Get(id).state(), v1::QUEUED);
  EXPECT_FALSE(*store_->Renew(Ref(*first, "w1")));  // the lease is gone

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
  std::optional<LeasedJob> leased = Lease("w1");
  ASSERT_TRUE(leased);
  EXPECT_FALSE(Completes(Ref(*leased, "intruder")));  // the right token is not enough
  EXPECT_TRUE(Completes(Ref(*leased, "w1")));
  EXPECT_FALSE(Completes(Ref(*leased, "w1")));
  v1::Job job = Get(id);
  EXPECT_EQ(job.state(), v1::DONE);
  EXPECT_EQ(job.result().verdict(), v1::CORRECT);
  EXPECT_GT(job.finished_unix_ms(), 0);
}

TEST_F(JobStoreTest, LateResultAfterExpiryIsRefused) {
  const int64_t id = Enqueue();
  std::optional<LeasedJob> slow = Lease("slow");
  ASSERT_TRUE(slow);
  now_ += 2000;
  ASSERT_EQ(*store_->ExpireLeases(), 1);
  std::optional<LeasedJob> fast = Lease("fast");
  ASSERT_TRUE(fast);
  EXPECT_FALSE(Completes(Ref(*slow, "slow"), v1::WRONG_ANSWER));
  EXPECT_TRUE(Completes(Ref(*fast, "fast")));
  EXPECT_EQ(Get(id).result().verdict(), v1::CORRECT);
}

TEST_F(JobStoreTest, ReleaseRequeuesAtOnceAndCountsTheAttempt) {
  const int64_t id = Enqueue();
  std::optional<LeasedJob> first = Lease("w1");
  ASSERT_TRUE(first);
  EXPECT_FALSE(*store_->Release(Ref(*first, "other"), "no"));
  EXPECT_TRUE(*store_->Release(Ref(*first, "w1"), "runner died"));
  EXPECT_EQ(Get(id).state(), v1::QUEUED);
  std::optional<LeasedJob> second = Lease("w2");
  ASSERT_TRUE(second);
  EXPECT_TRUE(*store_->Release(Ref(*second, "w2"), "runner was killed by signal 9"));
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

// Issue 28: torch_eager rows measured with TF32 off (before migration 0012) are dropped so that
// they are measured again under PyTorch's defaults; imported ones and every other baseline stay.
TEST(SchemaMigrations, TorchEagerMeasuredBeforePytorchDefaultsIsDroppedAndImportedStays) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("kjudge-migration12-" + std::to_string(getpid()) + ".sqlite")).string();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(path);
  ASSERT_TRUE(db.ok()) << db.status();
  std::vector<Migration> before;
  for (const Migration& m : BuiltinMigrations()) {
    if (m.version < 12) before.push_back(m);
  }
  ASSERT_LT(before.size(), BuiltinMigrations().size()) << "migration 0012 is built in";
  ASSERT_TRUE(ApplyMigrations(**db, before).ok());
  const std::pair<const char*, const char*> rows_before[] = {{"torch_eager", "NVIDIA H200|x|torch 2.11"},
                                                             {"torch_eager", "imported|NVIDIA H100"},
                                                             {"torch_compile", "NVIDIA H200|x|torch 2.11"},
                                                             {"cublas", "NVIDIA H200|x|torch 2.11"}};
  for (const auto& [name, key] : rows_before) {
    absl::StatusOr<Statement> insert = (*db)->Prepare("INSERT INTO baselines VALUES ('p', 's', ?1, ?2, 1.0, '{}', 1)");
    ASSERT_TRUE(insert.ok()) << insert.status();
    ASSERT_TRUE(insert->Bind(1, std::string_view(name)).Bind(2, std::string_view(key)).Run().ok()) << name;
  }
  ASSERT_TRUE(ApplyMigrations(**db, BuiltinMigrations()).ok());
  absl::StatusOr<Statement> rows = (*db)->Prepare("SELECT name || ' ' || hardware_key FROM baselines ORDER BY 1");
  ASSERT_TRUE(rows.ok()) << rows.status();
  std::vector<std::string> left;
  while (*rows->Step()) left.push_back(rows->ColumnText(0));
  EXPECT_EQ(left, (std::vector<std::string>{"cublas NVIDIA H200|x|torch 2.11", "torch_compile NVIDIA H200|x|torch 2.11",
                                            "torch_eager imported|NVIDIA H100"}));
  db->reset();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
}

TEST_F(JobStoreTest, EveryLeaseGetsAFreshUnguessableToken) {
  const int64_t id = Enqueue();
  std::optional<LeasedJob> first = Lease("w1");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->lease_token.size(), 32u);  // 128 bits as hex
  EXPECT_EQ(first->lease_token.find_first_not_of("0123456789abcdef"), std::string::npos) << first->lease_token;
  ASSERT_TRUE(*store_->Release(Ref(*first, "w1"), "handing back"));
  std::optional<LeasedJob> second = Lease("w1");  // the same worker leases the same job again
  ASSERT_TRUE(second);
  ASSERT_EQ(second->id, id);
  EXPECT_NE(second->lease_token, first->lease_token);
  // The first lease's token is dead, even in the hands of the worker that holds the job now.
  EXPECT_FALSE(*store_->Renew(Ref(*first, "w1")));
  EXPECT_FALSE(*store_->UpdateProgress(Ref(*first, "w1"), v1::STAGE_CHECKING, 1, 2));
  EXPECT_FALSE(*store_->Release(Ref(*first, "w1"), "stale"));
  EXPECT_FALSE(Completes(Ref(*first, "w1")));
  EXPECT_TRUE(Completes(Ref(*second, "w1")));
}

TEST_F(JobStoreTest, AWrongOrMissingTokenIsRefusedAndChangesNothing) {
  const int64_t id = Enqueue();
  std::optional<LeasedJob> leased = Lease("w1");
  ASSERT_TRUE(leased);
  ASSERT_TRUE(*store_->UpdateProgress(Ref(*leased, "w1"), v1::STAGE_CHECKING, 1, 4));
  for (const std::string& token : {std::string(), std::string(32, '0'), leased->lease_token + "0"}) {
    const LeaseRef forged{id, "w1", token};
    EXPECT_FALSE(*store_->Renew(forged)) << token;
    EXPECT_FALSE(*store_->UpdateProgress(forged, v1::STAGE_TIMING, 9, 9)) << token;
    EXPECT_FALSE(*store_->Release(forged, "forged")) << token;
    EXPECT_FALSE(Completes(forged)) << token;
  }
  v1::Job job = Get(id);
  EXPECT_EQ(job.state(), v1::RUNNING);
  EXPECT_EQ(job.stage(), v1::STAGE_CHECKING);
  EXPECT_EQ(job.progress_done(), 1);
  EXPECT_EQ(job.attempts(), 1);
  EXPECT_TRUE(Completes(Ref(*leased, "w1")));
}

TEST_F(JobStoreTest, AnExpiredLeaseIsDeadBeforeExpireLeasesRuns) {
  // lease_ms is 1000: the lease is good through now + 1000 and dead one millisecond later, with
  // no grace for the housekeeping thread that has not requeued it yet.
  const int64_t on_time = Enqueue();
  const int64_t late = Enqueue();
  std::optional<LeasedJob> a = Lease("w1");
  std::optional<LeasedJob> b = Lease("w2");
  ASSERT_TRUE(a && b);
  ASSERT_EQ(a->id, on_time);
  now_ += 1000;
  EXPECT_TRUE(Completes(Ref(*a, "w1")));
  now_ += 1;
  EXPECT_FALSE(*store_->Renew(Ref(*b, "w2")));
  EXPECT_FALSE(*store_->UpdateProgress(Ref(*b, "w2"), v1::STAGE_TIMING, 1, 1));
  EXPECT_FALSE(*store_->Release(Ref(*b, "w2"), "too late"));
  EXPECT_FALSE(Completes(Ref(*b, "w2")));
  EXPECT_EQ(Get(late).state(), v1::RUNNING);  // not requeued yet, but no longer anyone's
  EXPECT_EQ(*store_->ExpireLeases(), 1);
  EXPECT_EQ(Get(late).state(), v1::QUEUED);
  EXPECT_EQ(Get(on_time).result().verdict(), v1::CORRECT);
}

TEST_F(JobStoreTest, ABurstOfOneKeyHoldsAnotherKeysJobBackByOneJobAtMost) {
  // One worker. Key A queues a burst; the worker takes A's first job; then key B queues one.
  std::vector<int64_t> burst;
  for (int i = 0; i < 6; ++i) burst.push_back(Enqueue(false, "a" + std::to_string(i), "kj_a"));
  std::optional<LeasedJob> first = Lease("w1");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->id, burst[0]);
  const int64_t b_job = Enqueue(false, "b", "kj_b");
  ASSERT_TRUE(Completes(Ref(*first, "w1")));
  // B's job is next, ahead of A's second job: it waited for one of A's jobs only.
  std::vector<int64_t> order = DrainInLeaseOrder("w1");
  ASSERT_EQ(order.size(), 6u);
  EXPECT_EQ(order[0], b_job);
  EXPECT_EQ(std::vector<int64_t>(order.begin() + 1, order.end()),
            std::vector<int64_t>(burst.begin() + 1, burst.end()));  // then A's, oldest first
}

TEST_F(JobStoreTest, AKeyWithFewerRunningJobsGoesFirstAndTurnsAlternate) {
  std::vector<int64_t> a, b;
  for (int i = 0; i < 3; ++i) a.push_back(Enqueue(false, "a" + std::to_string(i), "kj_a"));
  for (int i = 0; i < 3; ++i) b.push_back(Enqueue(false, "b" + std::to_string(i), "kj_b"));
  // Two workers at once: A's oldest, then B's (A has a running job, B none).
  std::optional<LeasedJob> w1 = Lease("w1");
  std::optional<LeasedJob> w2 = Lease("w2");
  ASSERT_TRUE(w1 && w2);
  EXPECT_EQ(w1->id, a[0]);
  EXPECT_EQ(w2->id, b[0]);
  ASSERT_TRUE(Completes(Ref(*w1, "w1")));
  ASSERT_TRUE(Completes(Ref(*w2, "w2")));
  // One worker from here on: the keys take turns, each in its own submission order.
  EXPECT_EQ(DrainInLeaseOrder("w1"), (std::vector<int64_t>{a[1], b[1], a[2], b[2]}));
}

TEST_F(JobStoreTest, FairnessKeepsTheCompileOnlyRule) {
  Enqueue(false, "gpu", "kj_a");
  const int64_t compile_job = Enqueue(true, "compile", "kj_b");
  std::optional<LeasedJob> leased = Lease("cpu", /*gpu=*/false);
  ASSERT_TRUE(leased);
  EXPECT_EQ(leased->id, compile_job);
  EXPECT_FALSE(Lease("cpu", /*gpu=*/false));
}

TEST_F(JobStoreTest, BaselineRequestsBelongToOneLease) {
  const int64_t id = Enqueue();
  std::optional<LeasedJob> first = Lease("w1");
  ASSERT_TRUE(first);
  v1::BaselineTiming wanted;
  wanted.set_problem("level1/19_ReLU");
  wanted.set_shape("M=4,N=8");
  wanted.set_name("reference");
  wanted.set_hardware_key("hw");
  EXPECT_FALSE(*store_->RequestBaselines(LeaseRef{id, "w1", "forged"}, {wanted}));
  ASSERT_TRUE(*store_->RequestBaselines(Ref(*first, "w1"), {wanted}));
  // The lease ends without a result: its request goes with it.
  ASSERT_TRUE(*store_->Release(Ref(*first, "w1"), "runner died"));
  std::optional<LeasedJob> second = Lease("w2");
  ASSERT_TRUE(second);
  absl::StatusOr<Completion> done = store_->Complete(Ref(*second, "w2"), Result(v1::CORRECT));
  ASSERT_TRUE(done.ok() && done->accepted);
  EXPECT_TRUE(done->requested_baselines.empty());

  const int64_t other = Enqueue(false, "other");
  std::optional<LeasedJob> third = Lease("w2");
  ASSERT_TRUE(third);
  ASSERT_EQ(third->id, other);
  ASSERT_TRUE(*store_->RequestBaselines(Ref(*third, "w2"), {wanted}));
  done = store_->Complete(Ref(*third, "w2"), Result(v1::CORRECT));
  ASSERT_TRUE(done.ok() && done->accepted);
  ASSERT_EQ(done->requested_baselines.size(), 1u);
  EXPECT_EQ(done->requested_baselines[0].shape(), "M=4,N=8");
  EXPECT_EQ(done->requested_baselines[0].name(), "reference");
  EXPECT_EQ(done->requested_baselines[0].hardware_key(), "hw");
}

TEST_F(JobStoreTest, RevokingAWorkerKeyRequeuesItsLeasesInTheSameTransaction) {
  ApiKeys keys(shared_.get());
  WorkerRegistry workers(shared_.get());
  absl::StatusOr<CreatedKey> stolen = keys.Create("stolen", Role::kWorker);
  absl::StatusOr<CreatedKey> honest = keys.Create("honest", Role::kWorker);
  ASSERT_TRUE(stolen.ok() && honest.ok());
  v1::GpuInfo gpu;
  gpu.set_name("NVIDIA H100 80GB HBM3");
  absl::StatusOr<WorkerRecord> bad = workers.Register("bad", gpu, stolen->key.id);
  absl::StatusOr<WorkerRecord> good = workers.Register("good", gpu, honest->key.id);
  ASSERT_TRUE(bad.ok() && good.ok());
  const int64_t held_by_bad = Enqueue();
  const int64_t held_by_good = Enqueue();
  std::optional<LeasedJob> bad_lease = Lease(bad->id);
  std::optional<LeasedJob> good_lease = Lease(good->id);
  ASSERT_TRUE(bad_lease && good_lease);
  ASSERT_EQ(bad_lease->id, held_by_bad);
  const int64_t waiting = Enqueue();

  ASSERT_TRUE(*keys.Revoke(stolen->key.id));
  v1::Job requeued = Get(held_by_bad);
  EXPECT_EQ(requeued.state(), v1::QUEUED);
  EXPECT_EQ(requeued.attempts(), 0);  // the attempt is not held against the job
  EXPECT_TRUE(requeued.worker().empty());
  EXPECT_EQ(Get(held_by_good).state(), v1::RUNNING);  // other keys' leases stay
  EXPECT_FALSE(*store_->Renew(Ref(*bad_lease, bad->id)));
  EXPECT_FALSE(Completes(Ref(*bad_lease, bad->id)));
  EXPECT_TRUE(*store_->Renew(Ref(*good_lease, good->id)));
  // A worker of the revoked key leases nothing more, even with jobs waiting.
  EXPECT_FALSE(Lease(bad->id));
  std::optional<LeasedJob> next = Lease(good->id);
  ASSERT_TRUE(next);
  EXPECT_EQ(next->id, held_by_bad);
  EXPECT_EQ(next->attempt, 1);
  EXPECT_EQ(Get(waiting).state(), v1::QUEUED);
  EXPECT_FALSE(*keys.Revoke(stolen->key.id));  // once only
}

// Every state change leaves one job_events row, written with the change: queued, leased
// (attempt, worker), each new stage (not every progress report), requeued after the lease
// expired or was released (with the reason), leased again, finished (verdict, message). A
// refused call (stale token) records nothing; tenants see the timeline of their own jobs only,
// without worker ids.
TEST_F(JobStoreTest, EveryStateChangeIsOneEventInItsOwnTransaction) {
  store_ = std::make_unique<JobStore>(shared_.get(), JobStoreOptions{3, 1000});  // three leases to see
  store_->SetLeaseClock([this] { return now_; });
  const int64_t id = Enqueue(false, "__global__ void k(){}", "kj_a");
  now_ += 10;
  std::optional<LeasedJob> first = Lease("w1");
  ASSERT_TRUE(first);
  now_ += 10;
  ASSERT_TRUE(*store_->UpdateProgress(Ref(*first, "w1"), v1::STAGE_CHECKING, 0, 4));
  ASSERT_TRUE(*store_->UpdateProgress(Ref(*first, "w1"), v1::STAGE_CHECKING, 2, 4));  // same stage: no event
  EXPECT_FALSE(*store_->UpdateProgress(LeaseRef{id, "w1", "stale"}, v1::STAGE_TIMING, 0, 1));  // refused: no event
  now_ += 5000;  // the lease (1000 ms) runs out
  ASSERT_EQ(*store_->ExpireLeases(), 1);
  std::optional<LeasedJob> second = Lease("w2");
  ASSERT_TRUE(second);
  now_ += 10;
  ASSERT_TRUE(*store_->UpdateProgress(Ref(*second, "w2"), v1::STAGE_TIMING, 1, 3));
  ASSERT_TRUE(*store_->Release(Ref(*second, "w2"), "GPU fell off the bus"));
  std::optional<LeasedJob> third = Lease("w1");
  ASSERT_TRUE(third);
  now_ += 10;
  v1::JobResult result = Result(v1::WRONG_ANSWER);
  result.set_message("output[3] differs");
  ASSERT_TRUE(store_->Complete(Ref(*third, "w1"), result)->accepted);

  absl::StatusOr<std::vector<JobEvent>> events = store_->Events(id, Viewer{"", true});
  ASSERT_TRUE(events.ok()) << events.status();
  std::vector<std::string> seen;
  for (const JobEvent& e : *events) {
    seen.push_back(absl::StrCat(e.event, " a", e.attempt, " ", e.worker_id, " ", v1::Stage_Name(e.stage), " ",
                                e.verdict == 0 ? "" : v1::Verdict_Name(e.verdict)));
  }
  EXPECT_EQ(seen, (std::vector<std::string>{
                      "queued a0  STAGE_QUEUED ", "leased a1 w1 STAGE_COMPILING ", "stage a1 w1 STAGE_CHECKING ",
                      "requeued a1 w1 STAGE_QUEUED ", "leased a2 w2 STAGE_COMPILING ", "stage a2 w2 STAGE_TIMING ",
                      "requeued a2 w2 STAGE_QUEUED ", "leased a3 w1 STAGE_COMPILING ",
                      "finished a3 w1 STAGE_DONE WRONG_ANSWER"}));
  ASSERT_EQ(events->size(), 9U);
  EXPECT_EQ((*events)[0].at_unix_ms, 1'000'000);
  EXPECT_EQ((*events)[3].detail, "its worker stopped renewing its lease");  // no worker id: tenants read it
  EXPECT_EQ((*events)[3].at_unix_ms, 1'005'020);
  EXPECT_EQ((*events)[6].detail, "GPU fell off the bus");
  EXPECT_EQ((*events)[8].detail, "output[3] differs");
  EXPECT_EQ((*events)[8].at_unix_ms, Get(id).finished_unix_ms());

  absl::StatusOr<std::vector<JobEvent>> own = store_->Events(id, Viewer{"kj_a", false});
  ASSERT_TRUE(own.ok());
  ASSERT_EQ(own->size(), 9U);
  EXPECT_EQ((*own)[1].worker_id, "") << "tenants never see worker ids";
  EXPECT_TRUE(store_->Events(id, Viewer{"kj_b", false})->empty()) << "another tenant's job reads as absent";
}

// A revoked worker key's leases go back with a 'requeued' event; a rejected submission is one
// 'finished' event (it was never queued).
TEST_F(JobStoreTest, RevocationAndRejectionAreOnTheTimeline) {
  ApiKeys keys(shared_.get());
  WorkerRegistry workers(shared_.get());
  absl::StatusOr<CreatedKey> stolen = keys.Create("stolen", Role::kWorker);
  ASSERT_TRUE(stolen.ok());
  v1::GpuInfo gpu;
  gpu.set_name("NVIDIA H100 80GB HBM3");
  absl::StatusOr<WorkerRecord> bad = workers.Register("bad", gpu, stolen->key.id);
  ASSERT_TRUE(bad.ok());
  const int64_t id = Enqueue();
  ASSERT_TRUE(Lease(bad->id));
  ASSERT_TRUE(*keys.Revoke(stolen->key.id));
  std::vector<JobEvent> events = *store_->Events(id, Viewer{"", true});
  ASSERT_EQ(events.size(), 3U);
  EXPECT_EQ(events[2].event, "requeued");
  EXPECT_EQ(events[2].worker_id, bad->id);
  EXPECT_NE(events[2].detail.find("revoked"), std::string::npos);

  NewJob rejected;
  rejected.problem = "level1/19_ReLU";
  rejected.immediate_result = Result(v1::REJECTED);
  rejected.immediate_result->set_message("no launch plan");
  const int64_t refused = *store_->Enqueue(rejected);
  events = *store_->Events(refused, Viewer{"", true});
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].event, "finished");
  EXPECT_EQ(events[0].verdict, v1::REJECTED);
  EXPECT_EQ(events[0].detail, "no launch plan");
}

// Timing samples go to job_samples in the result's transaction, not into the stored result;
// Samples gives them back per shape in timings order, to the job's viewers only.
TEST_F(JobStoreTest, TimingSamplesAreStoredApartFromTheResult) {
  const int64_t id = Enqueue(false, "__global__ void k(){}", "kj_a");
  std::optional<LeasedJob> leased = Lease("w1");
  ASSERT_TRUE(leased);
  v1::JobResult result = Result(v1::CORRECT);
  for (const char* shape : {"N=1", "N=2", "N=3"}) {
    v1::ShapeTiming* timing = result.add_timings();
    timing->set_shape(shape);
    timing->mutable_timing()->set_median_us(2.0);
    if (std::string(shape) == "N=2") continue;  // a shape may come without samples
    for (float us : {1.5F, 2.0F, 2.25F}) timing->mutable_timing()->add_samples_us(us * (shape[2] - '0'));
  }
  ASSERT_TRUE(store_->Complete(Ref(*leased, "w1"), result)->accepted);
  const v1::Job job = Get(id);
  ASSERT_EQ(job.result().timings_size(), 3);
  for (const v1::ShapeTiming& t : job.result().timings()) EXPECT_EQ(t.timing().samples_us_size(), 0) << t.shape();
  EXPECT_DOUBLE_EQ(job.result().timings(0).timing().median_us(), 2.0);

  auto samples = store_->Samples(id, Viewer{"kj_a", false});
  ASSERT_TRUE(samples.ok()) << samples.status();
  ASSERT_EQ(samples->size(), 2U);
  EXPECT_EQ((*samples)[0].first, "N=1");
  EXPECT_EQ((*samples)[0].second, (std::vector<float>{1.5F, 2.0F, 2.25F}));
  EXPECT_EQ((*samples)[1].first, "N=3");
  EXPECT_EQ((*samples)[1].second, (std::vector<float>{4.5F, 6.0F, 6.75F}));
  EXPECT_TRUE(store_->Samples(id, Viewer{"kj_b", false})->empty()) << "another tenant's job reads as absent";
}

}  // namespace
}  // namespace kjudge::server

namespace kjudge::server {
namespace {

// `kjudge-server check` (server/database_check.h): quiet on a queue that worked, and names each
// broken promise: a DONE job without its verdict, a RUNNING job without a lease, a dangling source.
TEST_F(JobStoreTest, DatabaseCheckFindsNothingInAWorkingQueueAndNamesEachBrokenRow) {
  const int64_t done = Enqueue();
  const int64_t running = Enqueue();
  Enqueue();  // stays queued
  std::optional<LeasedJob> first = Lease("w1");
  ASSERT_TRUE(first.has_value());
  ASSERT_EQ(first->id, done);
  ASSERT_TRUE(Completes(Ref(*first, "w1")));
  ASSERT_TRUE(Lease("w1").has_value());
  absl::StatusOr<std::vector<std::string>> problems = CheckDatabase(*shared_->db);
  ASSERT_TRUE(problems.ok()) << problems.status();
  EXPECT_TRUE(problems->empty()) << problems->front();

  ASSERT_TRUE(shared_->db->Execute("UPDATE jobs SET verdict = NULL WHERE state = 3").ok());
  ASSERT_TRUE(shared_->db->Execute("UPDATE jobs SET lease_expires_unix_ms = NULL WHERE state = 2").ok());
  ASSERT_TRUE(shared_->db->Execute("PRAGMA foreign_keys = OFF; UPDATE jobs SET source_sha256 = 'gone' WHERE state = 1;"
                                   "PRAGMA foreign_keys = ON;")
                  .ok());
  problems = CheckDatabase(*shared_->db);
  ASSERT_TRUE(problems.ok()) << problems.status();
  const std::string all = absl::StrJoin(*problems, "\n");
  EXPECT_NE(all.find(absl::StrCat("job ", done, " is DONE without a verdict")), std::string::npos) << all;
  EXPECT_NE(all.find(absl::StrCat("job ", running, " is RUNNING without a worker or a lease")), std::string::npos)
      << all;
  EXPECT_NE(all.find("foreign key: jobs"), std::string::npos) << all;
  EXPECT_EQ(problems->size(), 3u) << all;
  EXPECT_EQ(CheckDatabase(*shared_->db, 1)->size(), 1u) << "the cap holds";
}

// A file whose pages were overwritten (a disk fault) fails SQLite's own integrity check.
TEST_F(JobStoreTest, DatabaseCheckFindsOverwrittenPages) {
  for (int i = 0; i < 200; ++i) Enqueue(false, absl::StrCat("__global__ void k", i, "(){}"));
  store_.reset();
  shared_.reset();  // closes the file (its WAL is checkpointed into it)
  {
    std::FILE* file = std::fopen(path_.c_str(), "r+b");
    ASSERT_NE(file, nullptr);
    const std::string garbage(4096, '\x5a');
    // Pages 3 to 6 (page 1 is the header; SQLite's pages are 4 KiB here): table and index pages.
    ASSERT_EQ(std::fseek(file, 2 * 4096, SEEK_SET), 0);
    for (int page = 0; page < 4; ++page) ASSERT_EQ(std::fwrite(garbage.data(), 1, garbage.size(), file), garbage.size());
    std::fclose(file);
  }
  absl::StatusOr<std::unique_ptr<Database>> db = Database::OpenReadOnly(path_);
  ASSERT_TRUE(db.ok()) << db.status();
  absl::StatusOr<std::vector<std::string>> problems = CheckDatabase(**db);
  ASSERT_TRUE(problems.ok()) << problems.status();
  ASSERT_FALSE(problems->empty()) << "overwritten pages passed the check";
  EXPECT_NE(absl::StrJoin(*problems, "\n").find("malformed"), std::string::npos) << absl::StrJoin(*problems, "\n");
}

}  // namespace
}  // namespace kjudge::server

namespace kjudge::server {
namespace {

// THE success rule (server/job_outcome.h): DONE with the verdict the job's kind asks for.
TEST(JobOutcome, SucceededIsTheVerdictTheKindAsksFor) {
  const auto job = [](v1::JobState state, v1::Verdict verdict, bool compile_only, bool baselines_only) {
    v1::Job j;
    j.set_state(state);
    j.mutable_result()->set_verdict(verdict);
    j.set_compile_only(compile_only);
    j.set_baselines_only(baselines_only);
    return j;
  };
  EXPECT_TRUE(JobSucceeded(job(v1::DONE, v1::CORRECT, false, false)));
  EXPECT_TRUE(JobSucceeded(job(v1::DONE, v1::COMPILED, true, false)));
  EXPECT_TRUE(JobSucceeded(job(v1::DONE, v1::BASELINES_MEASURED, false, true)));
  EXPECT_FALSE(JobSucceeded(job(v1::DONE, v1::COMPILED, false, false))) << "a full job that was only compiled";
  EXPECT_FALSE(JobSucceeded(job(v1::DONE, v1::CORRECT, false, true)));
  EXPECT_FALSE(JobSucceeded(job(v1::RUNNING, v1::CORRECT, false, false))) << "not DONE";
  for (v1::Verdict v : {v1::WRONG_ANSWER, v1::SUSPICIOUS, v1::TIMEOUT, v1::REJECTED, v1::CANCELLED,
                        v1::INTERNAL_ERROR, v1::COMPILE_ERROR, v1::INPUT_MODIFIED}) {
    EXPECT_FALSE(JobSucceeded(job(v1::DONE, v, false, false))) << v1::Verdict_Name(v);
    EXPECT_FALSE(JobSucceeded(job(v1::DONE, v, true, false))) << v1::Verdict_Name(v);
  }
}

// Every Job the store returns carries the rule's answer.
TEST_F(JobStoreTest, EveryJobReadBackCarriesSucceeded) {
  const int64_t id = Enqueue(/*compile_only=*/true);
  EXPECT_FALSE(Get(id).succeeded()) << "queued";
  std::optional<LeasedJob> leased = Lease("w1", /*gpu=*/false);
  ASSERT_TRUE(leased.has_value());
  ASSERT_TRUE(Completes(Ref(*leased, "w1"), v1::COMPILED));
  EXPECT_TRUE(Get(id).succeeded());
}

}  // namespace
}  // namespace kjudge::server
