// kjudge-bench-streams: what many open WatchJob streams cost a running kjudge-server.
//
// Opens N WatchJob streams (spread over several connections, each under the server's
// --max-streams-per-connection, and over the API keys given, each watching a compile-only job
// of its own key that stays queued because no worker runs), and prints:
//   * Submit latency p50/p99 with no stream open, and again while the N streams are open,
//   * the server's thread count (/proc/PID/task) before, with the streams open, and after,
//   * how many streams opened and how many the server refused (and why).
// A benchmark, not a test: it prints numbers. bench/streams/run.sh starts the server and keys.
#include <dirent.h>
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
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

int ThreadCount(int pid) {
  if (pid <= 0) return -1;
  DIR* dir = opendir(("/proc/" + std::to_string(pid) + "/task").c_str());
  if (dir == nullptr) return -1;
  int count = 0;
  while (const dirent* entry = readdir(dir)) count += entry->d_name[0] != '.';
  closedir(dir);
  return count;
}

std::shared_ptr<grpc::Channel> OwnConnection(const std::string& server) {
  grpc::ChannelArguments args;
  // Without it, channels to one address share one connection (and its stream cap).
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return grpc::CreateCustomChannel(server, grpc::InsecureChannelCredentials(), args);
}

void Authorize(grpc::ClientContext* context, const std::string& key) {
  if (!key.empty()) context->AddMetadata("authorization", "Bearer " + key);
}

struct Submitter {
  std::unique_ptr<v1::ClientService::Stub> stub;
  std::string key;
  v1::SubmitRequest request;

  // One Submit; its latency in ms, or a negative value (and a message) when it failed.
  double Once(std::string* job_id) {
    grpc::ClientContext context;
    Authorize(&context, key);
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    v1::SubmitResponse response;
    const auto start = Clock::now();
    const grpc::Status status = stub->Submit(&context, request, &response);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    if (!status.ok()) {
      std::fprintf(stderr, "submit failed: %s\n", status.error_message().c_str());
      return -1;
    }
    if (job_id != nullptr) *job_id = response.job_id();
    return ms;
  }

  std::vector<double> Latencies(int count) {
    std::vector<double> ms;
    ms.reserve(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) {
      const double one = Once(nullptr);
      if (one >= 0) ms.push_back(one);
    }
    return ms;
  }
};

// One WatchJob stream driven by the completion queue; the stream itself is the tag (one
// operation in flight at a time).
struct Stream {
  enum Stage { kStarting, kReading, kFinishing, kDone };
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientAsyncReader<v1::Job>> reader;
  v1::Job job;
  grpc::Status status;
  Stage stage = kStarting;
  bool established = false;  // got its first update
};

struct StreamCounts {
  std::atomic<int> established{0};
  std::atomic<int> finished{0};
  std::mutex mutex;
  std::map<std::string, int> refusals;  // status message -> count, for streams that never opened
};

void Drive(grpc::CompletionQueue* queue, StreamCounts* counts) {
  void* tag = nullptr;
  bool ok = false;
  while (queue->Next(&tag, &ok)) {
    Stream* stream = static_cast<Stream*>(tag);
    if (stream->stage == Stream::kFinishing) {
      stream->stage = Stream::kDone;
      if (!stream->established) {
        const std::lock_guard<std::mutex> lock(counts->mutex);
        ++counts->refusals[std::to_string(stream->status.error_code()) + " " + stream->status.error_message()];
      }
      ++counts->finished;
      continue;
    }
    if (ok && stream->stage == Stream::kReading && !stream->established) {
      stream->established = true;
      ++counts->established;
    }
    if (ok) {
      stream->stage = Stream::kReading;
      stream->reader->Read(&stream->job, stream);
    } else {
      stream->stage = Stream::kFinishing;
      stream->reader->Finish(&stream->status, stream);
    }
  }
}

void PrintLatency(const char* what, const std::vector<double>& ms) {
  std::printf("%-34s p50 %8.2f ms   p99 %8.2f ms   max %8.2f ms   (n=%zu)\n", what, Percentile(ms, 50),
              Percentile(ms, 99), ms.empty() ? 0.0 : *std::max_element(ms.begin(), ms.end()), ms.size());
}

std::vector<std::string> ReadKeys(const std::string& path) {
  std::vector<std::string> keys;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) keys.push_back(line);
  }
  if (keys.empty()) keys.emplace_back();  // no auth
  return keys;
}

}  // namespace

int main(int argc, char** argv) {
  std::string server = "127.0.0.1:50051";
  std::string source_file;
  std::string keys_file;
  std::string problem = "level1/19_ReLU";
  int streams = 4000;
  int per_connection = 500;
  int submits = 200;
  int server_pid = 0;
  double open_timeout_s = 120;
  CLI::App app{"kjudge-bench-streams: Submit latency and server threads with many WatchJob streams open"};
  app.add_option("--server", server)->capture_default_str();
  app.add_option("--source", source_file, "a .cu submission with a kjudge-plan block")->required();
  app.add_option("--problem", problem)->capture_default_str();
  app.add_option("--keys-file", keys_file, "API keys (submitter), one a line; streams are spread over them");
  app.add_option("--streams", streams)->capture_default_str();
  app.add_option("--streams-per-connection", per_connection)->capture_default_str();
  app.add_option("--submits", submits, "Submit calls measured idle and again with the streams open")
      ->capture_default_str();
  app.add_option("--server-pid", server_pid, "to count the server's threads (/proc/PID/task)");
  app.add_option("--open-timeout-s", open_timeout_s)->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  std::ifstream in(source_file);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::vector<std::string> keys = keys_file.empty() ? std::vector<std::string>{""} : ReadKeys(keys_file);
  v1::SubmitRequest request;
  request.set_problem(problem);
  request.set_source(buffer.str());
  request.set_compile_only(true);
  request.set_filename("bench.cu");

  // One queued job per key to watch (no worker runs, so it stays queued).
  std::vector<std::string> watched(keys.size());
  for (size_t k = 0; k < keys.size(); ++k) {
    Submitter hold{v1::ClientService::NewStub(OwnConnection(server)), keys[k], request};
    if (hold.Once(&watched[k]) < 0) return 3;
  }
  Submitter submitter{v1::ClientService::NewStub(OwnConnection(server)), keys.front(), request};
  const int threads_before = ThreadCount(server_pid);
  submitter.Latencies(20);  // warm-up
  const std::vector<double> idle = submitter.Latencies(submits);

  const int connections = std::max(1, (streams + per_connection - 1) / per_connection);
  std::vector<std::unique_ptr<v1::ClientService::Stub>> stubs;
  stubs.reserve(static_cast<size_t>(connections));
  for (int c = 0; c < connections; ++c) stubs.push_back(v1::ClientService::NewStub(OwnConnection(server)));
  grpc::CompletionQueue queue;
  StreamCounts counts;
  std::thread driver(Drive, &queue, &counts);
  std::vector<std::unique_ptr<Stream>> open;
  open.reserve(static_cast<size_t>(streams));
  const auto open_start = Clock::now();
  for (int i = 0; i < streams; ++i) {
    auto stream = std::make_unique<Stream>();
    const size_t k = static_cast<size_t>(i) % keys.size();
    Authorize(&stream->context, keys[k]);
    v1::WatchJobRequest watch;
    watch.set_job_id(watched[k]);
    stream->reader = stubs[static_cast<size_t>(i % connections)]->PrepareAsyncWatchJob(&stream->context, watch, &queue);
    stream->reader->StartCall(stream.get());
    open.push_back(std::move(stream));
  }
  while (counts.established.load() + counts.finished.load() < streams &&
         Clock::now() - open_start < std::chrono::duration<double>(open_timeout_s)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const double open_s = std::chrono::duration<double>(Clock::now() - open_start).count();
  const int threads_open = ThreadCount(server_pid);
  const std::vector<double> loaded = submitter.Latencies(submits);
  const int threads_open_after_submits = ThreadCount(server_pid);

  for (auto& stream : open) stream->context.TryCancel();
  while (counts.finished.load() < streams) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  queue.Shutdown();
  driver.join();
  std::this_thread::sleep_for(std::chrono::seconds(2));  // let the server wind the streams down
  const int threads_after = ThreadCount(server_pid);

  std::printf("streams %d over %d connections and %zu key(s): %d open after %.2f s, %d ended or refused\n", streams,
              connections, keys.size(), counts.established.load(), open_s,
              streams - counts.established.load());
  for (const auto& [why, count] : counts.refusals) std::printf("  refused %d: %s\n", count, why.c_str());
  PrintLatency("submit latency, no stream open", idle);
  PrintLatency("submit latency, streams open", loaded);
  const double ratio = Percentile(idle, 99) > 0 ? Percentile(loaded, 99) / Percentile(idle, 99) : 0.0;
  std::printf("p99 ratio (streams open / idle)    %.2fx\n", ratio);
  std::printf("server threads: %d before, %d with the streams open (%d after the submits), %d after closing them\n",
              threads_before, threads_open, threads_open_after_submits, threads_after);
  return 0;
}
