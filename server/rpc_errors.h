// Errors a client sees: the one conversion from absl::Status to the grpc::Status an RPC
// returns, for the client and worker services.
//
// Contract: ToClient keeps every status whose message kjudge words for the caller
// (INVALID_ARGUMENT, NOT_FOUND, PERMISSION_DENIED, ..., and the database's own sentences:
// busy, full, read-only, "the query took longer than N s") and replaces the message of
// INTERNAL, UNKNOWN and DATA_LOSS, whose text may name internals (a file, a SQLite message, a
// worker), with a fixed sentence carrying an incident number; the original goes to the
// server log under the same number, so an operator can find it. Thread-safe.
// JobNotFound is the one answer for a job id the caller may not see: never created, or another
// tenant's (ids reveal nothing). Every RPC that takes a job id returns it.
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "server/grpc_status.h"

namespace kjudge::server {

inline grpc::Status ToClient(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kInternal:
    case absl::StatusCode::kUnknown:
    case absl::StatusCode::kDataLoss: {
      static std::atomic<uint64_t> incidents{0};
      const uint64_t incident = ++incidents;
      spdlog::error("incident {}: {}", incident, status.ToString());
      return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                          absl::StrCat("the server failed to answer this call (incident ", incident,
                                       " in its log); try again, and tell its operator if it goes on"));
    }
    default: return ToGrpc(status);
  }
}

inline grpc::Status JobNotFound(int64_t id) {
  return grpc::Status(grpc::StatusCode::NOT_FOUND, absl::StrCat("no job ", id));
}

}  // namespace kjudge::server
