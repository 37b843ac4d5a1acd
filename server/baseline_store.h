// BaselineStore: cached baseline timings, per problem, shape, implementation and hardware key.
//
// Contract: a baseline is only ever served to workers with the same hardware key it was
// measured under, so a driver or library upgrade means re-measurement, never a stale speedup.
// Put replaces an existing entry (a re-measurement on request). Baselines measured elsewhere
// (PyTorch eager / torch.compile, imported by `kjudge baselines import`) are stored under the
// hardware key "imported|<gpu name>" and matched to workers by GPU name.
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
  // Every cached baseline of problems starting with `problem_prefix`, any hardware.
  absl::StatusOr<std::vector<v1::BaselineTiming>> List(const std::string& problem_prefix);
  // Forgets measured (not imported) baselines of those problems; returns how many.
  absl::StatusOr<int64_t> RemoveMeasured(const std::string& problem_prefix);
  // Imported baselines (hardware key "imported|<gpu name>") measured on this GPU model.
  absl::StatusOr<std::vector<v1::BaselineTiming>> FindImported(const std::string& problem,
                                                               const std::string& gpu_name);

 private:
  SharedDatabase* shared_;
};

}  // namespace kjudge::server
