// Issue 27 point 4: a queued job's waiting_reason follows the connected workers on streams that
// are already open. A GPU job watched while only a compile-only worker is connected says why it
// waits; once a GPU worker registers, the open stream sends the job again with the reason
// cleared, within 2 s, though the job itself did not change. Real server over loopback, workers
// registered through the generated WorkerService stub.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "tests/integration/api_client.h"
#include "tests/integration/stub_worker.h"

namespace kjudge::testing {
namespace {

// A WatchJob stream read on its own thread; every message kept with its arrival time.
class StreamLog {
 public:
  StreamLog(ApiClient* api, const std::string& id) : context_(api->Context(60000)) {
    v1::WatchJobRequest request;
    request.set_job_id(id);
    reader_ = api->stub().WatchJob(context_.get(), request);
    thread_ = std::thread([this] {
      v1::Job job;
      while (reader_->Read(&job)) {
        std::lock_guard lock(mutex_);
        seen_.push_back({std::chrono::steady_clock::now(), job});
        cv_.notify_all();
      }
      status_ = reader_->Finish();
    });
  }
  ~StreamLog() {
    context_->TryCancel();
    thread_.join();
  }
  // The first message after index `from` that `match` accepts, waiting up to `timeout`; its
  // arrival time, or nullopt.
  std::optional<std::pair<std::chrono::steady_clock::time_point, v1::Job>> WaitFor(
      size_t from, const std::function<bool(const v1::Job&)>& match, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    std::optional<std::pair<std::chrono::steady_clock::time_point, v1::Job>> found;
    cv_.wait_for(lock, timeout, [&] {
      for (size_t i = from; i < seen_.size(); ++i) {
        if (match(seen_[i].second)) {
          found = seen_[i];
          return true;
        }
      }
      return false;
    });
    return found;
  }
  size_t size() {
    std::lock_guard lock(mutex_);
    return seen_.size();
  }

 private:
  std::unique_ptr<grpc::ClientContext> context_;
  std::unique_ptr<grpc::ClientReader<v1::Job>> reader_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<std::pair<std::chrono::steady_clock::time_point, v1::Job>> seen_;
  grpc::Status status_;
  std::thread thread_;
};

TEST(WaitingReason, AnOpenStreamLearnsThatAGpuWorkerConnectedWithin2s) {
  Cluster cluster("WaitingReasonFollowsWorkers");
  const std::string submitter = cluster.CreateKey("submitter");
  const std::string worker_key = cluster.CreateKey("worker");
  cluster.StartServer({"--require-auth"});
  ApiClient api(cluster, submitter);
  StubWorker compile_only(cluster, worker_key, /*compile_only=*/true);
  ASSERT_FALSE(compile_only.id().empty());

  v1::SubmitRequest gpu_job = ReluRequest();
  gpu_job.set_compile_only(false);  // only a GPU worker can judge it
  v1::SubmitResponse submitted;
  ASSERT_TRUE(api.Submit(gpu_job, &submitted).ok());

  StreamLog stream(&api, submitted.job_id());
  const auto waiting = stream.WaitFor(
      0, [](const v1::Job& job) { return job.state() == v1::QUEUED; }, std::chrono::seconds(10));
  ASSERT_TRUE(waiting.has_value()) << cluster.Logs();
  EXPECT_EQ(waiting->second.waiting_reason(),
            "no connected worker can judge this job: 1 compile-only worker; submit with --compile-only or start a "
            "GPU worker");
  const size_t before = stream.size();

  const auto connected_at = std::chrono::steady_clock::now();
  StubWorker gpu(cluster, worker_key, /*compile_only=*/false);
  ASSERT_FALSE(gpu.id().empty());
  const auto cleared = stream.WaitFor(
      before, [](const v1::Job& job) { return job.state() == v1::QUEUED && job.waiting_reason().empty(); },
      std::chrono::seconds(10));
  ASSERT_TRUE(cleared.has_value()) << "the open stream never learnt that a GPU worker connected\n" << cluster.Logs();
  const double seconds = std::chrono::duration<double>(cleared->first - connected_at).count();
  EXPECT_LT(seconds, 2.0) << "the reason was cleared " << seconds << " s after the GPU worker registered";

  v1::Job cancelled;
  ASSERT_TRUE(api.CancelJob(submitted.job_id(), &cancelled).ok());
  EXPECT_TRUE(stream.WaitFor(
                        before, [](const v1::Job& job) { return job.state() == v1::DONE; }, std::chrono::seconds(10))
                  .has_value());
}

}  // namespace
}  // namespace kjudge::testing
