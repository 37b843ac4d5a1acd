// Relocatable tests: a test binary copied with the bundle's bin/ into another folder finds the
// runner next to it (or in ../bin/), an environment override wins, and the build-time path is
// only the last resort (it does not exist on a GPU host that got a bundle).
#include "tests/support/binary_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace kjudge::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kBuildTimePath = "/nonexistent/build/bin/kjudge-runner";

class BinaryPath : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("kjudge-binpath-" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "bundle" / "bin");
    fs::create_directories(root_ / "bundle" / "tests");
    unsetenv("KJUDGE_TEST_RUNNER_OVERRIDE");
  }
  void TearDown() override { fs::remove_all(root_); }

  static void MakeExecutable(const fs::path& path) {
    std::ofstream(path) << "#!/bin/sh\nexit 0\n";
    chmod(path.c_str(), 0755);
  }

  fs::path root_;
};

TEST_F(BinaryPath, RelocatedTestFindsTheRunnerNextToIt) {
  const fs::path runner = root_ / "bundle" / "bin" / "kjudge-runner";
  MakeExecutable(runner);
  const fs::path self = root_ / "bundle" / "bin" / "test_worker_gpu";
  EXPECT_EQ(ResolveBinary("kjudge-runner", "KJUDGE_TEST_RUNNER_OVERRIDE", kBuildTimePath, self),
            runner.string());
  // A test binary in a sibling folder: ../bin/.
  EXPECT_EQ(ResolveBinary("kjudge-runner", "KJUDGE_TEST_RUNNER_OVERRIDE", kBuildTimePath,
                          root_ / "bundle" / "tests" / "test_x"),
            runner.string());
}

TEST_F(BinaryPath, EnvironmentOverrideWinsAndBuildTimePathIsTheFallback) {
  const fs::path self = root_ / "bundle" / "bin" / "test_worker_gpu";
  // Nothing relocated: the build-time path.
  EXPECT_EQ(ResolveBinary("kjudge-runner", "KJUDGE_TEST_RUNNER_OVERRIDE", kBuildTimePath, self),
            kBuildTimePath);
  // A non-executable file of that name is not taken.
  std::ofstream(root_ / "bundle" / "bin" / "kjudge-runner") << "not a program";
  chmod((root_ / "bundle" / "bin" / "kjudge-runner").c_str(), 0644);
  EXPECT_EQ(ResolveBinary("kjudge-runner", "KJUDGE_TEST_RUNNER_OVERRIDE", kBuildTimePath, self),
            kBuildTimePath);
  MakeExecutable(root_ / "bundle" / "bin" / "kjudge-runner");
  ASSERT_EQ(setenv("KJUDGE_TEST_RUNNER_OVERRIDE", "/opt/elsewhere/kjudge-runner", 1), 0);
  EXPECT_EQ(ResolveBinary("kjudge-runner", "KJUDGE_TEST_RUNNER_OVERRIDE", kBuildTimePath, self),
            "/opt/elsewhere/kjudge-runner");
  ASSERT_EQ(setenv("KJUDGE_TEST_RUNNER_OVERRIDE", "", 1), 0);  // empty: not an override
  EXPECT_EQ(ResolveBinary("kjudge-runner", "KJUDGE_TEST_RUNNER_OVERRIDE", kBuildTimePath, self),
            (root_ / "bundle" / "bin" / "kjudge-runner").string());
  unsetenv("KJUDGE_TEST_RUNNER_OVERRIDE");
}

// What a relocated binary does without a given self path: run with
// KJUDGE_BINPATH_PRINT=1 it prints what it resolves from /proc/self/exe.
TEST(BinaryPathHelper, DISABLED_PrintResolved) {
  if (std::getenv("KJUDGE_BINPATH_PRINT") == nullptr) GTEST_SKIP();
  std::printf("resolved=%s\n",
              ResolveBinary("kjudge-runner", "KJUDGE_TEST_RUNNER_OVERRIDE", kBuildTimePath).c_str());
}

// The real thing: copy this very test binary and a stand-in runner into a bundle-like layout
// elsewhere, run the copy, and check it resolves the copied runner through /proc/self/exe.
TEST_F(BinaryPath, CopiedTestBinaryResolvesThroughProcSelfExe) {
  const fs::path self = fs::read_symlink("/proc/self/exe");
  const fs::path copy = root_ / "bundle" / "bin" / "test_copy";
  fs::copy_file(self, copy);
  const fs::path runner = root_ / "bundle" / "bin" / "kjudge-runner";
  MakeExecutable(runner);
  const std::string command = "KJUDGE_BINPATH_PRINT=1 '" + copy.string() +
                              "' --gtest_also_run_disabled_tests "
                              "--gtest_filter=BinaryPathHelper.DISABLED_PrintResolved 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof(buffer), pipe)) > 0;) out.append(buffer, n);
  EXPECT_EQ(pclose(pipe), 0) << out;
  EXPECT_NE(out.find("resolved=" + runner.string() + "\n"), std::string::npos) << out;
}

}  // namespace
}  // namespace kjudge::testing
