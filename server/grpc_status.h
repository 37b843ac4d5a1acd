// Conversion of absl::Status (how kjudge code reports errors) to grpc::Status (what crosses
// the wire). The codes map one to one; the message is kept.
#pragma once

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"

namespace kjudge::server {

inline grpc::Status ToGrpc(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
}

}  // namespace kjudge::server
