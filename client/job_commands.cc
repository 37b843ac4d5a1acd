#include <unistd.h>

#include <fstream>
#include <map>
#include <iostream>
#include <sstream>

#include "client/commands.h"
#include "client/job_view.h"
#include "proto/proto_json.h"
#include "proto/request_checks.h"

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
    std::cout << CliJson(job) << "\n";
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
  std::string said;  // the waiting reason last printed on its own line
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
      // No silent waiting: why no connected worker can take it, once per change, on its own
      // line (also with --json, on stderr), so it stays visible under a live progress line.
      const std::string reason = job.state() == v1::QUEUED ? WaitingReasonText(job) : "";
      if (!reason.empty() && reason != said) {
        if (live) std::cerr << "\r\033[K";
        std::cerr << "kjudge: job " << job_id << " waits: " << reason << "\n";
      }
      said = reason;
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
    std::cerr << "kjudge: job " << job_id << " is not finished after " << timeout_s << " s"
              << (said.empty() ? "" : ": " + said) << "; it keeps its place: `kjudge job " << job_id
              << " --wait` (--timeout 0 waits without limit), `kjudge cancel " << job_id << "` ends it\n";
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
  request.set_idempotency_key(args.idempotency_key);
  request.set_public_(args.is_public);
  // The server applies the same checks; checking here names the file and never sends bytes
  // that protobuf would refuse with a raw parse error (invalid UTF-8).
  if (absl::Status valid = CheckSubmitRequest(request, SubmitLimits{}); !valid.ok()) {
    std::cerr << "kjudge: " << args.file << ": " << valid.message() << "\n";
    return kUsage;
  }
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
    std::cout << CliJson(response.job()) << "\n";
  } else {
    std::cout << response.job_id() << "\n";
    std::cerr << "submitted job " << response.job_id() << "; follow it with `kjudge job " << response.job_id()
              << " --wait`\n";
  }
  return kOk;
}

namespace {

// `kjudge job N --source`: the source alone on stdout, byte for byte, so `> file.cu` gives the
// file that was judged; --json: the JobSource message.
int ShowJobSource(CliContext& cli, const std::string& id) {
  grpc::ClientContext context;
  cli.Prepare(&context, 30);
  v1::GetJobRequest request;
  request.set_job_id(id);
  v1::JobSource source;
  grpc::Status status = cli.stub->GetJobSource(&context, request, &source);
  if (!status.ok()) return cli.Fail(status, "reading the source of job " + id);
  if (cli.json) {
    std::cout << CliJson(source) << "\n";
  } else {
    std::cout << source.source() << std::flush;
  }
  return kOk;
}

}  // namespace

int ShowJob(CliContext& cli, const JobArgs& args) {
  if (args.source) return ShowJobSource(cli, args.id);
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
    std::cout << CliJson(job) << "\n";
  } else {
    std::cout << ProgressLine(job) << "\n";
  }
  return kUnfinished;
}

}  // namespace kjudge::client

namespace kjudge::client {
namespace {

bool ParseState(const std::string& name, v1::JobState* state) {
  if (name.empty()) return true;
  const std::map<std::string, v1::JobState> states = {
      {"queued", v1::QUEUED}, {"running", v1::RUNNING}, {"done", v1::DONE}};
  auto it = states.find(name);
  if (it == states.end()) return false;
  *state = it->second;
  return true;
}

void PrintJobLine(const CliContext& cli, const v1::Job& job) {
  if (cli.json) {
    std::cout << CliJson(job) << "\n";
    return;
  }
  const std::string verdict = job.state() == v1::DONE ? v1::Verdict_Name(job.result().verdict())
                                                      : v1::JobState_Name(job.state());
  std::cout << job.id() << "\t" << verdict << "\t" << job.problem() << "\n";
}

}  // namespace

int ListJobs(CliContext& cli, const JobsArgs& args) {
  v1::ListJobsRequest request;
  v1::JobState state = v1::JOB_STATE_UNSPECIFIED;
  if (!ParseState(args.state, &state)) {
    std::cerr << "kjudge: --state wants queued, running or done, got '" << args.state << "'\n";
    return kUsage;
  }
  request.set_state(state);
  request.set_problem(args.problem);
  request.set_page_size(args.limit);
  request.set_page_token(args.page_token);
  if (!ParseTags(args.tags, request.mutable_tags())) return kUsage;
  while (true) {
    grpc::ClientContext context;
    cli.Prepare(&context, 30);
    v1::ListJobsResponse response;
    grpc::Status status = cli.stub->ListJobs(&context, request, &response);
    if (!status.ok()) return cli.Fail(status, "listing jobs");
    for (const v1::Job& job : response.jobs()) PrintJobLine(cli, job);
    if (response.jobs().empty() && request.page_token().empty() && !cli.json) {
      std::cout << "none yet: no job" << (request.state() != v1::JOB_STATE_UNSPECIFIED || !request.problem().empty() ||
                                                  !request.tags().empty()
                                              ? " matches"
                                              : "; `kjudge submit FILE --problem NAME` sends one")
                << "\n";
    }
    if (response.next_page_token().empty()) return kOk;
    if (!args.all) {
      std::cerr << "more: kjudge jobs --page-token " << response.next_page_token() << " (or --all)\n";
      return kOk;
    }
    request.set_page_token(response.next_page_token());
  }
}

int CancelJob(CliContext& cli, const std::string& id) {
  grpc::ClientContext context;
  cli.Prepare(&context, 30);
  v1::CancelJobRequest request;
  request.set_job_id(id);
  v1::Job job;
  grpc::Status status = cli.stub->CancelJob(&context, request, &job);
  if (!status.ok()) return cli.Fail(status, "cancelling job " + id);
  if (cli.json) {
    std::cout << CliJson(job) << "\n";
  } else {
    std::cerr << "job " << id << " cancelled\n";
  }
  return kOk;
}

}  // namespace kjudge::client
