#include <iostream>

#include "absl/strings/str_format.h"
#include "client/commands.h"
#include "proto/proto_json.h"

namespace kjudge::client {

int ListProblems(CliContext& cli) {
  grpc::ClientContext context;
  cli.Prepare(&context, 10);
  v1::ListProblemsResponse response;
  grpc::Status status = cli.stub->ListProblems(&context, v1::ListProblemsRequest(), &response);
  if (!status.ok()) return cli.Fail(status, "listing problems");
  if (cli.json) {
    std::cout << CliJson(response) << "\n";
    return kOk;
  }
  int needs_pytorch = 0;
  for (const v1::ProblemSummary& problem : response.problems()) {
    // A problem with only reference.py is judged only by workers with PyTorch: say so in the row.
    needs_pytorch += problem.needs_pytorch() ? 1 : 0;
    std::cout << absl::StrFormat("%-50s level %d  %-14s %s\n", problem.name(), problem.level(),
                                 problem.needs_pytorch() ? "needs PyTorch" : "", problem.title());
  }
  std::cerr << response.problems_size() << " problems; `kjudge problem NAME` shows one.\n";
  if (needs_pytorch > 0) {
    std::cerr << needs_pytorch << " need PyTorch (no CUDA reference): only workers with the PyTorch oracle judge them;\n"
              << "  their jobs wait in the queue while none is connected (--compile-only jobs run anywhere).\n";
  }
  return kOk;
}

namespace {

void PrintNames(const char* what, int64_t count, const google::protobuf::RepeatedPtrField<std::string>& names) {
  if (count == 0) return;
  std::cout << what << " (" << count << "):";
  for (const std::string& name : names) std::cout << " " << ServerText(name, 200);
  if (count > names.size()) std::cout << " ... and " << count - names.size() << " more";
  std::cout << "\n";
}

}  // namespace

int ReloadProblems(CliContext& cli) {
  grpc::ClientContext context;
  cli.Prepare(&context, 120);  // a large catalog takes seconds to load and check
  v1::ReloadProblemsResponse response;
  grpc::Status status = cli.stub->ReloadProblems(&context, v1::ReloadProblemsRequest(), &response);
  if (status.error_code() == grpc::StatusCode::FAILED_PRECONDITION) {
    std::cerr << "kjudge: " << ServerText(status.error_message()) << "\n";
    return kVerdictNotCorrect;
  }
  if (!status.ok()) return cli.Fail(status, "reloading the problems");
  if (cli.json) {
    std::cout << CliJson(response) << "\n";
    return kOk;
  }
  std::cout << absl::StrFormat("%d problems served now: %d added, %d changed, %d removed\n", response.total(),
                               response.added(), response.changed(), response.removed());
  PrintNames("added", response.added(), response.added_names());
  PrintNames("changed", response.changed(), response.changed_names());
  PrintNames("removed", response.removed(), response.removed_names());
  if (response.rerouted_jobs() > 0) {
    std::cout << response.rerouted_jobs() << " queued jobs rerouted (their problem gained or lost a CUDA reference)\n";
  }
  if (response.removed() > 0) {
    std::cout << "queued jobs of removed problems end REJECTED when a worker takes them; running ones finish\n";
  }
  return kOk;
}

int ShowProblem(CliContext& cli, const ProblemArgs& args) {
  grpc::ClientContext context;
  cli.Prepare(&context, 10);
  v1::GetProblemRequest request;
  request.set_name(args.name);
  v1::Problem problem;
  grpc::Status status = cli.stub->GetProblem(&context, request, &problem);
  if (!status.ok()) return cli.Fail(status, "reading the problem");
  if (cli.json) {
    std::cout << CliJson(problem) << "\n";
  } else if (args.prompt) {
    std::cout << problem.prompt();
  } else if (args.starter) {
    std::cout << problem.starter_file();
  } else if (args.spec) {
    std::cout << problem.spec_toml();
  } else {
    std::cout << problem.name() << " (level " << problem.level() << "): " << problem.title() << "\n\n"
              << problem.description() << "\n\n"
              << (problem.needs_pytorch() ? "needs PyTorch: judged only by workers with the PyTorch oracle\n\n" : "")
              << "tensors:\n";
    for (const v1::TensorInfo& tensor : problem.tensors()) {
      std::string shape;
      for (const std::string& dim : tensor.shape()) shape += (shape.empty() ? "" : ", ") + dim;
      std::cout << absl::StrFormat("  %-4s %-8s %-6s [%s]\n", tensor.role(), tensor.name(), tensor.dtype(), shape);
    }
    std::cout << "test shapes:";
    for (const std::string& shape : problem.test_shapes()) std::cout << "  " << shape;
    std::cout << "\nbenchmark shapes:";
    for (const std::string& shape : problem.bench_shapes()) std::cout << "  " << shape;
    std::cout << "\n\nstarter file: kjudge problem " << problem.name() << " --starter > mine.cu\n";
  }
  return kOk;
}

}  // namespace kjudge::client
