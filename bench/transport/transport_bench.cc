// kjudge-bench-transport: what keyless abuse of the transport costs a running kjudge-server
// (issue 25), over loopback. Each mode prints its figures:
//   silent  - opens N silent TCP connections (from 127.0.0.2.. so the client at 127.0.0.1 is
//             another host), then times health calls on fresh connections: the first call's
//             latency and how many of 20 succeed (target: a call within 2 s with N = 1,500
//             against a server held to 1,024 descriptors);
//   rotate  - an attacker re-opens N silent sockets every PERIOD seconds for DURATION seconds
//             while a client makes a health call on a fresh connection every CALL_EVERY ms:
//             the share that succeeds (target: >= 95% with N = 1,000, PERIOD = 29 s);
//   memory  - N concurrent unauthenticated Submits of MIB MiB each: the server's RSS before,
//             at its peak while they arrive (sampled from /proc), and after, plus the answers;
//   utf8    - N Submits whose source is invalid UTF-8 (serialised by hand, so protobuf's
//             client-side check cannot stop them): run.sh counts the server's log lines.
// A benchmark, not a test. bench/transport/run.sh starts the servers.
#include <arpa/inet.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

int PortOf(const std::string& address) { return std::stoi(address.substr(address.rfind(':') + 1)); }

// A connection from `source` (127.0.0.0/8) to 127.0.0.1:port that sends nothing; -1 on failure.
int OpenSilentFrom(const std::string& source, int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in from{};
  from.sin_family = AF_INET;
  inet_pton(AF_INET, source.c_str(), &from.sin_addr);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  to.sin_port = htons(static_cast<uint16_t>(port));
  if (bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof(from)) != 0 ||
      connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof(to)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// `count` silent connections spread over `addresses` source addresses 127.0.0.2...
std::vector<int> OpenSilent(int port, int count, int addresses) {
  std::vector<int> fds;
  fds.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    const int fd = OpenSilentFrom("127.0.0." + std::to_string(2 + i % addresses), port);
    if (fd >= 0) fds.push_back(fd);
  }
  return fds;
}

// One unary call of `method` with `body` on a fresh channel (a fresh connection).
grpc::Status Call(const std::string& address, const std::string& method, const std::string& body,
                  std::chrono::milliseconds deadline, int max_send = -1) {
  grpc::ChannelArguments args;
  args.SetInt("grpc.use_local_subchannel_pool", 1);
  if (max_send > 0) args.SetMaxSendMessageSize(max_send);
  grpc::GenericStub stub(grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + deadline);
  grpc::Slice slice(body);
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  std::promise<grpc::Status> done;
  stub.UnaryCall(&context, method, grpc::StubOptions(), &request, &response,
                 [&](const grpc::Status& status) { done.set_value(status); });
  return done.get_future().get();
}

grpc::Status Health(const std::string& address, std::chrono::milliseconds deadline) {
  return Call(address, "/grpc.health.v1.Health/Check", "", deadline);
}

// SubmitRequest bytes: problem (field 1) and source (field 2) as length-delimited fields.
std::string SubmitBytes(const std::string& problem, const std::string& source) {
  std::string out;
  const auto field = [&](int number, const std::string& value) {
    out.push_back(static_cast<char>((number << 3) | 2));
    uint64_t length = value.size();
    do {
      uint8_t byte = length & 0x7f;
      length >>= 7;
      if (length != 0) byte |= 0x80;
      out.push_back(static_cast<char>(byte));
    } while (length != 0);
    out += value;
  };
  field(1, problem);
  field(2, source);
  return out;
}

int64_t RssKib(int pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string key;
  int64_t value = -1;
  while (status >> key) {
    if (key == "VmRSS:") {
      status >> value;
      return value;
    }
    status.ignore(1 << 12, '\n');
  }
  return -1;
}

int Silent(const std::string& server, int connections, int addresses) {
  const auto start = Clock::now();
  std::vector<int> fds = OpenSilent(PortOf(server), connections, addresses);
  std::printf("silent: %zu of %d silent connections open from %d addresses in %.2f s\n", fds.size(), connections,
              addresses, Seconds(Clock::now() - start));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int ok = 0;
  double first = -1, worst = 0;
  std::string last_error;
  for (int i = 0; i < 20; ++i) {
    const auto t0 = Clock::now();
    const grpc::Status status = Health(server, std::chrono::milliseconds(2000));
    const double took = Seconds(Clock::now() - t0);
    if (i == 0) first = status.ok() ? took : -1;
    if (status.ok()) {
      ++ok;
      worst = std::max(worst, took);
    } else {
      last_error = status.error_message();
    }
  }
  std::printf("silent: first call %s%.3f s; %d of 20 calls (2 s deadline, fresh connection each) succeeded, "
              "slowest success %.3f s%s%s\n",
              first < 0 ? "FAILED after " : "", first < 0 ? 2.0 : first, ok, worst,
              last_error.empty() ? "" : "; last error: ", last_error.c_str());
  for (const int fd : fds) close(fd);
  return 0;
}

int Rotate(const std::string& server, int connections, int addresses, double period_s, double duration_s,
           int call_every_ms) {
  std::atomic<bool> stop{false};
  std::atomic<int> rounds{0};
  std::thread attacker([&] {
    std::vector<int> open;
    while (!stop.load()) {
      for (const int fd : open) close(fd);
      open = OpenSilent(PortOf(server), connections, addresses);
      ++rounds;
      const auto next = Clock::now() + std::chrono::duration<double>(period_s);
      while (!stop.load() && Clock::now() < next) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    for (const int fd : open) close(fd);
  });
  int calls = 0, ok = 0;
  std::map<std::string, int> errors;
  const auto end = Clock::now() + std::chrono::duration<double>(duration_s);
  while (Clock::now() < end) {
    const auto t0 = Clock::now();
    ++calls;
    const grpc::Status status = Health(server, std::chrono::milliseconds(2000));
    if (status.ok()) {
      ++ok;
    } else {
      ++errors[status.error_message().substr(0, 80)];
    }
    std::this_thread::sleep_until(t0 + std::chrono::milliseconds(call_every_ms));
  }
  stop = true;
  attacker.join();
  std::printf("rotate: %d silent sockets re-opened every %.0f s (%d rounds) for %.0f s: %d of %d calls succeeded "
              "(%.1f%%)\n",
              connections, period_s, rounds.load(), duration_s, ok, calls, calls > 0 ? 100.0 * ok / calls : 0.0);
  for (const auto& [message, count] : errors) std::printf("rotate:   %d x %s\n", count, message.c_str());
  return 0;
}

int Memory(const std::string& server, int pid, int requests, int mib) {
  const int64_t before = RssKib(pid);
  const std::string body = SubmitBytes("level1/19_ReLU", std::string(static_cast<size_t>(mib) << 20, 'x'));
  std::atomic<bool> done{false};
  std::atomic<int64_t> peak{before};
  std::thread sampler([&] {
    while (!done.load()) {
      peak = std::max(peak.load(), RssKib(pid));
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  std::mutex mutex;
  std::map<std::string, int> answers;
  std::vector<std::thread> clients;
  clients.reserve(static_cast<size_t>(requests));
  const auto start = Clock::now();
  for (int i = 0; i < requests; ++i) {
    clients.emplace_back([&] {
      const grpc::Status status = Call(server, "/kjudge.v1.ClientService/Submit", body, std::chrono::seconds(60),
                                       static_cast<int>(body.size()) + 1024);
      std::lock_guard lock(mutex);
      ++answers[std::to_string(status.error_code()) + " " + status.error_message().substr(0, 70)];
    });
  }
  for (std::thread& t : clients) t.join();
  const double took = Seconds(Clock::now() - start);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  done = true;
  sampler.join();
  std::printf("memory: %d concurrent unauthenticated %d MiB Submits in %.2f s: server RSS %lld MiB before, peak "
              "%lld MiB, %lld MiB after\n",
              requests, mib, took, static_cast<long long>(before / 1024), static_cast<long long>(peak.load() / 1024),
              static_cast<long long>(RssKib(pid) / 1024));
  for (const auto& [answer, count] : answers) std::printf("memory:   %d x code %s\n", count, answer.c_str());
  return 0;
}

int Utf8(const std::string& server, int requests) {
  const std::string body = SubmitBytes("level1/19_ReLU", "__global__ void k() {} \xff\xfe");
  std::map<int, int> codes;
  for (int i = 0; i < requests; ++i) {
    ++codes[Call(server, "/kjudge.v1.ClientService/Submit", body, std::chrono::seconds(10)).error_code()];
  }
  std::printf("utf8: %d Submits with invalid UTF-8 sent; answers:", requests);
  for (const auto& [code, count] : codes) std::printf(" %d x code %d", count, code);
  std::printf("\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kjudge-bench-transport: keyless transport abuse against a running kjudge-server"};
  std::string mode, server = "127.0.0.1:50051";
  int connections = 1500, addresses = 30, call_every_ms = 2000, pid = 0, requests = 100, mib = 15;
  double period_s = 29, duration_s = 100;
  app.add_option("mode", mode, "silent, rotate, memory or utf8")->required()->check(
      CLI::IsMember({"silent", "rotate", "memory", "utf8"}));
  app.add_option("--server", server)->capture_default_str();
  app.add_option("--connections", connections, "silent/rotate: attacker sockets")->capture_default_str();
  app.add_option("--addresses", addresses, "silent/rotate: attacker source addresses 127.0.0.2..")
      ->capture_default_str()->check(CLI::Range(1, 250));
  app.add_option("--period-s", period_s, "rotate: re-open period")->capture_default_str();
  app.add_option("--duration-s", duration_s, "rotate: how long")->capture_default_str();
  app.add_option("--call-every-ms", call_every_ms, "rotate: client call interval")->capture_default_str();
  app.add_option("--server-pid", pid, "memory: the server's pid (RSS)");
  app.add_option("--requests", requests, "memory/utf8: requests")->capture_default_str();
  app.add_option("--mib", mib, "memory: request size")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (mode == "silent") return Silent(server, connections, addresses);
  if (mode == "rotate") return Rotate(server, connections, addresses, period_s, duration_s, call_every_ms);
  if (mode == "memory") return Memory(server, pid, requests, mib);
  return Utf8(server, requests);
}
