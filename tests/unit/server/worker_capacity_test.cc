// WorkerCapacity (issue 27 point 4): which connected workers can take a queued job, and the words
// a job none of them can take shows. Real SQLite with the real migrations; the workers registered
// through the real WorkerRegistry; "connected" moved by the store's clock.
#include "server/worker_capacity.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "server/job_events.h"
#include "server/job_store.h"
#include "server/migrations.h"
#include "server/watch_hub.h"
#include "server/worker_registry.h"

namespace kjudge::server {
namespace {

v1::Job Queued(bool compile_only, bool baselines_only = false) {
  v1::Job job;
  job.set_id("7");
  job.set_problem("level1/19_ReLU");
  job.set_state(v1::QUEUED);
  job.set_compile_only(compile_only);
  job.set_baselines_only(baselines_only);
  return job;
}

TEST(WaitingReason, SaysWhatIsConnectedAndWhatToDo) {
  const WorkerCapacity only_compile{1, 0, 0};
  EXPECT_EQ(WaitingReason(Queued(false), false, only_compile),
            "no connected worker can judge this job: 1 compile-only worker; submit with --compile-only or start a "
            "GPU worker");
  EXPECT_EQ(WaitingReason(Queued(true), false, only_compile), "") << "a compile-only worker takes compile-only jobs";
  EXPECT_EQ(WaitingReason(Queued(false), false, WorkerCapacity{0, 1, 0}), "");
  EXPECT_EQ(WaitingReason(Queued(true), false, WorkerCapacity{0, 1, 0}), "") << "GPU workers compile too";
  // A PyTorch-only problem needs a GPU worker with the oracle.
  const std::string torch = WaitingReason(Queued(false), true, WorkerCapacity{2, 1, 0});
  EXPECT_NE(torch.find("needs a GPU worker with PyTorch"), std::string::npos) << torch;
  EXPECT_NE(torch.find("2 compile-only workers, 1 GPU worker without PyTorch"), std::string::npos) << torch;
  EXPECT_EQ(WaitingReason(Queued(false), true, WorkerCapacity{0, 0, 1}), "");
  EXPECT_EQ(WaitingReason(Queued(true), true, WorkerCapacity{1, 0, 0}), "") << "compiling needs no oracle";
  // Nothing connected at all.
  EXPECT_NE(WaitingReason(Queued(true), false, WorkerCapacity{}).find("no worker is connected; start a worker"),
            std::string::npos);
  EXPECT_NE(WaitingReason(Queued(false, true), false, only_compile).find("baselines-only job needs a GPU worker"),
            std::string::npos);
  v1::Job running = Queued(false);
  running.set_state(v1::RUNNING);
  EXPECT_EQ(WaitingReason(running, false, WorkerCapacity{}), "") << "only queued jobs wait";
}

class WorkerCapacityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("kjudge-capacity-" + std::to_string(getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".sqlite"))
                .string();
    Remove();
    absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(path_);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE(ApplyMigrations(**db, BuiltinMigrations()).ok());
    shared_.db = std::move(*db);
    shared_.now_ms = [this] { return now_ms_.load(); };
  }
  void TearDown() override {
    shared_.db.reset();
    Remove();
  }
  void Remove() {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + suffix);
  }
  void Register(bool compile_only, const std::string& torch) {
    v1::GpuInfo gpu;
    gpu.set_compile_only(compile_only);
    gpu.set_name(compile_only ? "" : "NVIDIA H100");
    gpu.set_arch("sm_90a");
    gpu.set_torch_version(torch);
    WorkerRegistry registry(&shared_);
    ASSERT_TRUE(registry.Register("w", gpu, "").ok());
  }

  std::string path_;
  SharedDatabase shared_;
  std::atomic<int64_t> now_ms_{1'000'000'000};  // read by the hub's thread too
};

TEST_F(WorkerCapacityTest, CountsConnectedWorkersByKindAndForgetsQuietOnes) {
  Register(true, "");
  Register(true, "");
  Register(false, "");
  Register(false, "2.5.1");
  WorkerCapacityCache cache(&shared_, std::chrono::milliseconds(0));
  absl::StatusOr<WorkerCapacity> c = cache.Get();
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->compile_only, 2);
  EXPECT_EQ(c->gpu, 1);
  EXPECT_EQ(c->gpu_torch, 1);
  // Silent for longer than the window: not connected any more.
  now_ms_ += kConnectedWindowMs + 1;
  c = cache.Get();
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->compile_only + c->gpu + c->gpu_torch, 0);
  v1::Job job = Queued(false);
  cache.Annotate(nullptr, &job);
  EXPECT_NE(job.waiting_reason().find("no worker is connected"), std::string::npos) << job.waiting_reason();
}

// An open stream as the hub sees it: counts the hub's CapacityChanged calls.
class CountingWatcher final : public Watcher {
 public:
  void Wake(RoundReads* /*reads*/, const std::vector<int64_t>& /*changed*/, bool /*positions*/) override {}
  void CapacityChanged() override { ++calls; }
  std::atomic<int> calls{0};
};

bool WaitUntil(const std::function<bool()>& ready, std::chrono::milliseconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return ready();
}

// Waiting reasons follow the workers on open streams (watch_hub.h): the hub tells its watchers
// once when it first sees the workers, never while they stay the same, and again when the only
// GPU worker falls out of the connected window, an event no RPC announces (its fallback round
// finds it). The other direction, a worker registering, is WaitingReason.AnOpenStream... in
// tests/integration/waiting_reason_test.cc.
TEST_F(WorkerCapacityTest, TheHubTellsOpenStreamsWhenTheConnectedWorkersChange) {
  Register(false, "");
  JobStore jobs(&shared_, JobStoreOptions{});
  JobEvents events;
  WorkerCapacityCache capacity(&shared_);
  auto watcher = std::make_shared<CountingWatcher>();
  WatchHub hub(&events, &jobs, StreamCaps{}, &capacity);
  ASSERT_TRUE(hub.Add("", Viewer{"", true}, watcher, {}).ok());
  events.Notify();
  ASSERT_TRUE(WaitUntil([&] { return watcher->calls.load() >= 1; }, std::chrono::seconds(5)))
      << "the first round with a watcher re-annotates it";
  const int first = watcher->calls.load();
  for (int i = 0; i < 5; ++i) {
    events.Notify();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(watcher->calls.load(), first) << "the same workers: nothing to re-annotate";
  const auto left = std::chrono::steady_clock::now();
  now_ms_ += kConnectedWindowMs + 1;  // the GPU worker stops calling in
  ASSERT_TRUE(WaitUntil([&] { return watcher->calls.load() > first; }, std::chrono::seconds(10)))
      << "a worker that left was never noticed";
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - left).count();
  EXPECT_LT(seconds, 3.0) << "noticed only after " << seconds << " s";
  hub.Remove(watcher.get());
}

}  // namespace
}  // namespace kjudge::server
