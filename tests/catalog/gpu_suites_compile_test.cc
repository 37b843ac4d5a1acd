// The GPU suites' kernels compile, checked without a GPU: every kernel that
// tests/gpu/adversarial/manifest.tsv and tests/gpu/unusual/manifest.tsv list whose expected
// verdicts do not include COMPILE_ERROR or REJECTED compiles with NVRTC for sm_90a against its
// problem (the plan's kernel names resolved, kjudge's std_headers first on the include path),
// exactly as catalog_test.cc compiles the examples. So a hostile case meant to fail at run
// time (WRONG_ANSWER, TIMEOUT, ...) cannot silently turn into a compile error, and every
// unusual-but-correct kernel compiles. Compile-error cases are not compiled here: some are
// bombs or read endless pseudo-files, and only the sandboxed compiler may run them.
#include <gtest/gtest.h>

#include <filesystem>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "common/problem_dir.h"
#include "worker/gpu/job_setup.h"
#include "worker/gpu/nvrtc_compiler.h"

namespace kjudge {
namespace {

const std::filesystem::path kSource = std::filesystem::path(KJUDGE_SOURCE_DIR);
const std::vector<std::string> kStdHeaders = {(kSource / "worker/compiler/std_headers").string()};

struct SuiteCase {
  std::string file;      // relative to the repository root
  std::string problem;   // e.g. level1/19_ReLU
  std::string expected;  // verdict alternatives separated by '|'
};

std::vector<std::string> SplitTabs(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  std::string field;
  while (std::getline(in, field, '\t')) fields.push_back(field);
  return fields;
}

// The manifest rows that must compile (no COMPILE_ERROR / REJECTED among the verdicts).
std::vector<SuiteCase> CasesThatMustCompile() {
  std::vector<SuiteCase> cases;
  for (const char* manifest : {"tests/gpu/adversarial/manifest.tsv", "tests/gpu/unusual/manifest.tsv"}) {
    absl::StatusOr<std::string> text = ReadTextFile(kSource / manifest);
    if (!text.ok()) continue;  // reported by ManifestsAreRead
    std::stringstream lines(*text);
    std::string line;
    while (std::getline(lines, line)) {
      const std::vector<std::string> f = SplitTabs(line);
      if (f.size() < 3 || f[0] == "file" || f[0].empty() || f[0][0] == '#') continue;
      if (f[0].rfind("problems/", 0) == 0) continue;  // example solutions: catalog_test.cc
      const std::string verdicts = "|" + f[2] + "|";
      if (verdicts.find("|COMPILE_ERROR|") != std::string::npos ||
          verdicts.find("|REJECTED|") != std::string::npos) {
        continue;
      }
      bool seen = false;  // an unusual kernel may also follow a hostile case in the adversarial list
      for (const SuiteCase& c : cases) seen = seen || c.file == f[0];
      if (!seen) cases.push_back({f[0], f[1], f[2]});
    }
  }
  return cases;
}

// gtest prints a failing case's parameter: its file, not its bytes.
void PrintTo(const SuiteCase& c, std::ostream* os) { *os << c.file << " (" << c.expected << ")"; }

class SuiteKernel : public ::testing::TestWithParam<SuiteCase> {};

TEST_P(SuiteKernel, CompilesWithNvrtc) {
  const SuiteCase& c = GetParam();
  absl::StatusOr<ProblemFiles> files = LoadProblemDir(kSource / "problems" / c.problem, c.problem);
  ASSERT_TRUE(files.ok()) << c.file << ": its problem " << c.problem << ": " << files.status();
  absl::StatusOr<std::string> source = ReadTextFile(kSource / c.file);
  ASSERT_TRUE(source.ok()) << source.status();
  const std::string program = std::filesystem::path(c.file).filename().string();
  v1::RunSpec run;
  run.set_problem(files->spec.name);
  run.set_spec_toml(files->spec_toml);
  run.set_reference_source(files->reference_source);
  run.set_reference_module(files->reference_module);
  run.set_source(*source);
  run.set_filename(program);
  absl::StatusOr<runner::JobSetup> setup = runner::SetUpJob(run);
  ASSERT_TRUE(setup.ok()) << c.file << " (expected " << c.expected << "): its plan: " << setup.status();
  absl::StatusOr<runner::CompileOutcome> outcome =
      runner::CompileWithNvrtc({*source, program, "sm_90a", setup->candidate_names}, kStdHeaders);
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_TRUE(outcome->success) << c.file << " (expected " << c.expected << ") does not compile: "
                                << outcome->message << "\n"
                                << outcome->log;
}

std::string CaseName(const ::testing::TestParamInfo<SuiteCase>& info) {
  std::string name = std::filesystem::path(info.param.file).parent_path().filename().string() + "_" +
                     std::filesystem::path(info.param.file).stem().string();
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(GpuSuites, SuiteKernel, ::testing::ValuesIn(CasesThatMustCompile()), CaseName);

// The manifests exist and list enough kernels that the parameterised test above means something.
TEST(GpuSuites, ManifestsAreRead) {
  for (const char* manifest : {"tests/gpu/adversarial/manifest.tsv", "tests/gpu/unusual/manifest.tsv"}) {
    EXPECT_TRUE(ReadTextFile(kSource / manifest).ok()) << manifest;
  }
  EXPECT_GE(CasesThatMustCompile().size(), 40u);
}

}  // namespace
}  // namespace kjudge
