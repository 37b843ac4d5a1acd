#include <fstream>
#include <iostream>

#include "absl/strings/str_format.h"
#include "client/commands.h"
#include "nlohmann/json.hpp"
#include "proto/proto_json.h"
#include "proto/request_checks.h"

namespace kjudge::client {
namespace {

int Refresh(CliContext& cli, const BaselinesArgs& args) {
  v1::RefreshBaselinesRequest request;
  request.set_problem_prefix(args.problem_prefix);
  request.set_run_examples(!args.no_run);
  grpc::ClientContext context;
  cli.Prepare(&context, 60);
  v1::RefreshBaselinesResponse response;
  grpc::Status status = cli.stub->RefreshBaselines(&context, request, &response);
  if (!status.ok()) return cli.Fail(status, "refreshing baselines");
  if (cli.json) {
    std::cout << CliJson(response) << "\n";
  } else {
    std::cout << "forgot " << response.removed() << " cached baseline(s)";
    if (response.job_ids_size() > 0) {
      std::cout << "; queued " << response.job_ids_size() << " example job(s) that measure them again ("
                << response.job_ids(0) << (response.job_ids_size() > 1 ? " ... " + response.job_ids(response.job_ids_size() - 1) : "")
                << ")";
    }
    std::cout << "\n";
  }
  return kOk;
}

// Reads baselines measured elsewhere, one JSON object per line: problem, shape, name, gpu,
// median_us (and optional samples).
int Import(CliContext& cli, const BaselinesArgs& args) {
  std::ifstream in(args.import_file);
  if (!in) {
    std::cerr << "kjudge: cannot read '" << args.import_file << "'\n";
    return kUsage;
  }
  v1::ImportBaselinesRequest request;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json row = nlohmann::json::parse(line, nullptr, false);
    if (!row.is_object() || !row.contains("problem") || !row.contains("shape") || !row.contains("name") ||
        !row.contains("median_us") || !row.contains("gpu")) {
      std::cerr << "kjudge: " << args.import_file << ":" << number
                << ": expected a JSON object with problem, shape, name, median_us, gpu\n";
      return kUsage;
    }
    v1::BaselineTiming* baseline = request.add_baselines();
    baseline->set_problem(row["problem"].get<std::string>());
    baseline->set_shape(row["shape"].get<std::string>());
    baseline->set_name(row["name"].get<std::string>());
    baseline->set_hardware_key("imported|" + row["gpu"].get<std::string>());
    baseline->mutable_timing()->set_median_us(row["median_us"].get<double>());
    baseline->mutable_timing()->set_samples(row.value("samples", 0));
  }
  grpc::ClientContext context;
  cli.Prepare(&context, 60);
  v1::ImportBaselinesResponse response;
  grpc::Status status = cli.stub->ImportBaselines(&context, request, &response);
  if (!status.ok()) return cli.Fail(status, "importing baselines");
  if (cli.json) {
    std::cout << CliJson(response) << "\n";
  } else {
    std::cout << "stored " << response.stored() << " imported baseline(s)\n";
  }
  return kOk;
}

v1::SubmitRequest MeasureRequest(const std::string& problem,
                                 const google::protobuf::Map<std::string, std::string>& tags) {
  v1::SubmitRequest request;
  request.set_problem(problem);
  request.set_baselines_only(true);
  *request.mutable_tags() = tags;
  return request;
}

}  // namespace

int MeasureBaselines(CliContext& cli, const MeasureBaselinesArgs& args) {
  google::protobuf::Map<std::string, std::string> tags;
  if (!ParseTags(args.tags, &tags)) return kUsage;
  int exit_code = kOk;
  std::vector<std::string> queued;
  for (const std::string& problem : args.problems) {
    const v1::SubmitRequest request = MeasureRequest(problem, tags);
    if (absl::Status valid = CheckSubmitRequest(request, SubmitLimits{}); !valid.ok()) {
      std::cerr << "kjudge: " << problem << ": " << valid.message() << "\n";
      if (exit_code == kOk) exit_code = kUsage;
      continue;
    }
    grpc::ClientContext context;
    cli.Prepare(&context, 30);
    v1::SubmitResponse response;
    grpc::Status status = cli.stub->Submit(&context, request, &response);
    if (!status.ok()) {
      const int failed = cli.Fail(status, "submitting a baselines-only job for " + problem);
      if (exit_code == kOk) exit_code = failed;
      continue;
    }
    queued.push_back(response.job_id());
    if (args.wait) {
      if (!cli.json) std::cerr << "submitted job " << response.job_id() << " (" << problem << ")\n";
    } else if (cli.json) {
      std::cout << CliJson(response.job()) << "\n";
    } else {
      std::cout << response.job_id() << "\t" << problem << "\n";
    }
  }
  if (!args.wait) {
    if (!cli.json && !queued.empty()) {
      std::cerr << "queued " << queued.size() << " baselines-only job(s); `kjudge job ID --wait` shows what each "
                << "measured, `kjudge baselines` the cache\n";
    }
    return exit_code;
  }
  for (const std::string& id : queued) {
    const int finished = WaitForJob(cli, id, args.timeout_s);
    if (exit_code == kOk) exit_code = finished;
  }
  return exit_code;
}

int Baselines(CliContext& cli, const BaselinesArgs& args) {
  if (!args.import_file.empty()) return Import(cli, args);
  if (args.refresh) return Refresh(cli, args);
  v1::ListBaselinesRequest request;
  request.set_problem_prefix(args.problem_prefix);
  grpc::ClientContext context;
  cli.Prepare(&context, 30);
  v1::ListBaselinesResponse response;
  grpc::Status status = cli.stub->ListBaselines(&context, request, &response);
  if (!status.ok()) return cli.Fail(status, "listing baselines");
  if (cli.json) {
    std::cout << CliJson(response) << "\n";
    return kOk;
  }
  std::string hardware;
  for (const v1::BaselineTiming& b : response.baselines()) {
    if (b.hardware_key() != hardware) {
      hardware = b.hardware_key();
      std::cout << "\n" << hardware << "\n";
    }
    std::cout << absl::StrFormat("  %-46s %-26s %-24s %12.2f us", b.problem(), b.shape(), b.name(),
                                 b.timing().median_us());
    if (b.timing().floor_us() > 0) std::cout << absl::StrFormat("  SOL %5.1f%%", b.timing().sol_percent());
    std::cout << absl::StrFormat("  (%d samples)\n", b.timing().samples());
  }
  if (response.baselines_size() == 0) {
    std::cout << "none yet: no baseline measured" << (request.problem_prefix().empty() ? "" : " for these problems")
              << "; `kjudge baselines measure PROBLEM` measures a problem's on a GPU worker\n";
    return kOk;
  }
  std::cerr << response.baselines_size() << " baseline(s); they are measured on first need per GPU and software"
            << " versions; --refresh measures them again\n";
  return kOk;
}

}  // namespace kjudge::client
