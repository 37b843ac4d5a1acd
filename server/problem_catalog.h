// ProblemCatalog: the problems the server offers, loaded from the problems/ directory.
// LiveCatalog: the catalog a running process serves, replaced whole by a reload.
//
// Contract: Load fails on the first malformed problem with its path and the reason, so a bad
// catalog is found at start-up, not by a user. Lookups are by full name ("level1/19_ReLU").
// A ProblemCatalog is immutable after Load and safe to share between threads; List() and every
// other listing are in catalog order (common/problem_order.h: by KernelBench number).
// LiveCatalog holds one ProblemCatalog at a time as a shared_ptr snapshot: a reader takes the
// snapshot (or a Find result, which keeps its snapshot alive) and uses it for as long as it
// likes while Reload swaps in a new one; Reload loads and validates the whole directory first
// and changes nothing when any problem is broken (issue 27 pt9).
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/problem_dir.h"
#include "common/problem_order.h"
#include "kjudge/v1/kjudge.pb.h"

namespace kjudge::server {

struct CatalogEntry {
  ProblemFiles files;
  std::string starter_source;
  v1::Problem proto;
  // SHA-256 over every file the problem is judged and described with (problem.toml, the
  // references, the example, starter.cu): a reload calls the problem changed when it differs.
  std::string content_digest;
};

// What a reload changed, by problem name (each list in catalog order).
struct CatalogDiff {
  std::vector<std::string> added;
  std::vector<std::string> changed;
  std::vector<std::string> removed;
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
  // What changed from `before` to this catalog.
  CatalogDiff DiffFrom(const ProblemCatalog& before) const;

 private:
  std::map<std::string, CatalogEntry, ProblemNameOrder> entries_;
};

class LiveCatalog {
 public:
  LiveCatalog(std::filesystem::path root, std::shared_ptr<const ProblemCatalog> initial);

  // The catalog served now; stays valid (and unchanged) for as long as the caller holds it.
  std::shared_ptr<const ProblemCatalog> Snapshot() const;
  // ProblemCatalog's lookups on the current snapshot. Find's result keeps its snapshot alive.
  std::shared_ptr<const CatalogEntry> Find(const std::string& name) const;
  std::vector<v1::ProblemSummary> List() const { return Snapshot()->List(); }
  size_t size() const { return Snapshot()->size(); }
  std::vector<std::string> LibraryBaselineNames(const std::string& name) const {
    return Snapshot()->LibraryBaselineNames(name);
  }
  std::vector<std::string> PyTorchOnlyNames() const { return Snapshot()->PyTorchOnlyNames(); }

  // Re-reads the root directory. A problem that fails to load fails the whole reload (its path
  // and reason in the status, prefixed with what to do) and the current catalog stays; else the
  // new one is served from now on and the diff is returned. One reload at a time.
  absl::StatusOr<CatalogDiff> Reload();
  // For a process nobody tells about an import (the dashboard): at most once per `interval`
  // (the caller that finds it due does the work; the others return at once), compares a
  // fingerprint of the directory (every file's path, size and modification time) with the one
  // last loaded or refused, and reloads when it differs. True when a new catalog was swapped in;
  // a refused reload is logged once per fingerprint and the current catalog stays.
  bool ReloadIfChanged(std::chrono::milliseconds interval);
  const std::filesystem::path& root() const { return root_; }

 private:
  absl::StatusOr<CatalogDiff> ReloadLocked();  // reload_mu_ held

  const std::filesystem::path root_;
  std::mutex reload_mu_;  // serialises Reload (held across the load, not by readers)
  std::string fingerprint_;  // the directory as last loaded or refused; guarded by reload_mu_
  std::chrono::steady_clock::time_point next_check_;  // guarded by reload_mu_
  mutable std::mutex mu_;  // guards current_ (held only to copy or replace the pointer)
  std::shared_ptr<const ProblemCatalog> current_;
};

}  // namespace kjudge::server
