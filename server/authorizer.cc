#include "server/authorizer.h"

#include "absl/strings/str_cat.h"

namespace kjudge::server {

grpc::Status Authorizer::Check(const grpc::ServerContextBase& context, Role need, ApiKey* caller) const {
  if (!required_) {
    *caller = ApiKey{"", "anonymous", Role::kAdmin};
    return grpc::Status::OK;
  }
  const auto& metadata = context.client_metadata();
  auto it = metadata.find("authorization");
  constexpr std::string_view kBearer = "Bearer ";
  if (it == metadata.end() || it->second.size() <= kBearer.size() ||
      std::string_view(it->second.data(), kBearer.size()) != kBearer) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        "this server requires an API key: pass --api-key or set KJUDGE_API_KEY "
                        "(metadata 'authorization: Bearer <key>')");
  }
  const std::string secret(it->second.data() + kBearer.size(), it->second.size() - kBearer.size());
  absl::StatusOr<std::optional<ApiKey>> key = keys_->Lookup(secret);
  if (!key.ok()) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "key lookup failed; try again");
  if (!key->has_value()) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "unknown or revoked API key");
  }
  if (!RoleAllows((*key)->role, need)) {
    return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                        absl::StrCat("key ", (*key)->id, " has role ", RoleName((*key)->role), "; this call needs ",
                                     RoleName(need), " (or admin)"));
  }
  *caller = **key;
  return grpc::Status::OK;
}

}  // namespace kjudge::server
