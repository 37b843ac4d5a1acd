// ProblemCatalog: the problems the server offers, loaded once from the problems/ directory.
//
// Contract: Load fails on the first malformed problem with its path and the reason, so a bad
// catalog is found at start-up, not by a user. Lookups are by full name ("level1/19_ReLU").
// The catalog is immutable after Load and safe to share between threads.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/problem_dir.h"
#include "kjudge/v1/kjudge.pb.h"

namespace kjudge::server {

struct CatalogEntry {
  ProblemFiles files;
  std::string starter_source;
  v1::Problem proto;
};

class ProblemCatalog {
 public:
  static absl::StatusOr<std::unique_ptr<ProblemCatalog>> Load(const std::filesystem::path& root);

  const CatalogEntry* Find(const std::string& name) const;
  std::vector<v1::ProblemSummary> List() const;
  size_t size() const { return entries_.size(); }
  // Names near `name`, for "did you mean" messages.
  std::vector<std::string> Suggest(const std::string& name) const;
  // The names of a problem's library baselines ([[baseline]]); none for an unknown problem.
  // What the default speedup denominator may choose besides torch_eager (kernel_metrics.h).
  std::vector<std::string> LibraryBaselineNames(const std::string& name) const;
  // The problems without a CUDA reference (only reference.py): judged only by workers with
  // PyTorch (docs/pytorch-problems.md section 2).
  std::vector<std::string> PyTorchOnlyNames() const;

 private:
  std::map<std::string, CatalogEntry> entries_;
};

}  // namespace kjudge::server
