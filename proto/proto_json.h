// ProtoJson: the one way kjudge turns API messages into JSON and back (stored results, the
// runner pipe, the CLI's --json output).
//
// Contract: ToJson writes one line, snake_case field names (as in the .proto), enums as their
// names, and fields at default values included, so scripts see every field. FromJson ignores
// unknown fields (a newer peer may add some) and returns InvalidArgument naming the problem.
#pragma once

#include <string>
#include <string_view>

#include <google/protobuf/message.h>

#include "absl/status/status.h"

namespace kjudge {

std::string ToJson(const google::protobuf::Message& message, bool pretty = false);
absl::Status FromJson(std::string_view json, google::protobuf::Message* message);

}  // namespace kjudge
