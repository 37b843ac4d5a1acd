// Authorizer: who is calling, and may they.
//
// Contract: callers send "authorization: Bearer <key>" metadata. With auth required, a call
// without a valid key is UNAUTHENTICATED and a key of the wrong role PERMISSION_DENIED, both
// with a message saying what to do. With auth off (a local, loopback-only server) every call is
// allowed as an anonymous admin whose id is "".
#pragma once

#include <grpcpp/grpcpp.h>

#include "server/api_keys.h"

namespace kjudge::server {

class Authorizer {
 public:
  Authorizer(ApiKeys* keys, bool required) : keys_(keys), required_(required) {}

  // Works for sync (ServerContext) and callback (CallbackServerContext) calls alike.
  grpc::Status Check(const grpc::ServerContextBase& context, Role need, ApiKey* caller) const;
  bool required() const { return required_; }

 private:
  ApiKeys* keys_;
  bool required_;
};

}  // namespace kjudge::server
