// RunnerIo: the line protocol with the worker (proto/kjudge/v1/runner.proto): one protobuf-JSON
// RunnerRequest per stdin line, one protobuf-JSON RunnerMessage per stdout line.
//
// Contract: MessageWriter writes each message as a single line (MessageToJsonString never emits
// raw newlines) and flushes after each, so the worker sees progress at once. ParseRequest
// accepts one line (unknown fields ignored) and fails with InvalidArgument on bad JSON.
// Nothing but protocol lines may go to stdout: logs go to stderr.
#pragma once

#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "kjudge/v1/runner.pb.h"

namespace kjudge::runner {

class MessageWriter {
 public:
  explicit MessageWriter(std::ostream& out) : out_(out) {}
  absl::Status Write(const v1::RunnerMessage& message);
  void Progress(v1::Stage stage, int done, int total);

 private:
  std::ostream& out_;
};

absl::StatusOr<v1::RunnerRequest> ParseRequest(const std::string& line);
absl::StatusOr<std::string> ToJsonLine(const google::protobuf::Message& message);

}  // namespace kjudge::runner
