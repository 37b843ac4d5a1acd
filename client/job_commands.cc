#include <unistd.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "client/commands.h"
#include "client/job_view.h"
#include "proto/proto_json.h"

namespace kjudge::client {
namespace {

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream buffer;
  buffer << in.rdbuf();
  *out = buffer.str();
  return true;
}

int PrintFinished(const CliContext& cli, const v1::Job& job) {
  if (cli.json) {
    std::cout << ToJson(job) << "\n";
  } else {
    PrintReport(job, std::cout);
  }
  return ExitCodeFor(job);
}

}  // namespace

int WaitForJob(CliContext& cli, const std::string& job_id, double timeout_s) {
  const auto deadline =
      std::chrono::system_clock::now() + std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  const bool live = isatty(STDERR_FILENO) != 0;
  v1::Job last;
  grpc::Status status;
  // The server closes connections past their age limit (--max-connection-age-s, after a grace):
  // a watch that had updates and then lost its connection (UNAVAILABLE) is resumed on a fresh
  // one, since the job goes on regardless.
  for (bool resume = true; resume;) {
    grpc::ClientContext context;
    cli.Prepare(&context, 0);
    if (timeout_s > 0) context.set_deadline(deadline);
    v1::WatchJobRequest request;
    request.set_job_id(job_id);
    auto reader = cli.stub->WatchJob(&context, request);
    bool updated = false;
    v1::Job job;
    while (reader->Read(&job)) {
      updated = true;
      last = job;
      if (job.state() == v1::DONE) break;
      const std::string line = ProgressLine(job);
      if (live) {
        std::cerr << "\r\033[K" << line << std::flush;
      } else if (!cli.json) {
        std::cerr << line << "\n";
      }
    }
    status = reader->Finish();
    resume = last.state() != v1::DONE && updated && status.error_code() == grpc::StatusCode::UNAVAILABLE;
  }
  if (live) std::cerr << "\r\033[K" << std::flush;
  if (last.state() == v1::DONE) return PrintFinished(cli, last);
  if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    std::cerr << "kjudge: job " << job_id << " is not finished after " << timeout_s
              << " s; it keeps running: `kjudge job " << job_id << " --wait`\n";
    return kUnfinished;
  }
  return cli.Fail(status, "waiting for job " + job_id);
}

int Submit(CliContext& cli, const SubmitArgs& args) {
  v1::SubmitRequest request;
  if (!ReadFile(args.file, request.mutable_source())) {
    std::cerr << "kjudge: cannot read '" << args.file << "': no such file or not readable\n";
    return kUsage;
  }
  if (!args.plan_file.empty() && !ReadFile(args.plan_file, request.mutable_launch_plan())) {
    std::cerr << "kjudge: cannot read the launch plan '" << args.plan_file << "'\n";
    return kUsage;
  }
  request.set_problem(args.problem);
  request.set_compile_only(args.compile_only);
  request.set_filename(args.file.substr(args.file.find_last_of('/') + 1));
  if (!ParseTags(args.tags, request.mutable_tags())) return kUsage;
  grpc::ClientContext context;
  cli.Prepare(&context, 30);
  v1::SubmitResponse response;
  grpc::Status status = cli.stub->Submit(&context, request, &response);
  if (!status.ok()) return cli.Fail(status, "submitting");
  if (response.job().state() == v1::DONE) return PrintFinished(cli, response.job());
  if (args.wait) {
    if (!cli.json) std::cerr << "submitted job " << response.job_id() << "\n";
    return WaitForJob(cli, response.job_id(), args.timeout_s);
  }
  if (cli.json) {
    std::cout << ToJson(response.job()) << "\n";
  } else {
    std::cout << response.job_id() << "\n";
    std::cerr << "submitted job " << response.job_id() << "; follow it with `kjudge job " << response.job_id()
              << " --wait`\n";
  }
  return kOk;
}

int ShowJob(CliContext& cli, const JobArgs& args) {
  if (args.wait) return WaitForJob(cli, args.id, args.timeout_s);
  grpc::ClientContext context;
  cli.Prepare(&context, 10);
  v1::GetJobRequest request;
  request.set_job_id(args.id);
  v1::Job job;
  grpc::Status status = cli.stub->GetJob(&context, request, &job);
  if (!status.ok()) return cli.Fail(status, "reading job " + args.id);
  if (job.state() == v1::DONE) return PrintFinished(cli, job);
  if (cli.json) {
    std::cout << ToJson(job) << "\n";
  } else {
    std::cout << ProgressLine(job) << "\n";
  }
  return kUnfinished;
}

}  // namespace kjudge::client
