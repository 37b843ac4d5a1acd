#include "worker/judge/runner_io.h"

#include <google/protobuf/util/json_util.h>
#include <spdlog/spdlog.h>

#include "worker/gpu/str_util.h"

namespace kjudge::runner {

absl::StatusOr<std::string> ToJsonLine(const google::protobuf::Message& message) {
  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = false;
  options.preserve_proto_field_names = false;
  const auto status = google::protobuf::util::MessageToJsonString(message, &json, options);
  if (!status.ok()) {
    return absl::InternalError(Cat("MessageToJsonString: ", status.ToString()));
  }
  return json;
}

absl::Status MessageWriter::Write(const v1::RunnerMessage& message) {
  absl::StatusOr<std::string> line = ToJsonLine(message);
  if (!line.ok()) return line.status();
  out_ << *line << '\n';
  out_.flush();
  if (!out_.good()) return absl::UnavailableError("stdout closed");
  return absl::OkStatus();
}

void MessageWriter::Progress(v1::Stage stage, int done, int total) {
  v1::RunnerMessage message;
  v1::RunnerProgress* p = message.mutable_progress();
  p->set_stage(stage);
  p->set_done(done);
  p->set_total(total);
  if (absl::Status s = Write(message); !s.ok()) spdlog::warn("progress: {}", s.ToString());
}

absl::StatusOr<v1::RunnerRequest> ParseRequest(const std::string& line) {
  v1::RunnerRequest request;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  const auto status = google::protobuf::util::JsonStringToMessage(line, &request, options);
  if (!status.ok()) {
    return absl::InvalidArgumentError(Cat("bad request line: ", status.ToString()));
  }
  return request;
}

}  // namespace kjudge::runner
