// CliContext: what every `kjudge` subcommand shares: the server connection, output mode, and
// the exit codes scripts rely on.
//
// Exit codes (stable; documented in `kjudge --help`):
//   0  success: the command worked, and a finished job is CORRECT (or COMPILED, or
//      BASELINES_MEASURED for a baselines-only job)
//   1  a finished job got any other verdict
//   2  bad usage or input (unreadable file, unknown problem, bad job id)
//   3  the server could not be reached or failed
//   4  the job is not finished yet (e.g. --wait interrupted or timed out)
//   5  refused for now: rate limit, active-job cap or stream cap (RESOURCE_EXHAUSTED); retry later
//   6  not allowed: missing, unknown or revoked API key, or a key of the wrong role
//   7  needs a CUDA GPU on this machine (`kjudge reproduce`: no GPU, or no kjudge-reproduce)
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kjudge/v1/kjudge.grpc.pb.h"
#include "nlohmann/json.hpp"

namespace kjudge::client {

enum ExitCode { kOk = 0, kVerdictNotCorrect = 1, kUsage = 2, kServer = 3, kUnfinished = 4, kRefused = 5, kDenied = 6, kNoGpu = 7 };

struct CliContext {
  std::string server;
  std::string api_key;  // sent as "authorization: Bearer <key>" when set
  std::string tls_ca;   // PEM file: connect with TLS, trusting this CA
  bool json = false;
  std::unique_ptr<v1::ClientService::Stub> stub;

  // Makes the stub. False (with a message on stderr that never quotes the key) when the API key
  // cannot be sent as a header: gRPC would log the whole key and abort on the first call.
  bool Connect();
  // Adds the API key and, when timeout_s > 0, a deadline to a call's context.
  void Prepare(grpc::ClientContext* context, double timeout_s) const;
  // Prints a failed RPC for a person (stderr) and returns the exit code it maps to.
  int Fail(const grpc::Status& status, const std::string& doing) const;
};

// The most of a server's status message printed (then "... [N bytes cut]").
inline constexpr size_t kMaxServerMessageBytes = 2048;
// A server's (or gRPC's) text as printed for a person: control characters other than tab and
// newline shown as '?' (no terminal escapes), capped at max_bytes then "... [N bytes cut]".
std::string ServerText(std::string_view text, size_t max_bytes = kMaxServerMessageBytes);

// Parses "key=value" --tag arguments into `out`; false (with a message on stderr) on a bad one.
bool ParseTags(const std::vector<std::string>& tags, google::protobuf::Map<std::string, std::string>* out);

// Exit code for a finished job.
int ExitCodeFor(const v1::Job& job);

// The JSON `--json` prints for a message: ToJson (proto/proto_json.h: one line, snake_case, every
// field), except that numeric ids are JSON numbers: every "id", "job_id" and "job_ids" whose
// value is a decimal string of 1 to 18 digits (the proto carries ids as strings; scripts
// compare them as numbers). Other strings, worker ids included, stay strings.
std::string CliJson(const google::protobuf::Message& message);
// One id as CliJson writes it: a number when it is a decimal id, else the string.
nlohmann::json JsonId(const std::string& id);

}  // namespace kjudge::client
