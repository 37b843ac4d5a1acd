// Open job streams hold no thread each: thousands of WatchJob streams over loopback neither
// grow the server's thread count with the stream count nor refuse service to Submit, and one
// change reaches every one of them. The stream caps answer RESOURCE_EXHAUSTED.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "tests/integration/api_client.h"

namespace kjudge::testing {
namespace {

constexpr int kStreams = 4000;
constexpr int kStreamsPerConnection = 100;
constexpr int kWatchedJobs = 400;  // ten streams per job: some sharing, mostly distinct reads

// The server's thread count, from /proc (the server is the kjudge-server listening on `address`).
int ServerThreads(const std::string& address) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string cmdline = ReadFileOrEmpty(entry.path().string() + "/cmdline");
    if (cmdline.find("kjudge-server") == std::string::npos || cmdline.find(address) == std::string::npos) continue;
    std::ifstream status(entry.path().string() + "/status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
    }
  }
  return -1;
}

// One WatchJob stream on the callback client API (no client thread per stream either).
class Watch final : public grpc::ClientReadReactor<v1::Job> {
 public:
  Watch(v1::ClientService::Stub* stub, const std::string& id, std::atomic<int>* first, std::atomic<int>* done,
        const std::string& key = "")
      : first_(first), done_(done) {
    if (!key.empty()) context_.AddMetadata("authorization", "Bearer " + key);
    request_.set_job_id(id);
    stub->async()->WatchJob(&context_, &request_, this);
    StartRead(&job_);
    StartCall();
  }
  void OnReadDone(bool ok) override {
    if (!ok) return;
    if (!got_first_) {
      got_first_ = true;
      ++*first_;
    }
    if (job_.state() == v1::DONE) ++*done_;
    StartRead(&job_);
  }
  void OnDone(const grpc::Status& status) override {
    std::lock_guard lock(mutex_);
    status_ = status;
    finished_ = true;
    cv_.notify_all();
  }
  grpc::Status Wait() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return finished_; });
    return status_;
  }
  void Cancel() { context_.TryCancel(); }

 private:
  grpc::ClientContext context_;
  v1::WatchJobRequest request_;
  v1::Job job_;
  bool got_first_ = false;
  std::atomic<int>* first_;
  std::atomic<int>* done_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool finished_ = false;
  grpc::Status status_;
};

bool WaitFor(const std::function<bool()>& ready, int timeout_s) {
  for (int i = 0; i < timeout_s * 20; ++i) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return ready();
}

double P99SubmitMs(ApiClient& client, int n) {
  std::vector<double> ms;
  ms.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const auto start = std::chrono::steady_clock::now();
    v1::SubmitResponse response;
    EXPECT_TRUE(client.Submit(ReluRequest(), &response).ok());
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[static_cast<size_t>(n * 99 / 100)];
}

TEST(Streams, ThousandsOfWatchStreamsTakeNoThreadEachAndDoNotBlockSubmit) {
  Cluster cluster("ThousandsOfWatchStreams");
  cluster.StartServer({"--submit-rate", "0"});  // auth off: one tenant, only the total cap (8192)
  ApiClient api(cluster, "");
  std::vector<std::string> watched;
  watched.reserve(kWatchedJobs);
  for (int i = 0; i < kWatchedJobs; ++i) {
    v1::SubmitResponse response;
    ASSERT_TRUE(api.Submit(ReluRequest(), &response).ok());
    watched.push_back(response.job_id());
  }
  const double idle_p99 = P99SubmitMs(api, 50);
  const int threads_before = ServerThreads(cluster.address());
  ASSERT_GT(threads_before, 0);

  // Many connections, as many clients would open them.
  std::vector<std::unique_ptr<v1::ClientService::Stub>> stubs;
  stubs.reserve(kStreams / kStreamsPerConnection);
  for (int i = 0; i < kStreams / kStreamsPerConnection; ++i) {
    grpc::ChannelArguments args;
    args.SetInt("kjudge.test.connection", i);  // distinct arguments: a connection of its own
    stubs.push_back(v1::ClientService::NewStub(
        grpc::CreateCustomChannel(cluster.address(), grpc::InsecureChannelCredentials(), args)));
  }
  std::atomic<int> first{0}, done{0};
  std::vector<std::unique_ptr<Watch>> watches;
  watches.reserve(kStreams);
  for (int i = 0; i < kStreams; ++i) {
    watches.push_back(std::make_unique<Watch>(stubs[static_cast<size_t>(i / kStreamsPerConnection)].get(),
                                              watched[static_cast<size_t>(i % kWatchedJobs)], &first, &done));
  }
  ASSERT_TRUE(WaitFor([&] { return first.load() == kStreams; }, 40))
      << first.load() << " of " << kStreams << " streams got their first message\n" << cluster.Logs();
  const int threads_open = ServerThreads(cluster.address());
  const double loaded_p99 = P99SubmitMs(api, 50);
  std::printf("server threads: %d idle, %d with %d open streams on %d jobs; p99 Submit: %.1f ms idle, %.1f ms loaded\n",
              threads_before, threads_open, kStreams, kWatchedJobs, idle_p99, loaded_p99);
  EXPECT_LT(threads_open - threads_before, 200) << "streams must not take a thread each";

  // Changes wake the streams, and each ends once its job is done.
  for (const std::string& id : watched) {
    v1::Job cancelled;
    ASSERT_TRUE(api.CancelJob(id, &cancelled).ok());
  }
  EXPECT_TRUE(WaitFor([&] { return done.load() == kStreams; }, 40)) << done.load() << " of " << kStreams;
  int ok = 0;
  for (const auto& watch : watches) ok += watch->Wait().ok() ? 1 : 0;
  EXPECT_EQ(ok, kStreams);
}

TEST(Streams, StreamCapsAnswerResourceExhausted) {
  Cluster cluster("StreamCaps");
  const std::string alice = cluster.CreateKey("submitter");
  const std::string bob = cluster.CreateKey("submitter");
  cluster.StartServer({"--require-auth", "--max-streams-per-key", "2", "--max-streams", "3"});
  ApiClient alice_api(cluster, alice), bob_api(cluster, bob);
  v1::SubmitResponse job;
  ASSERT_TRUE(alice_api.Submit(ReluRequest(), &job).ok());
  std::atomic<int> first{0}, done{0};
  std::vector<std::unique_ptr<Watch>> open;
  open.push_back(std::make_unique<Watch>(&alice_api.stub(), job.job_id(), &first, &done, alice));
  open.push_back(std::make_unique<Watch>(&alice_api.stub(), job.job_id(), &first, &done, alice));
  ASSERT_TRUE(WaitFor([&] { return first.load() == 2; }, 20));

  const auto refused = [](ApiClient& client, const std::string& id) {
    v1::WatchJobsRequest request;
    request.add_job_ids(id);
    auto context = client.Context(5000);
    auto reader = client.stub().WatchJobs(context.get(), request);
    v1::Job ignored;
    while (reader->Read(&ignored)) {
    }
    return reader->Finish();
  };
  grpc::Status per_key = refused(alice_api, job.job_id());
  EXPECT_EQ(per_key.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(per_key.error_message().find("the limit is 2"), std::string::npos) << per_key.error_message();

  v1::SubmitResponse bobs;
  ASSERT_TRUE(bob_api.Submit(ReluRequest(), &bobs).ok());
  open.push_back(std::make_unique<Watch>(&bob_api.stub(), bobs.job_id(), &first, &done, bob));
  ASSERT_TRUE(WaitFor([&] { return first.load() == 3; }, 20));
  grpc::Status total = refused(bob_api, bobs.job_id());
  EXPECT_EQ(total.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(total.error_message().find("open job streams, its limit"), std::string::npos) << total.error_message();

  // A closed stream frees its slot.
  open.front()->Cancel();
  EXPECT_EQ(open.front()->Wait().error_code(), grpc::StatusCode::CANCELLED);
  v1::Job cancelled;
  ASSERT_TRUE(bob_api.CancelJob(bobs.job_id(), &cancelled).ok());
  EXPECT_TRUE(WaitFor([&] { return done.load() >= 1; }, 20)) << "bob's open stream sees his job end";
  // The server frees the slot once the call is done on its side, a moment after the client.
  EXPECT_TRUE(WaitFor([&] {
    std::vector<v1::Job> seen;
    return bob_api.WatchJobs({bobs.job_id()}, &seen, 5000).ok() && !seen.empty() && seen.back().state() == v1::DONE;
  }, 10)) << "a closed stream must free its slot";
  for (const auto& watch : open) watch->Cancel();
  for (const auto& watch : open) watch->Wait();
}

}  // namespace
}  // namespace kjudge::testing
