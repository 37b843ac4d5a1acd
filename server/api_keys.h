// ApiKeys: creation, lookup and revocation of API keys, stored hashed.
//
// Contract: Create returns the secret key exactly once ("kj_<id>_<secret>"); only its
// SHA-256 is stored, so a stolen database does not yield usable keys. Lookup takes the full
// key and returns the key's id, name and role, or nullopt for unknown or revoked keys. Revoke
// also hands every job leased by workers registered with the key back to the queue, in the
// same transaction (RequeueLeasesOfKey in job_store.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/shared_database.h"

namespace kjudge::server {

enum class Role { kSubmitter, kWorker, kAdmin };

std::string RoleName(Role role);
absl::StatusOr<Role> ParseRole(const std::string& name);
// Whether a key of role `have` may do what `need` allows.
bool RoleAllows(Role have, Role need);

struct ApiKey {
  std::string id;
  std::string name;
  Role role = Role::kSubmitter;
};

struct CreatedKey {
  ApiKey key;
  std::string secret;  // the whole key to hand to its user
};

class ApiKeys {
 public:
  explicit ApiKeys(SharedDatabase* shared) : shared_(shared) {}

  absl::StatusOr<CreatedKey> Create(const std::string& name, Role role);
  absl::StatusOr<std::optional<ApiKey>> Lookup(const std::string& secret);
  // false when no active key has this id (nothing changes then).
  absl::StatusOr<bool> Revoke(const std::string& id);
  absl::StatusOr<std::vector<ApiKey>> List();
  absl::StatusOr<int64_t> Count();

 private:
  SharedDatabase* shared_;
};

}  // namespace kjudge::server
