#include "common/problem_dir.h"

#include <filesystem>
#include <fstream>
#include <random>

#include "spec_fixture.h"
#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;
using ::kjudge::testing::kValidSpec;
using ::kjudge::testing::Message;
using ::kjudge::testing::Replace;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr std::string_view kExample =
    "__global__ void row_partial(const float* x, float* p, int m, int n, float a) {}\n"
    "/* kjudge-plan\n"
    "scratch partial : f32[cdiv(N, 1024) * M];\n"
    "row_partial<<<dim3(cdiv(N, 1024), M), 256>>>(X, partial, M, N, alpha);\n"
    "row_finish<256><<<M, 256>>>(partial, Y, M, cdiv(N, 1024));\n"
    "*/\n";

class ProblemDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device rd;
    root_ = fs::temp_directory_path() / ("kjudge_problem_dir_test_" + std::to_string(rd()));
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  static void Write(const fs::path& path, std::string_view text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
  }

  // Writes a complete problem named `name` under root_, with `spec` as its problem.toml.
  fs::path WriteProblem(const std::string& name, std::string spec = std::string(kValidSpec)) {
    Replace(spec, "level1/99_RowSum", name);
    const fs::path dir = root_ / name;
    Write(dir / "problem.toml", spec);
    Write(dir / "reference.cu", "__global__ void row_partial() {}\n");
    Write(dir / "solution.cu", kExample);
    return dir;
  }

  fs::path root_;
};

TEST_F(ProblemDirTest, LoadsAProblem) {
  const fs::path dir = WriteProblem("level1/99_RowSum");
  absl::StatusOr<ProblemFiles> files = LoadProblemDir(dir, "level1/99_RowSum");
  ASSERT_TRUE(files.ok()) << files.status();
  EXPECT_EQ(files->spec.name, "level1/99_RowSum");
  EXPECT_EQ(files->spec_toml.substr(0, 6), "name =");
  EXPECT_EQ(files->reference_source, "__global__ void row_partial() {}\n");
  EXPECT_EQ(files->example_source, kExample);
  EXPECT_EQ(files->dir, dir.string());
}

TEST_F(ProblemDirTest, LoadsAModuleOnlyProblem) {
  const fs::path dir = root_ / "level2/linear_relu";
  Write(dir / "problem.toml", ::kjudge::testing::kModuleSpec);
  Write(dir / "reference.py", "class Model: pass\n");
  absl::StatusOr<ProblemFiles> files = LoadProblemDir(dir, "level2/linear_relu");
  ASSERT_TRUE(files.ok()) << files.status();
  EXPECT_EQ(files->reference_module, "class Model: pass\n");
  EXPECT_EQ(files->reference_source, "");  // no reference.cu, and none needed
  EXPECT_FALSE(files->spec.HasCudaReference());

  fs::remove(dir / "reference.py");
  EXPECT_THAT(Message(LoadProblemDir(dir, "level2/linear_relu")),
              AllOf(StartsWith((dir / "problem.toml").string() + ": reference.module: "),
                    HasSubstr("reference.py: no such file")));
}

TEST_F(ProblemDirTest, LoadsBothReferences) {
  std::string spec(kValidSpec);
  Replace(spec, "source = \"reference.cu\"", "source = \"reference.cu\"\nmodule = \"ref.py\"");
  Replace(spec, "[tolerance]", "[module]\nforward = [\"X\"]\noutputs = [\"Y\"]\n\n[tolerance]");
  const fs::path dir = WriteProblem("level1/99_RowSum", spec);
  Write(dir / "ref.py", "# module\n");
  absl::StatusOr<ProblemFiles> files = LoadProblemDir(dir, "level1/99_RowSum");
  ASSERT_TRUE(files.ok()) << files.status();
  EXPECT_EQ(files->reference_source, "__global__ void row_partial() {}\n");
  EXPECT_EQ(files->reference_module, "# module\n");
}

TEST_F(ProblemDirTest, NameMustMatchDirectory) {
  const fs::path dir = WriteProblem("level1/99_RowSum");
  absl::StatusOr<ProblemFiles> files = LoadProblemDir(dir, "level1/98_Other");
  EXPECT_THAT(Message(files), HasSubstr("name: 'level1/99_RowSum' does not match the directory; "
                                        "expected 'level1/98_Other'"));
}

TEST_F(ProblemDirTest, MissingFiles) {
  const fs::path dir = WriteProblem("level1/99_RowSum");
  fs::remove(dir / "reference.cu");
  absl::StatusOr<ProblemFiles> files = LoadProblemDir(dir, "level1/99_RowSum");
  EXPECT_THAT(Message(files), HasSubstr("reference.source: "));
  EXPECT_THAT(Message(files), HasSubstr("reference.cu: no such file"));
  EXPECT_EQ(LoadProblemDir(root_ / "nope", "nope").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(ProblemDirTest, ReferencedFilesMustStayInside) {
  std::string spec(kValidSpec);
  Replace(spec, "\"reference.cu\"", "\"../reference.cu\"");
  const fs::path dir = WriteProblem("level1/99_RowSum", spec);
  EXPECT_THAT(Message(LoadProblemDir(dir, "level1/99_RowSum")),
              HasSubstr("reference.source: '../reference.cu' leaves the problem directory"));
}

TEST_F(ProblemDirTest, ExamplePlanIsChecked) {
  const fs::path dir = WriteProblem("level1/99_RowSum");
  std::string bad(kExample);
  Replace(bad, "(partial, Y,", "(partial, Q,");
  Write(dir / "solution.cu", bad);
  absl::StatusOr<ProblemFiles> files = LoadProblemDir(dir, "level1/99_RowSum");
  EXPECT_THAT(Message(files), HasSubstr("solution.cu:5:38: unknown name 'Q' in argument 2"));

  Write(dir / "solution.cu", "__global__ void k() {}\n");
  EXPECT_THAT(Message(LoadProblemDir(dir, "level1/99_RowSum")),
              HasSubstr("no '/* kjudge-plan ... */' block"));
}

TEST_F(ProblemDirTest, CatalogFindsEveryProblemSorted) {
  WriteProblem("level2/01_B");
  WriteProblem("level1/19_ReLU");
  WriteProblem("level1/02_A");
  absl::StatusOr<std::vector<ProblemFiles>> catalog = LoadProblemCatalog(root_);
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  ASSERT_EQ(catalog->size(), 3u);
  EXPECT_EQ((*catalog)[0].spec.name, "level1/02_A");
  EXPECT_EQ((*catalog)[1].spec.name, "level1/19_ReLU");
  EXPECT_EQ((*catalog)[2].spec.name, "level2/01_B");
}

TEST_F(ProblemDirTest, CatalogFailsOnFirstBrokenProblem) {
  WriteProblem("level1/02_A");
  std::string broken(kValidSpec);
  Replace(broken, "rtol = 1e-5\n", "");
  WriteProblem("level1/19_ReLU", broken);
  absl::StatusOr<std::vector<ProblemFiles>> catalog = LoadProblemCatalog(root_);
  ASSERT_FALSE(catalog.ok());
  EXPECT_THAT(Message(catalog), HasSubstr("level1/19_ReLU/problem.toml:37:1: tolerance.rtol: "
                                          "missing required key 'tolerance.rtol'"));
}

TEST_F(ProblemDirTest, CatalogNameIsTheRelativeDirectory) {
  std::string spec(kValidSpec);
  const fs::path dir = WriteProblem("level1/02_A");
  Replace(spec, "level1/99_RowSum", "level1/03_Wrong");
  Write(dir / "problem.toml", spec);
  EXPECT_THAT(Message(LoadProblemCatalog(root_)), HasSubstr("expected 'level1/02_A'"));
}

TEST_F(ProblemDirTest, EmptyOrMissingCatalog) {
  EXPECT_EQ(LoadProblemCatalog(root_).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(LoadProblemCatalog(root_ / "missing").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace kjudge
