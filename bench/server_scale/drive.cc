// kjudge-bench-server-scale drive: client threads and fake GPU workers against a running
// kjudge-server (server_scale.h has the phases).
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/server_scale/server_scale.h"
#include "common/sample_statistics.h"
#include "kjudge/v1/kjudge.grpc.pb.h"

namespace kjudge::bench {
namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// Latencies and counts of one RPC kind, merged from every thread.
struct Tally {
  std::mutex mutex;
  std::vector<double> ms;
  int64_t failed = 0;
  std::string first_error;

  void Add(double latency_ms, const grpc::Status& status) {
    std::lock_guard lock(mutex);
    if (status.ok()) {
      ms.push_back(latency_ms);
      return;
    }
    if (failed++ == 0) first_error = absl::StrCat(status.error_code(), " ", status.error_message().substr(0, 200));
  }
  std::string Summary(const char* what, double seconds) {
    std::lock_guard lock(mutex);
    std::vector<double> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    const double p50 = sorted.empty() ? 0 : PercentileOfSorted(sorted, 50);
    const double p99 = sorted.empty() ? 0 : PercentileOfSorted(sorted, 99);
    std::string line = absl::StrCat(what, " ", sorted.size(), " (", absl::StrFormat("%.1f", sorted.size() / seconds),
                                     "/s, p50 ", absl::StrFormat("%.1f", p50), " ms, p99 ",
                                     absl::StrFormat("%.1f", p99), " ms)");
    if (failed > 0) absl::StrAppend(&line, " ", failed, " failed, first: ", first_error);
    return line;
  }
  int64_t Failed() {
    std::lock_guard lock(mutex);
    return failed;
  }
  double Rate(double seconds) {
    std::lock_guard lock(mutex);
    return static_cast<double>(ms.size()) / seconds;
  }
};

// The server's user + system CPU seconds so far (0 when not measured).
double ServerCpuSeconds(int pid) {
  if (pid <= 0) return 0;
  std::ifstream in(absl::StrCat("/proc/", pid, "/stat"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14 || i == 15) ticks += std::stod(field);  // utime, stime
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

std::unique_ptr<grpc::ClientContext> Context(const std::string& key) {
  auto context = std::make_unique<grpc::ClientContext>();
  if (!key.empty()) context->AddMetadata("authorization", "Bearer " + key);
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  return context;
}

struct Tallies {
  Tally submit, lease, progress, complete;
  std::atomic<int64_t> empty_leases{0};
};

void SubmitLoop(const DriveOptions& options, const std::shared_ptr<grpc::Channel>& channel,
                const std::atomic<bool>& stop, std::atomic<int64_t>* counter, Tallies* tallies) {
  auto stub = v1::ClientService::NewStub(channel);
  while (!stop.load()) {
    v1::SubmitRequest request;
    request.set_problem(options.problem);
    request.set_source(absl::StrCat(options.source, "\n// bench ", counter->fetch_add(1), "\n"));
    request.set_filename("bench.cu");
    v1::SubmitResponse response;
    const auto start = Clock::now();
    grpc::Status status = stub->Submit(Context(options.submit_key).get(), request, &response);
    tallies->submit.Add(Ms(Clock::now() - start), status);
  }
}

// What a GPU runner returns for a CORRECT job: three timed shapes with their samples.
v1::JobResult CorrectResult(int samples_per_shape) {
  v1::JobResult result;
  result.set_verdict(v1::CORRECT);
  result.set_message("correct on 3 test shapes (bench)");
  for (const char* shape : {"M=1024,N=1024", "M=4096,N=4096", "M=8192,N=8192"}) {
    v1::ShapeTiming* timing = result.add_timings();
    timing->set_shape(shape);
    v1::Timing* t = timing->mutable_timing();
    t->set_median_us(12.5);
    t->set_mean_us(12.7);
    t->set_p50_us(12.5);
    t->set_p95_us(13.9);
    t->set_samples(samples_per_shape);
    for (int i = 0; i < samples_per_shape; ++i) t->add_samples_us(12.0F + static_cast<float>(i % 17) * 0.1F);
  }
  return result;
}

class FakeWorker {
 public:
  FakeWorker(const DriveOptions& options, const std::shared_ptr<grpc::Channel>& channel, int index)
      : options_(options), stub_(v1::WorkerService::NewStub(channel)), result_(CorrectResult(options.samples_per_shape)) {
    v1::RegisterWorkerRequest request;
    request.set_name(absl::StrCat("bench:", index));
    request.mutable_gpu()->set_name("NVIDIA H200 (bench)");
    request.mutable_gpu()->set_arch("sm_90a");
    request.mutable_gpu()->set_device_index(index);
    v1::RegisterWorkerResponse response;
    status_ = stub_->RegisterWorker(Context(options.worker_key).get(), request, &response);
    id_ = response.worker_id();
  }
  const grpc::Status& status() const { return status_; }

  // One lease -> progress -> complete cycle; false when the lease came back empty.
  bool Cycle(Tallies* tallies) {
    v1::LeaseJobRequest lease;
    lease.set_worker_id(id_);
    lease.set_wait_ms(500);
    v1::LeaseJobResponse leased;
    auto start = Clock::now();
    grpc::Status status = stub_->LeaseJob(Context(options_.worker_key).get(), lease, &leased);
    if (status.ok() && !leased.has_job()) {
      tallies->empty_leases.fetch_add(1);
      return false;
    }
    tallies->lease.Add(Ms(Clock::now() - start), status);
    if (!status.ok()) return false;
    const v1::Stage stages[] = {v1::STAGE_COMPILING, v1::STAGE_CHECKING, v1::STAGE_TIMING, v1::STAGE_TIMING};
    for (int i = 0; i < options_.progress_reports; ++i) {
      v1::ReportProgressRequest progress;
      progress.set_worker_id(id_);
      progress.set_job_id(leased.spec().job_id());
      progress.set_lease_token(leased.lease_token());
      progress.set_stage(stages[i % 4]);
      progress.set_done(i);
      progress.set_total(options_.progress_reports);
      v1::ReportProgressResponse answer;
      start = Clock::now();
      status = stub_->ReportProgress(Context(options_.worker_key).get(), progress, &answer);
      tallies->progress.Add(Ms(Clock::now() - start), status);
    }
    v1::CompleteJobRequest complete;
    complete.set_worker_id(id_);
    complete.set_job_id(leased.spec().job_id());
    complete.set_lease_token(leased.lease_token());
    *complete.mutable_result() = result_;
    v1::CompleteJobResponse done;
    start = Clock::now();
    status = stub_->CompleteJob(Context(options_.worker_key).get(), complete, &done);
    if (status.ok() && !done.accepted()) status = grpc::Status(grpc::StatusCode::ABORTED, "result not accepted");
    tallies->complete.Add(Ms(Clock::now() - start), status);
    return true;
  }

 private:
  const DriveOptions& options_;
  std::unique_ptr<v1::WorkerService::Stub> stub_;
  v1::JobResult result_;
  grpc::Status status_;
  std::string id_;
};

// Runs `clients` submitters and/or the workers until `seconds` pass (drain: workers stop at
// the first empty lease instead); prints the phase's line.
struct PhaseRates {
  double submits = 0, completes = 0;  // per second
  int64_t failed = 0;                 // RPCs of any kind
};
PhaseRates RunPhase(const char* name, const DriveOptions& options, const std::vector<std::shared_ptr<grpc::Channel>>& channels,
                std::vector<std::unique_ptr<FakeWorker>>* workers, bool submit, bool work,
                std::atomic<int64_t>* counter) {
  Tallies tallies;
  std::atomic<bool> stop{false};
  const double cpu_before = ServerCpuSeconds(options.pid);
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int i = 0; submit && i < options.clients; ++i) {
    threads.emplace_back(SubmitLoop, std::cref(options), channels[i % channels.size()], std::cref(stop), counter,
                         &tallies);
  }
  for (size_t i = 0; work && i < workers->size(); ++i) {
    threads.emplace_back([&, i] {
      while (!stop.load()) {
        if (!(*workers)[i]->Cycle(&tallies) && options.drain) return;
      }
    });
  }
  if (options.drain) {
    for (std::thread& t : threads) t.join();
    threads.clear();
  } else {
    std::this_thread::sleep_for(std::chrono::duration<double>(options.seconds));
  }
  stop = true;
  for (std::thread& t : threads) t.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const double cpu = ServerCpuSeconds(options.pid) - cpu_before;
  std::printf("phase %-6s %6.1f s:", name, seconds);
  if (submit) std::printf(" %s;", tallies.submit.Summary("submits", seconds).c_str());
  if (work) {
    std::printf(" %s; %s; %s; %lld empty lease polls;", tallies.lease.Summary("leases", seconds).c_str(),
                tallies.progress.Summary("progress reports", seconds).c_str(),
                tallies.complete.Summary("completes", seconds).c_str(),
                static_cast<long long>(tallies.empty_leases.load()));
  }
  if (options.pid > 0) std::printf(" server CPU %.2f cores", cpu / seconds);
  std::printf("\n");
  std::fflush(stdout);
  return {tallies.submit.Rate(seconds), tallies.complete.Rate(seconds),
          tallies.submit.Failed() + tallies.lease.Failed() + tallies.progress.Failed() + tallies.complete.Failed()};
}

// A phase that lost RPCs, or a work phase that judged nothing, makes the run fail (CI's smoke).
absl::Status Check(const char* phase, const PhaseRates& rates, bool work) {
  if (rates.failed > 0) return absl::InternalError(absl::StrCat(phase, ": ", rates.failed, " RPCs failed (above)"));
  if (work && rates.completes <= 0) return absl::InternalError(absl::StrCat(phase, ": no job completed"));
  return absl::OkStatus();
}

}  // namespace

absl::Status Drive(const DriveOptions& options) {
  // A few channels (HTTP/2 connections), as several client processes would open.
  std::vector<std::shared_ptr<grpc::Channel>> channels;
  for (int i = 0; i < std::max(1, std::min(options.clients, 8)); ++i) {
    grpc::ChannelArguments args;
    args.SetInt("grpc.channel_id", i);  // distinct arguments: distinct connections
    channels.push_back(grpc::CreateCustomChannel(options.server, grpc::InsecureChannelCredentials(), args));
  }
  std::vector<std::unique_ptr<FakeWorker>> workers;
  for (int i = 0; i < options.workers; ++i) {
    workers.push_back(std::make_unique<FakeWorker>(options, channels[i % channels.size()], i));
    if (!workers.back()->status().ok()) {
      return absl::UnavailableError(absl::StrCat("RegisterWorker: ", workers.back()->status().error_message()));
    }
  }
  std::atomic<int64_t> counter{static_cast<int64_t>(Clock::now().time_since_epoch().count())};
  if (options.drain) {
    DriveOptions timed = options;
    timed.drain = false;
    const PhaseRates submitted = RunPhase("submit", timed, channels, &workers, true, false, &counter);
    if (absl::Status s = Check("submit", submitted, false); !s.ok()) return s;
    return Check("drain", RunPhase("drain", options, channels, &workers, false, true, &counter), true);
  }
  const PhaseRates submitted = RunPhase("submit", options, channels, &workers, true, false, &counter);
  if (absl::Status s = Check("submit", submitted, false); !s.ok()) return s;
  const PhaseRates worked = RunPhase("work", options, channels, &workers, false, true, &counter);
  if (absl::Status s = Check("work", worked, true); !s.ok()) return s;
  const PhaseRates mixed = RunPhase("mixed", options, channels, &workers, true, true, &counter);
  // A verdict takes a submit and a complete: the server sustains the smaller of the two rates.
  const double verdicts = std::min(mixed.submits, mixed.completes);
  std::printf("mixed phase: %.1f verdicts/s = %.0f GPUs at 6,000 verdicts/h/GPU, %.0f GPUs at 15,000\n", verdicts,
              verdicts * 3600 / 6000, verdicts * 3600 / 15000);
  if (absl::Status s = Check("mixed", mixed, true); !s.ok()) return s;
  return absl::OkStatus();
}

}  // namespace kjudge::bench
