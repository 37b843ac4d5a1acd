// BaselineStore: cached baseline timings, per problem, shape, implementation and hardware key.
//
// Contract: a baseline is only ever served to workers with the same hardware key it was
// measured under, so a driver or library upgrade means re-measurement, never a stale speedup.
// Put replaces an existing entry (a re-measurement on request).
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kjudge/v1/kjudge.pb.h"
#include "server/shared_database.h"

namespace kjudge::server {

class BaselineStore {
 public:
  explicit BaselineStore(SharedDatabase* shared) : shared_(shared) {}

  absl::StatusOr<std::vector<v1::BaselineTiming>> Find(const std::string& problem,
                                                       const std::string& hardware_key);
  absl::Status Put(const v1::BaselineTiming& baseline);

 private:
  SharedDatabase* shared_;
};

}  // namespace kjudge::server
