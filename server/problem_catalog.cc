#include "server/problem_catalog.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "common/sha256.h"
#include "server/task_prompt.h"

namespace kjudge::server {
namespace {

std::string ReadFileOrEmpty(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return {};
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

v1::Problem ToProto(const ProblemFiles& files, const std::string& starter) {
  const ProblemSpec& spec = files.spec;
  v1::Problem proto;
  proto.set_name(spec.name);
  proto.set_level(spec.level);
  proto.set_title(spec.title);
  proto.set_description(spec.description);
  for (const std::string& size : spec.sizes) proto.add_sizes(size);
  for (const TensorSpec& tensor : spec.tensors) {
    v1::TensorInfo* info = proto.add_tensors();
    info->set_name(tensor.name);
    info->set_dtype(std::string(DTypeName(tensor.dtype)));
    for (const Expr& dim : tensor.shape) info->add_shape(dim.ToString());
    info->set_role(tensor.role == TensorRole::kIn ? "in" : "out");
  }
  proto.set_spec_toml(files.spec_toml);
  proto.set_starter_file(starter);
  for (const Shape& shape : spec.test_shapes) proto.add_test_shapes(shape.Label());
  for (const Shape& shape : spec.bench_shapes) proto.add_bench_shapes(shape.Label());
  proto.set_prompt(BuildTaskPrompt(files, starter));
  proto.set_needs_pytorch(!spec.HasCudaReference());
  return proto;
}

// Each part length-prefixed, so moving text from one file to another changes the digest.
std::string ContentDigest(const ProblemFiles& files, const std::string& starter) {
  std::string all;
  for (const std::string* part : {&files.spec_toml, &files.reference_source, &files.reference_module,
                                  &files.example_source, &starter}) {
    absl::StrAppend(&all, part->size(), ":", *part, ";");
  }
  return Sha256Hex(all);
}

// Every regular file below root as "path size mtime" lines, hashed. Symlinks are followed as
// the loader follows them. A listing error is part of the fingerprint (so it changes when fixed).
std::string DirectoryFingerprint(const std::filesystem::path& root) {
  namespace fs = std::filesystem;
  std::vector<std::string> lines;
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code file_ec;
    if (!it->is_regular_file(file_ec)) continue;
    const uintmax_t size = it->file_size(file_ec);
    const auto mtime = it->last_write_time(file_ec).time_since_epoch().count();
    lines.push_back(absl::StrCat(it->path().generic_string(), " ", size, " ", mtime, "\n"));
  }
  if (ec) lines.push_back(absl::StrCat("error ", ec.message()));
  std::sort(lines.begin(), lines.end());
  std::string all;
  for (const std::string& line : lines) all += line;
  return Sha256Hex(all);
}

}  // namespace

absl::StatusOr<std::unique_ptr<ProblemCatalog>> ProblemCatalog::Load(
    const std::filesystem::path& root) {
  absl::StatusOr<std::vector<ProblemFiles>> loaded = LoadProblemCatalog(root);
  if (!loaded.ok()) return loaded.status();
  auto catalog = std::make_unique<ProblemCatalog>();
  for (ProblemFiles& files : *loaded) {
    CatalogEntry entry;
    entry.starter_source = ReadFileOrEmpty(std::filesystem::path(files.dir) / "starter.cu");
    entry.proto = ToProto(files, entry.starter_source);
    entry.content_digest = ContentDigest(files, entry.starter_source);
    const std::string name = files.spec.name;
    entry.files = std::move(files);
    catalog->entries_.emplace(name, std::move(entry));
  }
  return catalog;
}

const CatalogEntry* ProblemCatalog::Find(const std::string& name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : &it->second;
}

std::vector<std::string> ProblemCatalog::LibraryBaselineNames(const std::string& name) const {
  std::vector<std::string> out;
  if (const CatalogEntry* entry = Find(name); entry != nullptr) {
    for (const LibraryBaselineSpec& baseline : entry->files.spec.baselines) out.push_back(baseline.name);
  }
  return out;
}

std::vector<std::string> ProblemCatalog::PyTorchOnlyNames() const {
  std::vector<std::string> out;
  for (const auto& [name, entry] : entries_) {
    if (!entry.files.spec.HasCudaReference()) out.push_back(name);
  }
  return out;
}

std::vector<v1::ProblemSummary> ProblemCatalog::List() const {
  std::vector<v1::ProblemSummary> out;
  for (const auto& [name, entry] : entries_) {
    v1::ProblemSummary summary;
    summary.set_name(name);
    summary.set_level(entry.files.spec.level);
    summary.set_title(entry.files.spec.title);
    summary.set_needs_pytorch(!entry.files.spec.HasCudaReference());
    out.push_back(std::move(summary));
  }
  return out;
}

std::vector<std::string> ProblemCatalog::Suggest(const std::string& name) const {
  // A problem matches when either name contains the other's last path component, e.g.
  // "ReLU" or "19_ReLU" for "level1/19_ReLU".
  const std::string tail = absl::AsciiStrToLower(name.substr(name.find_last_of('/') + 1));
  std::vector<std::string> out;
  for (const auto& [candidate, entry] : entries_) {
    if (!tail.empty() && absl::AsciiStrToLower(candidate).find(tail) != std::string::npos) {
      out.push_back(candidate);
    }
  }
  return out;
}

CatalogDiff ProblemCatalog::DiffFrom(const ProblemCatalog& before) const {
  CatalogDiff diff;
  for (const auto& [name, entry] : entries_) {
    const CatalogEntry* old = before.Find(name);
    if (old == nullptr) {
      diff.added.push_back(name);
    } else if (old->content_digest != entry.content_digest) {
      diff.changed.push_back(name);
    }
  }
  for (const auto& [name, entry] : before.entries_) {
    if (Find(name) == nullptr) diff.removed.push_back(name);
  }
  return diff;
}

LiveCatalog::LiveCatalog(std::filesystem::path root, std::shared_ptr<const ProblemCatalog> initial)
    : root_(std::move(root)), fingerprint_(DirectoryFingerprint(root_)), current_(std::move(initial)) {}

std::shared_ptr<const ProblemCatalog> LiveCatalog::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_;
}

std::shared_ptr<const CatalogEntry> LiveCatalog::Find(const std::string& name) const {
  std::shared_ptr<const ProblemCatalog> snapshot = Snapshot();
  const CatalogEntry* entry = snapshot->Find(name);
  if (entry == nullptr) return nullptr;
  return std::shared_ptr<const CatalogEntry>(std::move(snapshot), entry);  // aliasing: owns the snapshot
}

absl::StatusOr<CatalogDiff> LiveCatalog::Reload() {
  std::lock_guard<std::mutex> reload_lock(reload_mu_);
  return ReloadLocked();
}

bool LiveCatalog::ReloadIfChanged(std::chrono::milliseconds interval) {
  std::unique_lock<std::mutex> reload_lock(reload_mu_, std::try_to_lock);
  if (!reload_lock.owns_lock()) return false;  // another thread is checking or reloading
  const auto now = std::chrono::steady_clock::now();
  if (now < next_check_) return false;
  next_check_ = now + interval;
  if (DirectoryFingerprint(root_) == fingerprint_) return false;
  absl::StatusOr<CatalogDiff> diff = ReloadLocked();
  if (!diff.ok()) {
    spdlog::error("problem catalog '{}' changed but was not reloaded: {}", root_.string(), diff.status().message());
    return false;
  }
  spdlog::info("problem catalog '{}' reloaded: {} added, {} changed, {} removed", root_.string(), diff->added.size(),
               diff->changed.size(), diff->removed.size());
  return true;
}

absl::StatusOr<CatalogDiff> LiveCatalog::ReloadLocked() {
  // Taken before the load: a file written during it changes the next fingerprint, so the next
  // check loads again.
  fingerprint_ = DirectoryFingerprint(root_);
  absl::StatusOr<std::unique_ptr<ProblemCatalog>> loaded = ProblemCatalog::Load(root_);
  if (!loaded.ok()) {
    return absl::Status(loaded.status().code(),
                        absl::StrCat("reload refused, the previous catalog is still served: ",
                                     loaded.status().message(), " (fix the problem and reload again)"));
  }
  std::shared_ptr<const ProblemCatalog> next = std::move(*loaded);
  CatalogDiff diff = next->DiffFrom(*Snapshot());
  std::lock_guard<std::mutex> lock(mu_);
  current_ = std::move(next);
  return diff;
}

}  // namespace kjudge::server
