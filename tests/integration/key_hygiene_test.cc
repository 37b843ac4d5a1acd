// Worker key hygiene, end to end with the real binaries: the worker authenticates with a key
// read from --api-key-file against a server with --require-auth, and no other process of the
// same user can read its key from /proc/<worker pid>/environ (the worker is non-dumpable and
// scrubs the compatibility KJUDGE_API_KEY from its environment block).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "tests/integration/cluster.h"

namespace kjudge::testing {
namespace {

const std::string kSolution = "problems/level1/19_ReLU/solution.cu";

CliResult SubmitAndWait(Cluster& cluster, const std::string& key) {
  return cluster.Cli({"--api-key", key, "submit", SourcePath(kSolution), "--problem",
                      "level1/19_ReLU", "--compile-only", "--wait"});
}

// /proc/<pid>/environ of the worker: unreadable for this user (non-dumpable: the kernel hands
// the process's /proc files to root, which may show as another uid in a user namespace), or,
// when this test runs as root and can read anything, free of the key.
void ExpectEnvironHidesKey(pid_t pid, const std::string& key) {
  const std::string path = "/proc/" + std::to_string(pid) + "/environ";
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0) << path << ": " << std::strerror(errno);
  std::ifstream in(path, std::ios::binary);
  if (geteuid() != 0) {
    EXPECT_NE(st.st_uid, geteuid()) << "the worker is dumpable: " << path << " is ours";
    EXPECT_FALSE(in.good() && in.peek() != EOF) << path << " is readable by uid " << geteuid();
    return;
  }
  const std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(contents.find(key), std::string::npos) << "the key is in " << path;
}

TEST(KeyHygiene, WorkerAuthenticatesWithAKeyFileAndIsNotDumpable) {
  Cluster cluster("key-file");
  const std::string submitter = cluster.CreateKey("submitter");
  const std::string worker = cluster.CreateKey("worker");
  ASSERT_FALSE(worker.empty());
  cluster.StartServer({"--require-auth"});
  const std::string key_path = cluster.dir() + "/worker.key";
  {
    std::ofstream out(key_path);
    out << worker << "\n";  // a trailing newline, as `echo KEY > file` writes it
  }
  ASSERT_EQ(chmod(key_path.c_str(), 0600), 0);
  cluster.StartWorker({"--api-key-file", key_path});
  ASSERT_TRUE(cluster.WaitForLog("worker.log", "registered with", 30)) << cluster.Logs();
  CliResult ok = SubmitAndWait(cluster, submitter);
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err << cluster.Logs();
  EXPECT_EQ(ok.json.value("/result/verdict"_json_pointer, std::string()), "COMPILED");
  ExpectEnvironHidesKey(cluster.worker_pid(), worker);
}

TEST(KeyHygiene, EnvironmentKeyStillWorksButIsScrubbedAndWarnedAbout) {
  Cluster cluster("env-key");
  const std::string submitter = cluster.CreateKey("submitter");
  const std::string worker = cluster.CreateKey("worker");
  cluster.StartServer({"--require-auth"});
  ASSERT_EQ(setenv("KJUDGE_API_KEY", worker.c_str(), 1), 0);
  cluster.StartWorker();
  unsetenv("KJUDGE_API_KEY");
  ASSERT_TRUE(cluster.WaitForLog("worker.log", "registered with", 30)) << cluster.Logs();
  EXPECT_TRUE(cluster.WaitForLog("worker.log", "use --api-key-file", 5)) << cluster.Logs();
  CliResult ok = SubmitAndWait(cluster, submitter);
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err << cluster.Logs();
  ExpectEnvironHidesKey(cluster.worker_pid(), worker);
}

TEST(KeyHygiene, UnreadableKeyFileIsAnError) {
  Cluster cluster("bad-key-file");
  cluster.StartServer({"--require-auth"});
  cluster.StartWorker({"--api-key-file", cluster.dir() + "/missing.key"});
  EXPECT_EQ(cluster.WaitWorker(30), 2) << cluster.Logs();
  EXPECT_TRUE(cluster.WaitForLog("worker.log", "cannot open --api-key-file", 5)) << cluster.Logs();
}

}  // namespace
}  // namespace kjudge::testing
