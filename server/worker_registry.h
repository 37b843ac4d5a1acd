// WorkerRegistry: the workers that have registered, the GPU each drives, and its hardware key.
//
// Contract: Register gives every call a new worker id (a restarted worker is a new worker;
// its old leases simply expire), bound to the API key that registered it: WorkerService lets
// only that key act for the id. HardwareKey (proto/hardware_key.h) is the identity baselines
// are cached under; any change in it means timings must be measured again. Workers are kept on disk for the dashboard.
#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "kjudge/v1/kjudge.pb.h"
#include "proto/hardware_key.h"
#include "server/shared_database.h"

namespace kjudge::server {

using kjudge::HardwareKey;  // proto/hardware_key.h

struct WorkerRecord {
  std::string id;
  std::string name;
  v1::GpuInfo gpu;
  std::string hardware_key;
  std::string api_key_id;  // the key that registered it ("" with auth off)
};

class WorkerRegistry {
 public:
  explicit WorkerRegistry(SharedDatabase* shared) : shared_(shared) {}

  absl::StatusOr<WorkerRecord> Register(const std::string& name, const v1::GpuInfo& gpu,
                                        const std::string& api_key_id);
  // nullopt for an unknown id (e.g. registered with a server whose database was replaced).
  absl::StatusOr<std::optional<WorkerRecord>> Find(const std::string& id);
  absl::Status Touch(const std::string& id);
  // Workers that called in since `since_unix_ms`.
  absl::StatusOr<int64_t> CountSeenSince(int64_t since_unix_ms);

 private:
  SharedDatabase* shared_;
};

}  // namespace kjudge::server
