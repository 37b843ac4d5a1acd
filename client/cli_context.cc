#include "client/cli_context.h"

#include <fstream>
#include <iostream>
#include <sstream>

namespace kjudge::client {

void CliContext::Connect() {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(64 << 20);
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (!tls_ca.empty()) {
    std::ifstream in(tls_ca);
    std::stringstream pem;
    pem << in.rdbuf();
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = pem.str();
    credentials = grpc::SslCredentials(ssl);
  }
  stub = v1::ClientService::NewStub(grpc::CreateCustomChannel(server, credentials, args));
}

void CliContext::Prepare(grpc::ClientContext* context, double timeout_s) const {
  if (!api_key.empty()) context->AddMetadata("authorization", "Bearer " + api_key);
  if (timeout_s > 0) {
    context->set_deadline(std::chrono::system_clock::now() +
                          std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000)));
  }
}

int CliContext::Fail(const grpc::Status& status, const std::string& doing) const {
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      std::cerr << "kjudge: cannot reach kjudge-server at " << server << " while " << doing << ": "
                << status.error_message()
                << "\n  is the server running? Point at it with --server HOST:PORT or KJUDGE_SERVER.\n";
      return kServer;
    case grpc::StatusCode::UNAUTHENTICATED:
    case grpc::StatusCode::PERMISSION_DENIED:
      std::cerr << "kjudge: " << status.error_message() << "\n";
      return kDenied;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      std::cerr << "kjudge: refused for now: " << status.error_message() << "\n";
      return kRefused;
    case grpc::StatusCode::NOT_FOUND:
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::ALREADY_EXISTS:
      std::cerr << "kjudge: " << status.error_message() << "\n";
      return kUsage;
    default:
      std::cerr << "kjudge: the server failed while " << doing << ": " << status.error_message() << "\n";
      return kServer;
  }
}

bool ParseTags(const std::vector<std::string>& tags, google::protobuf::Map<std::string, std::string>* out) {
  for (const std::string& tag : tags) {
    const size_t eq = tag.find('=');
    if (eq == std::string::npos || eq == 0) {
      std::cerr << "kjudge: --tag wants key=value (e.g. --tag model=gpt-x), got '" << tag << "'\n";
      return false;
    }
    (*out)[tag.substr(0, eq)] = tag.substr(eq + 1);
  }
  return true;
}

int ExitCodeFor(const v1::Job& job) {
  if (job.state() != v1::DONE) return kUnfinished;
  const v1::Verdict verdict = job.result().verdict();
  return verdict == v1::CORRECT || verdict == v1::COMPILED || verdict == v1::BASELINES_MEASURED ? kOk
                                                                                             : kVerdictNotCorrect;
}

}  // namespace kjudge::client
