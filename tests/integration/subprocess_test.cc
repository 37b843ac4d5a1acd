// Test hygiene (issue 30 point 7): what a test starts dies with it. A test process killed with
// SIGKILL (as ctest's timeout does) takes its background programs along, and a Subprocess that
// goes out of scope kills what its program started in its process group.
#include "tests/support/subprocess.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include <gtest/gtest.h>

namespace kjudge::testing {
namespace {

// Whether `pid` is gone (or a zombie nobody reaped yet): /proc says so.
bool Gone(pid_t pid) {
  const std::string stat = ReadFileOrEmpty("/proc/" + std::to_string(pid) + "/stat");
  if (stat.empty()) return true;
  const size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z';
}

bool GoneWithin(pid_t pid, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (Gone(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return Gone(pid);
}

// Reads the pid a program wrote to `path`, waiting up to 10 s for it.
pid_t PidFrom(const std::string& path) {
  for (int i = 0; i < 500; ++i) {
    const std::string text = ReadFileOrEmpty(path);
    if (!text.empty() && text.back() == '\n') return static_cast<pid_t>(std::stoi(text));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return -1;
}

TEST(Subprocess, ABackgroundProgramDiesWithTheTestThatStartedIt) {
  const std::string dir = std::filesystem::temp_directory_path() / ("kjudge-subprocess-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const pid_t test = fork();  // stands in for a test binary that ctest kills
  if (test == 0) {
    Subprocess sleeper({"/bin/sh", "-c", "echo $$ > " + dir + "/sleeper.pid; exec sleep 300"}, dir + "/log");
    pause();
    _exit(0);
  }
  const pid_t sleeper = PidFrom(dir + "/sleeper.pid");
  ASSERT_GT(sleeper, 0);
  EXPECT_FALSE(Gone(sleeper));
  kill(test, SIGKILL);
  waitpid(test, nullptr, 0);
  EXPECT_TRUE(GoneWithin(sleeper, std::chrono::seconds(5))) << "the test's background program outlived it";
  kill(sleeper, SIGKILL);
  std::filesystem::remove_all(dir);
}

TEST(Subprocess, EndingOneKillsWhatItsProgramStartedInItsGroup) {
  const std::string dir = std::filesystem::temp_directory_path() / ("kjudge-subprocess-g-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  pid_t grandchild = -1;
  {
    Subprocess shell({"/bin/sh", "-c", "sleep 300 & echo $! > " + dir + "/child.pid; wait"}, dir + "/log");
    grandchild = PidFrom(dir + "/child.pid");
    ASSERT_GT(grandchild, 0);
    EXPECT_FALSE(Gone(grandchild));
  }
  EXPECT_TRUE(GoneWithin(grandchild, std::chrono::seconds(5))) << "a program's child outlived its Subprocess";
  kill(grandchild, SIGKILL);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kjudge::testing
