#include "common/problem_dir.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "common/absl_compat.h"
#include "common/launch_plan.h"
#include "common/plan_block.h"
#include "common/status_macros.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kSpecFile = "problem.toml";

// A file named by the spec: relative, and not escaping the problem directory.
absl::StatusOr<fs::path> ProblemFilePath(const fs::path& dir, const std::string& spec_path,
                                         absl::string_view key, absl::string_view origin) {
  const fs::path rel(spec_path);
  bool escapes = rel.is_absolute() || rel.has_root_name();
  for (const fs::path& part : rel) escapes = escapes || part == "..";
  if (escapes) {
    return absl::InvalidArgumentError(absl::StrCat(
        origin, ": ", key, ": '", spec_path,
        "' leaves the problem directory; expected a relative path inside it"));
  }
  return dir / rel;
}

absl::Status CheckExample(const ProblemFiles& files, const std::string& example_path) {
  absl::StatusOr<std::optional<PlanBlock>> block = FindPlanBlock(files.example_source);
  if (!block.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(example_path, ":", block.status().message()));
  }
  if (!block->has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        example_path, ": no '/* kjudge-plan ... */' block; expected the example's launch plan"));
  }
  absl::StatusOr<LaunchPlan> plan = ParseLaunchPlan((*block)->text, (*block)->first_line);
  absl::Status st = plan.ok() ? ValidatePlanAgainstSpec(*plan, files.spec) : plan.status();
  if (!st.ok()) return absl::InvalidArgumentError(absl::StrCat(example_path, ":", st.message()));
  return absl::OkStatus();
}

// A file the spec names, read; errors name the spec and the key that named it.
absl::StatusOr<std::string> ReadNamedFile(const fs::path& dir, const std::string& name,
                                          absl::string_view key, const std::string& origin) {
  absl::StatusOr<fs::path> path = ProblemFilePath(dir, name, key, origin);
  if (!path.ok()) return path.status();
  absl::StatusOr<std::string> text = ReadTextFile(*path);
  if (!text.ok()) {
    return absl::Status(text.status().code(),
                        absl::StrCat(origin, ": ", key, ": ", text.status().message()));
  }
  return text;
}

// The CUDA reference and the PyTorch module, whichever the spec names.
absl::Status LoadReferences(const fs::path& dir, const std::string& origin, ProblemFiles& files) {
  if (files.spec.HasCudaReference()) {
    absl::StatusOr<std::string> ref =
        ReadNamedFile(dir, files.spec.reference_source_file, "reference.source", origin);
    if (!ref.ok()) return ref.status();
    files.reference_source = *std::move(ref);
  }
  if (files.spec.module.has_value()) {
    absl::StatusOr<std::string> module =
        ReadNamedFile(dir, files.spec.module->module_file, "reference.module", origin);
    if (!module.ok()) return module.status();
    files.reference_module = *std::move(module);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> ReadTextFile(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    return absl::NotFoundError(absl::StrCat(path.string(), ": no such file"));
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in.good() && !in.eof()) {
    return absl::InternalError(absl::StrCat(path.string(), ": cannot read the file"));
  }
  return std::move(text).str();
}

absl::StatusOr<ProblemFiles> LoadProblemDir(const fs::path& dir, std::string_view expected_name) {
  ProblemFiles files;
  files.dir = dir.string();
  const std::string origin = (dir / kSpecFile).string();
  absl::StatusOr<std::string> toml = ReadTextFile(dir / kSpecFile);
  if (!toml.ok()) return toml.status();
  files.spec_toml = *std::move(toml);
  absl::StatusOr<ProblemSpec> spec = ParseProblemSpec(files.spec_toml, origin);
  if (!spec.ok()) return spec.status();
  files.spec = *std::move(spec);
  if (files.spec.name != expected_name) {
    return absl::InvalidArgumentError(absl::StrCat(origin, ": name: '", files.spec.name,
                                                   "' does not match the directory; expected '",
                                                   ToAbsl(expected_name), "'"));
  }
  KJ_RETURN_IF_ERROR(LoadReferences(dir, origin, files));
  if (files.spec.example_file.empty()) return files;
  absl::StatusOr<std::string> example = ReadNamedFile(dir, files.spec.example_file, "example", origin);
  if (!example.ok()) return example.status();
  files.example_source = *std::move(example);
  KJ_RETURN_IF_ERROR(CheckExample(files, (dir / files.spec.example_file).string()));
  return files;
}

absl::StatusOr<std::vector<ProblemFiles>> LoadProblemCatalog(const fs::path& root) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    return absl::NotFoundError(absl::StrCat(root.string(), ": not a directory; expected the problem catalog root"));
  }
  std::vector<std::string> names;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->path().filename() != kSpecFile) continue;
    names.push_back(it->path().parent_path().lexically_relative(root).generic_string());
  }
  if (ec) {
    return absl::InternalError(absl::StrCat(root.string(), ": cannot list the catalog: ", ec.message()));
  }
  if (names.empty()) {
    return absl::NotFoundError(absl::StrCat(root.string(), ": no problem.toml below it; expected at least one problem"));
  }
  std::sort(names.begin(), names.end());
  std::vector<ProblemFiles> problems;
  for (const std::string& name : names) {
    absl::StatusOr<ProblemFiles> files = LoadProblemDir(root / name, name);
    if (!files.ok()) return files.status();
    problems.push_back(*std::move(files));
  }
  return problems;
}

}  // namespace kjudge
