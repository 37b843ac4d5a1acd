// Start-up errors of kjudge-server (and the clients' --tls-ca) say what is wrong, with the real
// binaries: unreadable TLS files are named with the reason (not reported as "port in use"), a
// missing --tls-ca file stops the CLI and the worker (not a silent fall back to the system CAs),
// a read-only database gets a clear sentence without SQL, and the database files are owner-only
// whatever the umask.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tests/integration/cluster.h"
#include "tests/support/binary_path.h"

namespace kjudge::testing {
namespace {

using std::chrono::seconds;

std::string ServerBin() { return ResolveBinary("kjudge-server", "KJUDGE_SERVER_BIN", KJUDGE_SERVER_BIN); }
std::string CliBin() { return ResolveBinary("kjudge", "KJUDGE_CLI_BIN", KJUDGE_CLI_BIN); }
std::string WorkerBin() { return ResolveBinary("kjudge-worker", "KJUDGE_WORKER_BIN", KJUDGE_WORKER_BIN); }

std::vector<std::string> ServerArgs(const Cluster& cluster, const std::string& db) {
  return {ServerBin(), "--db", db, "--listen", cluster.address(), "--problems", SourcePath("problems")};
}

mode_t ModeOf(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return 0;
  return info.st_mode & 0777;
}

// No statement text in what an operator is shown.
void ExpectNoSql(const std::string& text) {
  for (const char* word : {"SELECT", "INSERT", "UPDATE ", "CREATE", "PRAGMA", "sqlite_"}) {
    EXPECT_EQ(text.find(word), std::string::npos) << word << " in:\n" << text;
  }
}

TEST(ServerStart, UnreadableTlsFilesAreNamedWithTheReason) {
  Cluster cluster("start-tls-files");
  const std::string& dir = cluster.dir();
  std::ofstream(dir + "/key.pem") << "-----BEGIN PRIVATE KEY-----\n";
  // A directory cannot be read as a file, even by root (chmod 000 would not stop root).
  std::filesystem::create_directories(dir + "/cert-dir");
  std::vector<std::string> args = ServerArgs(cluster, dir + "/a.sqlite");
  args.insert(args.end(), {"--tls-cert", dir + "/cert-dir", "--tls-key", dir + "/key.pem"});
  CommandResult run = kjudge::testing::Run(args, seconds(30));
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("cannot read --tls-cert " + dir + "/cert-dir: Is a directory"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("in use"), std::string::npos) << run.err;

  args = ServerArgs(cluster, dir + "/a.sqlite");
  args.insert(args.end(), {"--tls-cert", dir + "/key.pem", "--tls-key", dir + "/missing.pem"});
  run = kjudge::testing::Run(args, seconds(30));
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("cannot read --tls-key " + dir + "/missing.pem: No such file or directory"),
            std::string::npos)
      << run.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/a.sqlite"));  // stopped before touching the database
}

TEST(ServerStart, AMissingTlsCaFileStopsTheCliAndTheWorker) {
  Cluster cluster("start-tls-ca");
  const std::string missing = cluster.dir() + "/no-such-ca.pem";
  CommandResult cli = kjudge::testing::Run({CliBin(), "--server", cluster.address(), "--tls-ca", missing, "problems"},
                                           seconds(30));
  EXPECT_EQ(cli.exit_code, 2) << cli.out << cli.err;
  EXPECT_NE(cli.err.find("--tls-ca: cannot read " + missing + ": No such file or directory"), std::string::npos)
      << cli.err;
  CommandResult worker = kjudge::testing::Run(
      {WorkerBin(), "--server", cluster.address(), "--tls-ca", missing, "--compile-only"}, seconds(30));
  EXPECT_NE(worker.exit_code, 0) << worker.out << worker.err;
  EXPECT_NE((worker.out + worker.err).find("--tls-ca: cannot read " + missing + ": No such file or directory"),
            std::string::npos)
      << worker.out << worker.err;
}

TEST(ServerStart, AReadOnlyDatabaseGetsAClearMessage) {
  Cluster cluster("start-readonly");
  const std::string db = cluster.dir() + "/kjudge.sqlite";
  ASSERT_EQ(kjudge::testing::Run({ServerBin(), "--db", db, "keys", "list"}, seconds(30)).exit_code, 0);
  ASSERT_EQ(::chmod(db.c_str(), 0444), 0);
  ASSERT_EQ(::chmod(cluster.dir().c_str(), 0755), 0);
  std::vector<std::string> args = ServerArgs(cluster, db);
  if (::geteuid() == 0) {
    // Root writes any file whatever its mode: run the server as nobody, as a service user would be.
    args.insert(args.begin(), {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"});
  }
  CommandResult run = kjudge::testing::Run(args, seconds(30));
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("read-only"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find(db), std::string::npos) << run.err;
  ExpectNoSql(run.out + run.err);
}

TEST(ServerStart, DatabaseFilesAreOwnerOnlyWhateverTheUmask) {
  Cluster cluster("start-modes");
  const std::string db = cluster.dir() + "/kjudge.sqlite";
  // A file an older version (or a loose umask) left readable by everyone is narrowed too.
  const std::string old_db = cluster.dir() + "/old.sqlite";
  const mode_t saved = ::umask(022);
  ASSERT_EQ(kjudge::testing::Run({ServerBin(), "--db", old_db, "keys", "list"}, seconds(30)).exit_code, 0);
  ASSERT_EQ(::chmod(old_db.c_str(), 0644), 0);
  cluster.StartServer();  // started with umask 022, as by hand
  ::umask(saved);
  // A submission writes the WAL and its index.
  EXPECT_EQ(cluster.Cli({"submit", SourcePath("problems/level1/19_ReLU/solution.cu"), "--problem", "level1/19_ReLU",
                         "--compile-only"})
                .exit_code,
            0)
      << cluster.Logs();
  for (const char* suffix : {"", "-wal", "-shm"}) {
    ASSERT_TRUE(std::filesystem::exists(db + suffix)) << suffix;
    EXPECT_EQ(ModeOf(db + suffix), 0600u) << db + suffix;
  }
  cluster.KillServer(SIGTERM);
  Cluster other("start-modes-old");
  std::vector<std::string> args = ServerArgs(other, old_db);
  Subprocess server(args, other.dir() + "/server.log");
  for (int i = 0; i < 200 && ReadFileOrEmpty(other.dir() + "/server.log").find("listening on") == std::string::npos;
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(ModeOf(old_db), 0600u) << ReadFileOrEmpty(other.dir() + "/server.log");
}

}  // namespace
}  // namespace kjudge::testing
