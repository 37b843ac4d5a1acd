// kjudge-bench-watch-fairness: what one tenant's watches cost another tenant (issue 25).
//
// Tenant A submits N GPU jobs that stay queued (the only worker here is this program's stub
// compile-only worker, which is never offered them) and watches all of them on WatchJobs
// streams of 1,000 ids each. Tenant B, meanwhile, submits compile-only jobs one at a time,
// watches each with WatchJob, and the stub worker leases and completes it. Printed, once before
// A's streams open and once while they are open:
//   * B's notification latency p50/p99/max: from just before CompleteJob is sent to B's
//     watcher reading DONE (so the CompleteJob call itself is included),
//   * the server's CPU use over B's rounds (utime + stime of --server-pid from /proc),
// and once more while A cancels one of its watched jobs per round (its own queue moving, so
// each of its streams re-ranks and sends up to 1,000 new positions a round).
// The figure: 5 streams over 1,000 queued jobs each delayed B's DONE from 6 ms to
// 2.6 s median, server CPU 5% -> 62%; the target is 50 ms p99.
// A benchmark, not a test: it prints numbers. bench/watch_fairness/run.sh starts the server.
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <future>
#include <mutex>
#include <sstream>
#include <thread>

#include "CLI/CLI.hpp"
#include "common/sample_statistics.h"
#include "kjudge/v1/kjudge.grpc.pb.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace v1 = kjudge::v1;

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  return kjudge::PercentileOfSorted(values, p);  // the judge's own rule (numpy's default)
}

// CPU seconds (user + system) the process has used so far; -1 when unreadable.
double CpuSeconds(int pid) {
  if (pid <= 0) return -1;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos) return -1;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; fields >> field; ++i) {  // field 3 is the state; 14 utime, 15 stime
    if (i == 14 || i == 15) ticks += std::stod(field);
    if (i == 15) break;
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

std::unique_ptr<grpc::ClientContext> Context(const std::string& key, int seconds = 60) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->AddMetadata("authorization", "Bearer " + key);
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(seconds));
  return context;
}

// A WatchJobs stream on the callback API that counts the updates it gets.
class WatchMany final : public grpc::ClientReadReactor<v1::Job> {
 public:
  WatchMany(v1::ClientService::Stub* stub, const std::vector<std::string>& ids, const std::string& key,
            std::atomic<int>* updates)
      : updates_(updates) {
    context_.AddMetadata("authorization", "Bearer " + key);
    for (const std::string& id : ids) request_.add_job_ids(id);
    stub->async()->WatchJobs(&context_, &request_, this);
    StartRead(&job_);
    StartCall();
  }
  void OnReadDone(bool ok) override {
    if (!ok) return;
    ++*updates_;
    StartRead(&job_);
  }
  void OnDone(const grpc::Status& status) override {
    std::lock_guard lock(mutex_);
    status_ = status;
    done_ = true;
    cv_.notify_all();
  }
  grpc::Status CancelAndWait() {
    context_.TryCancel();
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return done_; });
    return status_;
  }

 private:
  grpc::ClientContext context_;
  v1::WatchJobsRequest request_;
  v1::Job job_;
  std::atomic<int>* updates_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  grpc::Status status_;
};

struct Setup {
  std::unique_ptr<v1::ClientService::Stub> clients;
  std::unique_ptr<v1::WorkerService::Stub> workers;
  std::string key_a, key_b, worker_key, worker_id;
  std::string source;
  int server_pid = 0;
};

struct RoundsResult {
  std::vector<double> ms;
  double cpu_percent = -1;
  int failures = 0;
};

// `rounds` of: B submits and watches a compile-only job, the stub worker leases and completes
// it; the latency of each DONE and the server's CPU over them. With `churn`, A cancels its
// oldest watched job just before each completion, so every later job of A's moves up one place
// and A's streams re-rank (A's own queue moving: its cost, measured on B's latency).
RoundsResult RunRounds(Setup& setup, int rounds, std::vector<std::string>* churn = nullptr) {
  RoundsResult result;
  const double cpu_before = CpuSeconds(setup.server_pid);
  const auto wall_before = Clock::now();
  for (int round = 0; round < rounds; ++round) {
    v1::SubmitRequest request;
    request.set_problem("level1/19_ReLU");
    request.set_source(setup.source);
    request.set_filename("solution.cu");
    request.set_compile_only(true);
    v1::SubmitResponse submitted;
    if (grpc::Status s = setup.clients->Submit(Context(setup.key_b).get(), request, &submitted); !s.ok()) {
      std::fprintf(stderr, "B's submit failed: %s\n", s.error_message().c_str());
      ++result.failures;
      continue;
    }
    std::promise<void> opened;
    std::promise<Clock::time_point> done_at;
    std::thread reader([&] {
      v1::WatchJobRequest watch;
      watch.set_job_id(submitted.job_id());
      auto context = Context(setup.key_b, 30);
      auto stream = setup.clients->WatchJob(context.get(), watch);
      v1::Job seen;
      bool first = true, done = false;
      while (stream->Read(&seen)) {
        if (first) opened.set_value();
        first = false;
        if (seen.state() == v1::DONE && !done) {
          done = true;
          done_at.set_value(Clock::now());
        }
      }
      if (first) opened.set_value();
      if (!done) done_at.set_value(Clock::time_point::max());
      stream->Finish();
    });
    opened.get_future().wait();
    v1::LeaseJobRequest lease_request;
    lease_request.set_worker_id(setup.worker_id);
    lease_request.set_wait_ms(5000);
    v1::LeaseJobResponse lease;
    grpc::Status leased = setup.workers->LeaseJob(Context(setup.worker_key).get(), lease_request, &lease);
    if (!leased.ok() || !lease.has_job() || lease.spec().job_id() != submitted.job_id()) {
      std::fprintf(stderr, "the stub worker did not lease B's job %s: %s\n", submitted.job_id().c_str(),
                   leased.error_message().c_str());
      ++result.failures;
      v1::CancelJobRequest cancel;
      cancel.set_job_id(submitted.job_id());
      v1::Job ignored;
      (void)setup.clients->CancelJob(Context(setup.key_b).get(), cancel, &ignored);
      reader.join();
      continue;
    }
    v1::CompleteJobRequest complete;
    complete.set_worker_id(setup.worker_id);
    complete.set_job_id(lease.spec().job_id());
    complete.set_lease_token(lease.lease_token());
    complete.mutable_result()->set_verdict(v1::COMPILED);
    v1::CompleteJobResponse completed;
    if (churn != nullptr && !churn->empty()) {
      v1::CancelJobRequest cancel;
      cancel.set_job_id(churn->front());
      churn->erase(churn->begin());
      v1::Job ignored;
      (void)setup.clients->CancelJob(Context(setup.key_a).get(), cancel, &ignored);
    }
    const auto sent = Clock::now();
    grpc::Status status = setup.workers->CompleteJob(Context(setup.worker_key).get(), complete, &completed);
    const Clock::time_point arrived = done_at.get_future().get();
    reader.join();
    if (!status.ok() || !completed.accepted() || arrived == Clock::time_point::max()) {
      ++result.failures;
      continue;
    }
    result.ms.push_back(std::chrono::duration<double, std::milli>(arrived - sent).count());
  }
  const double cpu_after = CpuSeconds(setup.server_pid);
  const double wall = std::chrono::duration<double>(Clock::now() - wall_before).count();
  if (cpu_before >= 0 && cpu_after >= 0 && wall > 0) result.cpu_percent = 100.0 * (cpu_after - cpu_before) / wall;
  return result;
}

// The server's CPU use over `seconds` in which this program does nothing.
void PrintIdleCpu(const char* what, int pid, int seconds) {
  const double before = CpuSeconds(pid);
  std::this_thread::sleep_for(std::chrono::seconds(seconds));
  const double after = CpuSeconds(pid);
  std::printf("%-44s server CPU %5.1f%% over %d s\n", what, before < 0 || after < 0 ? -1.0 : 100.0 * (after - before) / seconds,
              seconds);
}

void Print(const char* what, const RoundsResult& r) {
  std::printf("%-44s p50 %8.2f ms  p99 %8.2f ms  max %8.2f ms  (n=%zu, %d failed)  server CPU %5.1f%%\n", what,
              Percentile(r.ms, 50), Percentile(r.ms, 99), r.ms.empty() ? 0.0 : *std::max_element(r.ms.begin(), r.ms.end()),
              r.ms.size(), r.failures, r.cpu_percent);
}

// A's `count` GPU jobs, in batches of 100; their ids.
std::vector<std::string> SubmitQueued(Setup& setup, int count) {
  std::vector<std::string> ids;
  v1::SubmitRequest request;
  request.set_problem("level1/19_ReLU");
  request.set_source(setup.source);
  request.set_filename("solution.cu");
  while (static_cast<int>(ids.size()) < count) {
    v1::SubmitBatchRequest batch;
    for (int i = 0; i < 100 && static_cast<int>(ids.size()) + i < count; ++i) *batch.add_requests() = request;
    v1::SubmitBatchResponse response;
    if (grpc::Status s = setup.clients->SubmitBatch(Context(setup.key_a).get(), batch, &response); !s.ok()) {
      std::fprintf(stderr, "A's batch failed: %s\n", s.error_message().c_str());
      return ids;
    }
    for (const v1::SubmitBatchItem& item : response.items()) {
      if (item.job_id().empty()) {
        std::fprintf(stderr, "A's submission refused: %s\n", item.error().c_str());
        return ids;
      }
      ids.push_back(item.job_id());
    }
  }
  return ids;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kjudge-bench-watch-fairness: another tenant's DONE latency while one tenant watches its queue"};
  std::string server, keys_file, source_path;
  int watched = 5000, rounds = 100, server_pid = 0;
  app.add_option("--server", server, "host:port")->required();
  app.add_option("--keys-file", keys_file, "three lines: tenant A's key, tenant B's key, a worker key")->required();
  app.add_option("--source", source_path, "a ReLU solution (.cu with a launch plan)")->required();
  app.add_option("--watched", watched, "A's queued jobs, all watched (streams of 1,000)")->capture_default_str();
  app.add_option("--rounds", rounds, "B's jobs per measurement")->capture_default_str();
  app.add_option("--server-pid", server_pid, "the server's process id, for its CPU use");
  CLI11_PARSE(app, argc, argv);

  Setup setup;
  setup.server_pid = server_pid;
  {
    std::ifstream keys(keys_file);
    std::getline(keys, setup.key_a);
    std::getline(keys, setup.key_b);
    std::getline(keys, setup.worker_key);
    std::ifstream source(source_path);
    setup.source.assign(std::istreambuf_iterator<char>(source), std::istreambuf_iterator<char>());
  }
  if (setup.worker_key.empty() || setup.source.empty()) {
    std::fprintf(stderr, "need three keys in %s and a source in %s\n", keys_file.c_str(), source_path.c_str());
    return 2;
  }
  auto channel = grpc::CreateChannel(server, grpc::InsecureChannelCredentials());
  setup.clients = v1::ClientService::NewStub(channel);
  setup.workers = v1::WorkerService::NewStub(channel);
  {
    v1::RegisterWorkerRequest request;
    request.set_name("bench-stub");
    request.mutable_gpu()->set_compile_only(true);  // never offered A's GPU jobs
    v1::RegisterWorkerResponse response;
    if (grpc::Status s = setup.workers->RegisterWorker(Context(setup.worker_key).get(), request, &response); !s.ok()) {
      std::fprintf(stderr, "register failed: %s\n", s.error_message().c_str());
      return 1;
    }
    setup.worker_id = response.worker_id();
  }

  const auto submit_start = Clock::now();
  const std::vector<std::string> ids = SubmitQueued(setup, watched);
  std::printf("tenant A: %zu queued GPU jobs submitted in %.1f s\n", ids.size(),
              std::chrono::duration<double>(Clock::now() - submit_start).count());
  PrintIdleCpu("idle, A watching nothing:", server_pid, 3);
  Print("B's DONE, A watching nothing:", RunRounds(setup, rounds));

  std::atomic<int> updates{0};
  std::vector<std::unique_ptr<WatchMany>> streams;
  const auto open_start = Clock::now();
  for (size_t first = 0; first < ids.size(); first += 1000) {
    const size_t last = std::min(ids.size(), first + 1000);
    streams.push_back(std::make_unique<WatchMany>(
        setup.clients.get(), std::vector<std::string>(ids.begin() + static_cast<std::ptrdiff_t>(first),
                                                      ids.begin() + static_cast<std::ptrdiff_t>(last)),
        setup.key_a, &updates));
  }
  while (updates.load() < static_cast<int>(ids.size()) && Clock::now() - open_start < std::chrono::seconds(120)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::printf("tenant A: %zu streams over %zu jobs, first states in %.2f s\n", streams.size(), ids.size(),
              std::chrono::duration<double>(Clock::now() - open_start).count());
  char label[96];
  std::snprintf(label, sizeof(label), "idle, A watching %zu queued jobs:", ids.size());
  PrintIdleCpu(label, server_pid, 3);
  const int before = updates.load();
  std::snprintf(label, sizeof(label), "B's DONE, A watching %zu queued jobs:", ids.size());
  Print(label, RunRounds(setup, rounds));
  std::printf("tenant A: %d updates on its streams while B's jobs ran (its own jobs did not change)\n",
              updates.load() - before);
  std::vector<std::string> churn(ids.begin(), ids.end());
  const int churn_before = updates.load();
  std::snprintf(label, sizeof(label), "B's DONE, A cancelling 1 of %zu a round:", ids.size());
  Print(label, RunRounds(setup, rounds, &churn));
  std::printf("tenant A: %d updates on its streams while it cancelled %d of its jobs (positions moving)\n",
              updates.load() - churn_before, rounds);
  for (const auto& stream : streams) stream->CancelAndWait();
  return 0;
}
