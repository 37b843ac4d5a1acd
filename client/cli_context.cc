#include "client/cli_context.h"

#include <fstream>
#include <iostream>
#include <sstream>

#include "nlohmann/json.hpp"
#include "proto/proto_json.h"
#include "proto/result_caps.h"

namespace kjudge::client {

bool CliContext::Connect() {
  for (size_t i = 0; i < api_key.size(); ++i) {
    const auto c = static_cast<unsigned char>(api_key[i]);
    if (c <= 0x20 || c >= 0x7f) {
      std::cerr << "kjudge: the API key has a space, control or non-ASCII character at offset " << i
                << "; keys are printable ASCII as `kjudge-server keys create` prints them"
                << " (strip the newline of a key read from a file)\n";
      return false;
    }
  }
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
  return true;
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
                << ServerText(status.error_message())
                << "\n  is the server running? Point at it with --server HOST:PORT or KJUDGE_SERVER.\n";
      return kServer;
    case grpc::StatusCode::UNAUTHENTICATED:
    case grpc::StatusCode::PERMISSION_DENIED:
      std::cerr << "kjudge: " << ServerText(status.error_message()) << "\n";
      return kDenied;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      std::cerr << "kjudge: refused for now: " << ServerText(status.error_message()) << "\n";
      return kRefused;
    case grpc::StatusCode::NOT_FOUND:
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::ALREADY_EXISTS:
      std::cerr << "kjudge: " << ServerText(status.error_message()) << "\n";
      return kUsage;
    default:
      std::cerr << "kjudge: the server failed while " << doing << ": " << ServerText(status.error_message()) << "\n";
      return kServer;
  }
}

std::string ServerText(std::string_view text, size_t max_bytes) {
  std::string shown = CapText(text, max_bytes);
  for (char& c : shown) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && c != '\t' && c != '\n') || byte == 0x7f) c = '?';
  }
  return shown;
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
  // The server decides what counts as success (Job.succeeded, server/job_outcome.h).
  return job.succeeded() ? kOk : kVerdictNotCorrect;
}

namespace {

using Json = nlohmann::ordered_json;  // keeps the proto's field order

bool IsNumericId(const Json& value) {
  if (!value.is_string()) return false;
  const std::string& text = value.get_ref<const std::string&>();
  return !text.empty() && text.size() <= 18 && text.find_first_not_of("0123456789") == std::string::npos;
}

void NumberIds(Json* node) {
  if (node->is_array()) {
    for (Json& item : *node) NumberIds(&item);
    return;
  }
  if (!node->is_object()) return;
  for (auto& [key, value] : node->items()) {
    if ((key == "id" || key == "job_id") && IsNumericId(value)) {
      value = std::stoll(value.get<std::string>());
    } else if (key == "job_ids" && value.is_array()) {
      for (Json& id : value) {
        if (IsNumericId(id)) id = std::stoll(id.get<std::string>());
      }
    } else {
      NumberIds(&value);
    }
  }
}

}  // namespace

nlohmann::json JsonId(const std::string& id) {
  return IsNumericId(Json(id)) ? nlohmann::json(std::stoll(id)) : nlohmann::json(id);
}

std::string CliJson(const google::protobuf::Message& message) {
  Json parsed = Json::parse(ToJson(message), nullptr, false);
  if (parsed.is_discarded()) return ToJson(message);  // never expected: ToJson writes valid JSON
  NumberIds(&parsed);
  return parsed.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace kjudge::client
