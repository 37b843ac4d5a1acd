// kjudge-bench-load: many concurrent clients against one kjudge-server over loopback.
//
// C client threads submit J compile-only jobs in total (each a distinct source, so every job
// is compiled by NVRTC, or with --same-source one source whose cubin the workers cache, so
// the server's own costs dominate), then wait for every verdict. Prints, as p50/p99:
//   * submit RPC latency (server overhead per job: RPC + validation + durable enqueue),
//   * queue-to-lease latency (first lease - submission, from the jobs' own timestamps),
//   * submit-to-verdict latency,
// and checks every acknowledged job is accounted for exactly once. Workers are started
// separately (bench/load/run.sh starts the server, the workers and this program).
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "CLI/CLI.hpp"
#include "common/sample_statistics.h"
#include "kjudge/v1/kjudge.grpc.pb.h"

namespace {

using Clock = std::chrono::steady_clock;

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  return kjudge::PercentileOfSorted(values, p);  // the judge's own rule (numpy's default)
}

void PrintRow(const char* what, const std::vector<double>& ms) {
  std::printf("%-28s p50 %9.2f ms   p99 %9.2f ms   max %9.2f ms   (n=%zu)\n", what, Percentile(ms, 50),
              Percentile(ms, 99), ms.empty() ? 0.0 : *std::max_element(ms.begin(), ms.end()), ms.size());
}

}  // namespace

int main(int argc, char** argv) {
  std::string server = "127.0.0.1:50051";
  std::string source_file;
  std::string problem = "level1/19_ReLU";
  int clients = 64;
  int jobs = 2000;
  double wait_s = 600;
  bool same_source = false;
  CLI::App app{"kjudge-bench-load: concurrent clients submitting compile-only jobs to a kjudge-server"};
  app.add_option("--server", server)->capture_default_str();
  app.add_option("--source", source_file, "a .cu submission with a kjudge-plan block")->required();
  app.add_option("--problem", problem)->capture_default_str();
  app.add_option("--clients", clients)->capture_default_str();
  app.add_option("--jobs", jobs)->capture_default_str();
  app.add_option("--wait-s", wait_s, "how long to wait for all verdicts")->capture_default_str();
  app.add_flag("--same-source", same_source,
               "submit one source every time (workers hit their cubin cache: measures the server, not NVRTC)");
  CLI11_PARSE(app, argc, argv);

  std::ifstream in(source_file);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string source = buffer.str();
  if (source.empty()) {
    std::fprintf(stderr, "cannot read %s\n", source_file.c_str());
    return 2;
  }
  auto channel = grpc::CreateChannel(server, grpc::InsecureChannelCredentials());
  auto stub = kjudge::v1::ClientService::NewStub(channel);

  std::mutex mutex;
  std::vector<double> submit_ms;
  std::vector<std::string> ids;
  std::atomic<int> next{0};
  std::atomic<int> failures{0};
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&] {
      for (int n = next++; n < jobs; n = next++) {
        kjudge::v1::SubmitRequest request;
        request.set_problem(problem);
        // A distinct comment makes each source distinct (stored and compiled separately).
        request.set_source(same_source ? source : source + "\n// load-bench job " + std::to_string(n) + "\n");
        request.set_compile_only(true);
        (*request.mutable_tags())["run"] = "load-bench";
        kjudge::v1::SubmitResponse response;
        grpc::ClientContext context;
        context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
        const auto t0 = Clock::now();
        grpc::Status status = stub->Submit(&context, request, &response);
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        std::lock_guard lock(mutex);
        if (!status.ok()) {
          ++failures;
          std::fprintf(stderr, "submit %d failed: %s\n", n, status.error_message().c_str());
          continue;
        }
        submit_ms.push_back(ms);
        ids.push_back(response.job_id());
      }
    });
  }
  for (std::thread& t : threads) t.join();
  const double submit_wall_s = std::chrono::duration<double>(Clock::now() - start).count();

  // Wait for every verdict.
  std::vector<double> lease_ms, verdict_ms;
  std::set<std::string> done;
  std::map<std::string, int> verdicts;
  const auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(wait_s * 1000));
  while (done.size() < ids.size() && Clock::now() < deadline) {
    for (const std::string& id : ids) {
      if (done.count(id)) continue;
      kjudge::v1::GetJobRequest request;
      request.set_job_id(id);
      kjudge::v1::Job job;
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
      if (!stub->GetJob(&context, request, &job).ok() || job.state() != kjudge::v1::DONE) continue;
      done.insert(id);
      verdicts[kjudge::v1::Verdict_Name(job.result().verdict())]++;
      lease_ms.push_back(static_cast<double>(job.started_unix_ms() - job.created_unix_ms()));
      verdict_ms.push_back(static_cast<double>(job.finished_unix_ms() - job.created_unix_ms()));
    }
    if (done.size() < ids.size()) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  const double total_s = std::chrono::duration<double>(Clock::now() - start).count();

  std::printf("clients %d, jobs %d: %zu acknowledged, %d refused, %zu finished (%zu distinct ids)\n", clients, jobs,
              ids.size(), failures.load(), done.size(), std::set<std::string>(ids.begin(), ids.end()).size());
  std::printf("submission phase %.2f s (%.0f submits/s); all verdicts after %.2f s (%.0f jobs/s)\n", submit_wall_s,
              static_cast<double>(ids.size()) / submit_wall_s, total_s, static_cast<double>(done.size()) / total_s);
  PrintRow("submit RPC latency", submit_ms);
  PrintRow("queue-to-lease latency", lease_ms);
  PrintRow("submit-to-verdict latency", verdict_ms);
  for (const auto& [verdict, count] : verdicts) std::printf("  %s: %d\n", verdict.c_str(), count);
  const bool ok = failures == 0 && done.size() == ids.size() &&
                  std::set<std::string>(ids.begin(), ids.end()).size() == ids.size();
  std::printf("%s\n", ok ? "every job accounted for" : "MISSING OR DUPLICATED JOBS");
  return ok ? 0 : 1;
}
