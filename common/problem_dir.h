// ProblemDir: loads one problem directory (problem.toml + reference + optional example), or
// the whole catalog below a root such as problems/.
//
// Contract: never throws. LoadProblemDir parses <dir>/problem.toml (ParseProblemSpec, origin =
// that path), requires spec.name == expected_name, reads the reference source and the example
// (if any; its plan block must exist, parse and validate against the spec). The references are
// whichever the spec names: the CUDA source, the PyTorch module (reference.py), or both; a
// problem may have no reference.cu. Referenced files
// must be relative paths inside the directory. LoadProblemCatalog finds every problem.toml
// below root (recursively), expects each name to equal its directory's path relative to root
// with '/' separators (e.g. "level1/19_ReLU"), returns them sorted by name, and fails with the
// first broken problem's error; NotFoundError when root is missing or holds no problem.toml.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/problem_spec.h"

namespace kjudge {

struct ProblemFiles {
  ProblemSpec spec;
  std::string spec_toml;         // the text of problem.toml
  std::string reference_source;  // the text of the reference .cu; "" when the spec has none
  std::string reference_module;  // the text of reference.py ([reference] module); "" when none
  std::string example_source;    // the text of the example .cu; "" when none
  std::string dir;               // the problem directory, as given/found
};

absl::StatusOr<ProblemFiles> LoadProblemDir(const std::filesystem::path& dir,
                                            std::string_view expected_name);

absl::StatusOr<std::vector<ProblemFiles>> LoadProblemCatalog(const std::filesystem::path& root);

// Reads a whole file; NotFoundError / InternalError naming the path otherwise.
absl::StatusOr<std::string> ReadTextFile(const std::filesystem::path& path);

}  // namespace kjudge
