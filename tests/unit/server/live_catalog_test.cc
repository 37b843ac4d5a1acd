// LiveCatalog (issue 27 pt9): a reload swaps the whole catalog or nothing, reports what was
// added, changed and removed, keeps snapshots that readers hold alive, and ReloadIfChanged (the
// dashboard's watch) notices a new import on its own. Real problem directories on disk.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <unistd.h>

#include "server/problem_catalog.h"

namespace kjudge::server {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = fs::path(KJUDGE_SOURCE_DIR) / "problems" / "level1";

class LiveCatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("kjudge-live-catalog-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    for (const char* name : {"1_Square_matrix_multiplication_", "12_Matmul_with_diagonal_matrices_", "100_HingeLoss"}) {
      Copy(name);
    }
  }
  void TearDown() override { fs::remove_all(root_); }
  void Copy(const std::string& name) {
    fs::create_directories(root_ / "level1");
    fs::copy(kSource / name, root_ / "level1" / name, fs::copy_options::recursive);
  }
  std::unique_ptr<LiveCatalog> Open() {
    absl::StatusOr<std::unique_ptr<ProblemCatalog>> loaded = ProblemCatalog::Load(root_);
    EXPECT_TRUE(loaded.ok()) << loaded.status();
    return std::make_unique<LiveCatalog>(root_, std::move(*loaded));
  }
  void Append(const std::string& name, const std::string& text) {
    std::ofstream(root_ / "level1" / name / "problem.toml", std::ios::app) << text;
  }

  fs::path root_;
};

std::vector<std::string> Names(const LiveCatalog& catalog) {
  std::vector<std::string> names;
  for (const v1::ProblemSummary& summary : catalog.List()) names.push_back(summary.name());
  return names;
}

TEST_F(LiveCatalogTest, ListsByKernelBenchNumber) {
  std::unique_ptr<LiveCatalog> catalog = Open();
  EXPECT_EQ(Names(*catalog), (std::vector<std::string>{"level1/1_Square_matrix_multiplication_",
                                                       "level1/12_Matmul_with_diagonal_matrices_", "level1/100_HingeLoss"}));
}

TEST_F(LiveCatalogTest, ReloadReportsAddedChangedRemovedAndKeepsHeldSnapshots) {
  std::unique_ptr<LiveCatalog> catalog = Open();
  std::shared_ptr<const CatalogEntry> held = catalog->Find("level1/1_Square_matrix_multiplication_");
  ASSERT_NE(held, nullptr);
  fs::remove_all(root_ / "level1" / "1_Square_matrix_multiplication_");
  Append("12_Matmul_with_diagonal_matrices_", "\n# changed by the test\n");
  Copy("19_ReLU");
  absl::StatusOr<CatalogDiff> diff = catalog->Reload();
  ASSERT_TRUE(diff.ok()) << diff.status();
  EXPECT_EQ(diff->added, std::vector<std::string>{"level1/19_ReLU"});
  EXPECT_EQ(diff->changed, std::vector<std::string>{"level1/12_Matmul_with_diagonal_matrices_"});
  EXPECT_EQ(diff->removed, std::vector<std::string>{"level1/1_Square_matrix_multiplication_"});
  EXPECT_EQ(catalog->size(), 3u);
  EXPECT_EQ(catalog->Find("level1/1_Square_matrix_multiplication_"), nullptr);
  EXPECT_NE(catalog->Find("level1/19_ReLU"), nullptr);
  // The entry a reader took before the reload is still whole (its snapshot lives on).
  EXPECT_EQ(held->proto.name(), "level1/1_Square_matrix_multiplication_");
  absl::StatusOr<CatalogDiff> again = catalog->Reload();
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->added.empty() && again->changed.empty() && again->removed.empty());
}

TEST_F(LiveCatalogTest, ABrokenProblemRefusesTheWholeReloadAndTheOldCatalogServes) {
  std::unique_ptr<LiveCatalog> catalog = Open();
  Copy("19_ReLU");
  Append("100_HingeLoss", "\nthis is not toml [[[\n");
  absl::StatusOr<CatalogDiff> diff = catalog->Reload();
  ASSERT_FALSE(diff.ok());
  const std::string message(diff.status().message());
  EXPECT_NE(message.find("100_HingeLoss/problem.toml"), std::string::npos) << message;
  EXPECT_NE(message.find("previous catalog is still served"), std::string::npos) << message;
  EXPECT_EQ(catalog->size(), 3u);  // not even the valid new problem
  EXPECT_EQ(catalog->Find("level1/19_ReLU"), nullptr);
  EXPECT_NE(catalog->Find("level1/100_HingeLoss"), nullptr);
}

TEST_F(LiveCatalogTest, ReloadIfChangedReloadsAChangedDirectory) {
  std::unique_ptr<LiveCatalog> catalog = Open();
  EXPECT_FALSE(catalog->ReloadIfChanged(std::chrono::milliseconds(0)));  // nothing changed
  Copy("19_ReLU");
  EXPECT_TRUE(catalog->ReloadIfChanged(std::chrono::hours(1)));
  EXPECT_NE(catalog->Find("level1/19_ReLU"), nullptr);
  // Within the interval nothing is checked, even after another change.
  fs::remove_all(root_ / "level1" / "19_ReLU");
  EXPECT_FALSE(catalog->ReloadIfChanged(std::chrono::hours(1)));
  EXPECT_NE(catalog->Find("level1/19_ReLU"), nullptr);
}

}  // namespace
}  // namespace kjudge::server
