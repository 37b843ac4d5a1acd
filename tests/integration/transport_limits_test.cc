// Transport limits of kjudge-server, over loopback with the real binaries: a second server on
// a port in use exits with a clear message; silent and preface-only connections are closed by
// the idle limit while calls in use keep theirs; 2,000 idle connections against a server held
// to 1,024 descriptors do not lock a client out; a watch cut by the connection age limit
// carries on transparently in the CLI.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "tests/integration/cluster.h"
#include "tests/support/binary_path.h"

namespace kjudge::testing {
namespace {

using std::chrono::seconds;
using std::chrono::steady_clock;

std::string ServerBin() { return ResolveBinary("kjudge-server", "KJUDGE_SERVER_BIN", KJUDGE_SERVER_BIN); }

// The client connection preface (RFC 9113 3.4): the magic string, then an empty SETTINGS frame.
const std::string kHttp2Preface = std::string("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") +
                                  std::string("\x00\x00\x00\x04\x00\x00\x00\x00\x00", 9);

// A TCP connection to 127.0.0.1:port that sends `bytes` and then nothing; -1 on failure.
int OpenRaw(int port, const std::string& bytes) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      (!bytes.empty() && send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(bytes.size()))) {
    close(fd);
    return -1;
  }
  return fd;
}

// True once the peer closed `fd` (EOF or reset), reading and dropping what it sends before;
// false if it is still open after `limit`.
bool ClosedByPeerWithin(int fd, seconds limit) {
  const auto end = steady_clock::now() + limit;
  char buffer[4096];
  while (steady_clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 200) <= 0) continue;
    const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    if (n <= 0) return true;
  }
  return false;
}

int PortOf(const Cluster& cluster) { return std::stoi(cluster.address().substr(cluster.address().rfind(':') + 1)); }

TEST(TransportLimits, SecondServerOnTheSamePortExitsWithAClearMessage) {
  Cluster cluster("port-in-use");
  cluster.StartServer();
  const std::string other_db = cluster.dir() + "/second.sqlite";
  CommandResult second = kjudge::testing::Run({ServerBin(), "--db", other_db, "--listen", cluster.address(), "--problems",
                              SourcePath("problems")},
                             seconds(30));
  EXPECT_EQ(second.exit_code, 2) << second.out << second.err;
  EXPECT_NE((second.out + second.err).find("port " + cluster.address() + " is already in use (another kjudge-server?)"),
            std::string::npos)
      << second.out << second.err;
  // It stopped before touching a database, and the first server still serves.
  EXPECT_FALSE(std::filesystem::exists(other_db));
  EXPECT_EQ(cluster.Cli({"problems"}).exit_code, 0) << cluster.Logs();
}

TEST(TransportLimits, RaisesTheDescriptorLimitAndRefusesAMalformedListenAddress) {
  const std::string dir = std::filesystem::temp_directory_path() / ("kjudge-it-listen-" + std::to_string(getpid()));
  // Started with a low soft limit: the server raises it to the hard one first, and says so.
  CommandResult run = kjudge::testing::Run({"/usr/bin/prlimit", "--nofile=512:4096", ServerBin(), "--db",
                                            dir + ".sqlite", "--listen", "localhost", "--problems",
                                            SourcePath("problems")},
                                           seconds(30));
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE((run.out + run.err).find("descriptor limit (RLIMIT_NOFILE): soft 512 -> 4096, hard 4096"),
            std::string::npos)
      << run.out << run.err;
  EXPECT_NE((run.out + run.err).find("--listen wants HOST:PORT (e.g. 127.0.0.1:50051 or [::]:50051), got 'localhost'"),
            std::string::npos)
      << run.out << run.err;
  EXPECT_FALSE(std::filesystem::exists(dir + ".sqlite"));
}

TEST(TransportLimits, SilentAndPrefaceOnlyConnectionsAreClosedByTheIdleLimit) {
  Cluster cluster("idle-limit");
  cluster.StartServer({"--max-connection-idle-s", "2"});
  const int silent = OpenRaw(PortOf(cluster), "");
  const int preface_only = OpenRaw(PortOf(cluster), kHttp2Preface);
  ASSERT_GE(silent, 0);
  ASSERT_GE(preface_only, 0);
  // Without the limit both stay open for good; with it they close after ~2 s.
  EXPECT_TRUE(ClosedByPeerWithin(preface_only, seconds(15)));
  EXPECT_TRUE(ClosedByPeerWithin(silent, seconds(15)));
  close(silent);
  close(preface_only);
}

// SETTINGS_MAX_CONCURRENT_STREAMS (0x3) in the server's first SETTINGS frame; -1 if absent.
int64_t AnnouncedStreamCap(int fd) {
  std::string bytes;
  char buffer[4096];
  const auto end = steady_clock::now() + seconds(10);
  while (steady_clock::now() < end) {
    if (bytes.size() >= 9) {
      const size_t length = (static_cast<uint8_t>(bytes[0]) << 16) | (static_cast<uint8_t>(bytes[1]) << 8) |
                            static_cast<uint8_t>(bytes[2]);
      if (bytes[3] != 0x4) return -1;  // the server's preface must start with SETTINGS
      if (bytes.size() >= 9 + length) {
        for (size_t at = 9; at + 6 <= 9 + length; at += 6) {
          const int id = (static_cast<uint8_t>(bytes[at]) << 8) | static_cast<uint8_t>(bytes[at + 1]);
          int64_t value = 0;
          for (size_t i = 2; i < 6; ++i) value = (value << 8) | static_cast<uint8_t>(bytes[at + i]);
          if (id == 0x3) return value;
        }
        return -1;
      }
    }
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 200) <= 0) continue;
    const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    if (n <= 0) return -1;
    bytes.append(buffer, static_cast<size_t>(n));
  }
  return -1;
}

TEST(TransportLimits, ServerAnnouncesItsStreamCapPerConnection) {
  Cluster cluster("stream-cap");
  cluster.StartServer({"--max-streams-per-connection", "7"});
  const int fd = OpenRaw(PortOf(cluster), kHttp2Preface);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(AnnouncedStreamCap(fd), 7);
  close(fd);
}

TEST(TransportLimits, TlsListenerClosesSilentConnectionsAndRefusesASecondServer) {
  Cluster cluster("tls-limits");
  const std::string dir = cluster.dir();
  CommandResult cert = kjudge::testing::Run(
      {"/usr/bin/openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
       "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", dir + "/key.pem", "-out", dir + "/cert.pem"},
      seconds(60));
  ASSERT_EQ(cert.exit_code, 0) << cert.err;
  const std::vector<std::string> tls = {"--tls-cert", dir + "/cert.pem", "--tls-key", dir + "/key.pem"};
  std::vector<std::string> args = tls;
  args.insert(args.end(), {"--handshake-timeout-s", "2", "--max-connection-idle-s", "600"});
  cluster.StartServer(args);
  // With TLS, gRPC's own listener serves; its handshake timeout closes a connection that never
  // starts TLS (the idle limit, 600 s here, cannot be what closes it).
  const int silent = OpenRaw(PortOf(cluster), "");
  ASSERT_GE(silent, 0);
  EXPECT_TRUE(ClosedByPeerWithin(silent, seconds(15)));
  close(silent);
  std::vector<std::string> second = {ServerBin(), "--db", dir + "/second.sqlite", "--listen", cluster.address(),
                                     "--problems", SourcePath("problems")};
  second.insert(second.end(), tls.begin(), tls.end());
  CommandResult refused = kjudge::testing::Run(second, seconds(30));
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_NE((refused.out + refused.err).find("port " + cluster.address() + " is already in use"), std::string::npos)
      << refused.out << refused.err;
  EXPECT_EQ(cluster.Cli({"--tls-ca", dir + "/cert.pem", "problems"}, 30).exit_code, 0) << cluster.Logs();
}

TEST(TransportLimits, IdleLimitDoesNotCutACallInUse) {
  Cluster cluster("idle-watch");
  cluster.StartServer({"--max-connection-idle-s", "2"});
  // No worker: the job stays queued and the watch stays open, quiet, past the idle limit,
  // until its own 6 s timeout ("not finished", 4) rather than a cut connection (3).
  CliResult watched = cluster.Cli({"submit", SourcePath("problems/level1/19_ReLU/solution.cu"), "--problem",
                                   "level1/19_ReLU", "--compile-only", "--wait", "--timeout", "6"});
  EXPECT_EQ(watched.exit_code, 4) << watched.err << cluster.Logs();
}

TEST(TransportLimits, WatchCutByTheAgeLimitCarriesOn) {
  Cluster cluster("age-limit");
  // Connections get GOAWAY after ~2 s and are closed 1 s later, calls or not.
  cluster.StartServer({"--max-connection-age-s", "2", "--max-connection-age-grace-s", "1"});
  std::thread late_worker([&] {
    std::this_thread::sleep_for(seconds(7));
    cluster.StartWorker();
  });
  CliResult watched = cluster.Cli({"submit", SourcePath("problems/level1/19_ReLU/solution.cu"), "--problem",
                                   "level1/19_ReLU", "--compile-only", "--wait", "--timeout", "90"});
  late_worker.join();
  EXPECT_EQ(watched.exit_code, 0) << watched.err << cluster.Logs();
  ASSERT_TRUE(watched.json.is_object()) << watched.out;
  EXPECT_EQ(watched.json.value("/result/verdict"_json_pointer, std::string()), "COMPILED") << watched.out;
}

TEST(TransportLimits, IdleConnectionsDoNotLockOutAClientUnderA1024DescriptorLimit) {
  Cluster cluster("descriptors");
  const std::string log = cluster.dir() + "/limited-server.log";
  Subprocess server({"/usr/bin/prlimit", "--nofile=1024:1024", ServerBin(), "--db", cluster.dir() + "/kjudge.sqlite",
                     "--listen", cluster.address(), "--problems", SourcePath("problems")},
                    log);
  for (int i = 0; i < 400 && ReadFileOrEmpty(log).find("listening on") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_NE(ReadFileOrEmpty(log).find("listening on"), std::string::npos) << ReadFileOrEmpty(log);
  EXPECT_NE(ReadFileOrEmpty(log).find("RLIMIT_NOFILE): soft 1024 -> 1024, hard 1024"), std::string::npos)
      << ReadFileOrEmpty(log);

  // 2,000 connections, half silent, half sending only the HTTP/2 preface, all kept open.
  std::vector<int> idle;
  idle.reserve(2000);
  for (int i = 0; i < 2000; ++i) {
    const int fd = OpenRaw(PortOf(cluster), i % 2 == 0 ? "" : kHttp2Preface);
    if (fd >= 0) idle.push_back(fd);
  }
  EXPECT_EQ(idle.size(), 2000u);

  // A client that retries (as scripts and agents do) gets through within a bounded time: with
  // the default limits, once the idle limit (30 s) has closed the connections gRPC was given.
  const auto start = steady_clock::now();
  bool served = false;
  int attempts = 0;
  while (!served && steady_clock::now() - start < seconds(60)) {
    ++attempts;
    served = cluster.Cli({"problems"}, 15).exit_code == 0;
    if (!served) std::this_thread::sleep_for(seconds(1));
  }
  EXPECT_TRUE(served) << attempts << " attempts\n" << ReadFileOrEmpty(log);

  for (const int fd : idle) close(fd);
  // Still serving afterwards, including a submission (the database is reachable: the reserve
  // kept descriptors for SQLite).
  EXPECT_EQ(cluster.Cli({"problems"}).exit_code, 0) << ReadFileOrEmpty(log);
  CliResult submitted = cluster.Cli({"submit", SourcePath("problems/level1/19_ReLU/solution.cu"), "--problem",
                                     "level1/19_ReLU", "--compile-only"});
  EXPECT_EQ(submitted.exit_code, 0) << submitted.err << ReadFileOrEmpty(log);
  EXPECT_TRUE(server.running()) << ReadFileOrEmpty(log);
}

}  // namespace
}  // namespace kjudge::testing
