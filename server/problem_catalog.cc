#include "server/problem_catalog.h"

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
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

}  // namespace kjudge::server
