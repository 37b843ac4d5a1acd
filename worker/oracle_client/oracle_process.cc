#include "worker/oracle_client/oracle_process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <span>
#include <sstream>
#include <system_error>

#include "absl/status/status.h"
#include "worker/process/descriptor_passing.h"
#include "common/status_macros.h"

namespace kjudge::oracle {
namespace {

namespace fs = std::filesystem;
using process::UniqueFd;

constexpr int kOracleFd = 3;  // ChildProcess::Spawn puts channel_fd there

bool HasPackage(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "kjudge_oracle" / "__main__.py", ec) ||
         fs::is_regular_file(dir / "kjudge_oracle" / "__init__.py", ec);
}

// A string / number / bool member of a reply, `fallback` when absent or of another type (a
// malformed field never throws in the judge).
std::string StringField(const nlohmann::json& j, const char* key, const std::string& fallback) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}
double NumberField(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}
bool BoolField(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

int MsUntil(OracleProcess::Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - OracleProcess::Clock::now());
  return static_cast<int>(std::clamp<int64_t>(left.count(), 0, 1000));
}

std::string Seconds(std::chrono::milliseconds ms) {
  std::ostringstream s;
  s << static_cast<double>(ms.count()) / 1000.0 << " s";
  return s.str();
}

// A private HOME: torch and its compilers write caches there, never into a shared home.
absl::StatusOr<std::string> MakeHome() {
  std::string templ = (fs::temp_directory_path() / "kjudge-oracle-XXXXXX").string();
  if (mkdtemp(templ.data()) == nullptr) {
    return absl::InternalError(Errno("PyTorch oracle: creating its private HOME " + templ));
  }
  return templ;
}

}  // namespace

OracleOptions CompileOracleOptions(OracleOptions eager, const std::string& cache_dir) {
  eager.name = "PyTorch compile oracle";
  eager.env.emplace_back("KJUDGE_ORACLE_ROLE=compile");
  eager.env.emplace_back("TORCHINDUCTOR_COMPILE_THREADS=1");
  if (!cache_dir.empty()) {
    eager.env.push_back("TORCHINDUCTOR_CACHE_DIR=" + fs::absolute(cache_dir).string());
  }
  return eager;
}

absl::StatusOr<std::string> OraclePackagePath() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path bundled = self.parent_path() / ".." / "share" / "kjudge" / "oracle";
    if (HasPackage(bundled)) return fs::weakly_canonical(bundled, ec).string();
  }
#ifdef KJUDGE_ORACLE_SOURCE_DIR
  if (HasPackage(KJUDGE_ORACLE_SOURCE_DIR)) return std::string(KJUDGE_ORACLE_SOURCE_DIR);
#endif
  if (const char* env = std::getenv("KJUDGE_ORACLE_PATH"); env != nullptr && *env != '\0') {
    if (HasPackage(env)) return std::string(env);
    return absl::NotFoundError(std::string("$KJUDGE_ORACLE_PATH=") + env +
                               " holds no kjudge_oracle package");
  }
  return absl::NotFoundError(
      "no PyTorch oracle package (kjudge_oracle): not in <bin>/../share/kjudge/oracle, not in "
      "the source tree, and $KJUDGE_ORACLE_PATH is unset");
}

absl::StatusOr<std::string> OraclePython(const std::string& flag) {
  if (!flag.empty()) {
    if (access(flag.c_str(), X_OK) != 0) {
      return absl::NotFoundError("--oracle-python " + flag + " is not executable");
    }
    return flag;
  }
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    const std::string candidate = dir + "/python3";
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return absl::NotFoundError("no python3 on PATH for the PyTorch oracle (give --oracle-python)");
}

absl::StatusOr<std::unique_ptr<OracleProcess>> OracleProcess::Spawn(const OracleOptions& options) {
  absl::StatusOr<std::string> python = OraclePython(options.python);
  if (!python.ok()) return python.status();
  std::string package = options.package_dir;
  if (package.empty()) {
    absl::StatusOr<std::string> found = OraclePackagePath();
    if (!found.ok()) return found.status();
    package = *found;
  }
  absl::StatusOr<std::string> home = MakeHome();
  if (!home.ok()) return home.status();
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
    fs::remove_all(*home);
    return absl::InternalError(Errno(options.name + ": socketpair"));
  }
  UniqueFd ours(sv[0]);
  UniqueFd theirs(sv[1]);
  UniqueFd log;
  if (!options.stderr_path.empty()) {
    log = UniqueFd(open(options.stderr_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
                        0600));
    if (log.get() < 0) {
      fs::remove_all(*home);
      return absl::InternalError(Errno(options.name + ": opening " + options.stderr_path));
    }
  }
  const char* path_env = std::getenv("PATH");
  process::SpawnSpec spec;
  spec.path = *python;
  spec.args = {"-m", "kjudge_oracle", "--fd", std::to_string(kOracleFd)};
  spec.env = std::vector<std::string>{
      std::string("PATH=") + (path_env != nullptr ? path_env : "/usr/bin:/bin"),
      "HOME=" + *home, "PYTHONPATH=" + package,
      "KJUDGE_ORACLE_KEYS=" + std::to_string(options.keys)};
  spec.env->insert(spec.env->end(), options.env.begin(), options.env.end());
  spec.channel_fd = theirs.get();
  spec.stdout_fd = log.get() >= 0 ? log.get() : STDERR_FILENO;  // never the judge's stdout
  spec.stderr_fd = log.get() >= 0 ? log.get() : process::SpawnSpec::kInherit;
  spec.default_sigpipe = true;
  spec.own_process_group = true;  // Kill() reaches any helper it starts (torch.compile workers)
  spec.die_with_parent = true;
  spec.spawn_call = "starting the " + options.name;
  absl::StatusOr<process::ChildProcess> child = process::ChildProcess::Spawn(spec);
  if (!child.ok()) {
    fs::remove_all(*home);
    return absl::InternalError(options.name + ": " + std::string(child.status().message()));
  }
  return std::unique_ptr<OracleProcess>(
      new OracleProcess(*std::move(child), std::move(ours), *std::move(home), options));
}

absl::StatusOr<std::unique_ptr<OracleProcess>> OracleProcess::Start(const OracleOptions& options) {
  absl::StatusOr<std::unique_ptr<OracleProcess>> p = Spawn(options);
  if (!p.ok()) return p;
  absl::StatusOr<OracleHello> hello = (*p)->AwaitHello();
  if (!hello.ok()) return hello.status();
  return p;
}

OracleProcess::OracleProcess(process::ChildProcess child, UniqueFd socket, std::string home,
                             OracleOptions options)
    : child_(std::move(child)),
      pid_(child_.pid()),
      socket_(std::move(socket)),
      home_(std::move(home)),
      options_(std::move(options)) {}

OracleProcess::~OracleProcess() {
  socket_.Reset();  // the oracle exits when its socket closes
  if (child_.running()) child_.ReapBy(Clock::now() + std::chrono::seconds(1));
  std::error_code ec;
  fs::remove_all(home_, ec);
}

absl::Status OracleProcess::Fail(const std::string& op, const std::string& what, bool kill) {
  if (kill && child_.running()) {
    child_.Kill();
    child_.ReapBy(Clock::now() + std::chrono::seconds(5));
  }
  if (kill) alive_ = false;
  return absl::InternalError(options_.name + ", op '" + op + "': " + what);
}

absl::Status OracleProcess::Gone(const std::string& op) {
  alive_ = false;
  if (child_.running()) child_.ReapBy(Clock::now() + std::chrono::seconds(2));
  return absl::UnavailableError(options_.name + ", op '" + op + "': the oracle process " +
                                child_.DescribeExit() +
                                " (its stderr is in the runner's log); the next job starts a "
                                "new one");
}

absl::Status OracleProcess::Send(const std::string& op, const std::string& body,
                                 const std::vector<int>& fds) {
  if (body.size() > kMaxPacketBytes) {
    return Fail(op, "request of " + std::to_string(body.size()) + " bytes is over the " +
                        std::to_string(kMaxPacketBytes) + "-byte packet limit",
                false);
  }
  if (fds.size() > kMaxRequestFds) {
    return Fail(op, std::to_string(fds.size()) + " descriptors in one request (at most " +
                        std::to_string(kMaxRequestFds) + ")",
                false);
  }
  // All but the last kMaxPacketFds or fewer go ahead in `fds` packets, in order; the request's
  // own packet carries the rest (docs/pytorch-problems.md §3).
  static const std::string kCarrier = R"({"op":"fds"})";
  size_t first = 0;
  while (fds.size() - first > kMaxPacketFds) {
    const std::span<const int> group(fds.data() + first, kMaxPacketFds);
    if (process::SendWithDescriptors(socket_.get(), kCarrier.data(), kCarrier.size(), group) < 0) {
      if (errno == EPIPE || errno == ECONNRESET || errno == ENOTCONN) return Gone(op);
      return Fail(op, Errno("sending the request's descriptors"), true);
    }
    first += kMaxPacketFds;
  }
  const ssize_t sent = process::SendWithDescriptors(
      socket_.get(), body.data(), body.size(),
      std::span<const int>(fds.data() + first, fds.size() - first));
  if (sent < 0) {
    if (errno == EPIPE || errno == ECONNRESET || errno == ENOTCONN) return Gone(op);
    return Fail(op, Errno("sending the request"), true);
  }
  return absl::OkStatus();
}

absl::StatusOr<nlohmann::json> OracleProcess::Receive(const std::string& op,
                                                      std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  while (true) {
    pollfd p{socket_.get(), POLLIN, 0};
    const int ready = poll(&p, 1, MsUntil(deadline));
    if (ready < 0 && errno != EINTR) return Fail(op, Errno("poll"), true);
    if (ready > 0) break;
    if (Clock::now() >= deadline) {
      return Fail(op,
                  "no reply within " + Seconds(timeout) +
                      "; the oracle was killed (the next job starts a new one)",
                  true);
    }
  }
  // The packet's real length first (MSG_TRUNC with MSG_PEEK), so a reply costs its own size.
  ssize_t length = 0;
  do {
    length = recv(socket_.get(), nullptr, 0, MSG_PEEK | MSG_TRUNC);
  } while (length < 0 && errno == EINTR);
  if (length < 0) {
    if (errno == ECONNRESET) return Gone(op);
    return Fail(op, Errno("receiving the reply"), true);
  }
  std::string buffer(std::min(static_cast<size_t>(length), kMaxPacketBytes) + 1, '\0');
  iovec iov{buffer.data(), buffer.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 16)];
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  ssize_t r = 0;
  do {
    r = recvmsg(socket_.get(), &msg, MSG_CMSG_CLOEXEC);
  } while (r < 0 && errno == EINTR);
  // Replies carry no descriptors: any that came are closed at once.
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < count; ++i) {
      int fd = -1;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
      UniqueFd closed(fd);
    }
  }
  if (r < 0) {
    if (errno == ECONNRESET) return Gone(op);
    return Fail(op, Errno("receiving the reply"), true);
  }
  if (r == 0) return Gone(op);
  if ((msg.msg_flags & MSG_TRUNC) != 0 || static_cast<size_t>(r) > kMaxPacketBytes) {
    return Fail(op, "a reply over the " + std::to_string(kMaxPacketBytes) + "-byte packet limit",
                true);
  }
  buffer.resize(static_cast<size_t>(r));
  nlohmann::json reply = nlohmann::json::parse(buffer, nullptr, /*allow_exceptions=*/false);
  if (reply.is_discarded() || !reply.is_object()) {
    return Fail(op, "an unparsable reply (not a JSON object): '" + buffer.substr(0, 200) + "'",
                true);
  }
  const auto ok = reply.find("ok");
  if (ok == reply.end() || !ok->is_boolean()) {
    return Fail(op, "a reply without a boolean \"ok\": " + reply.dump().substr(0, 200), true);
  }
  if (!ok->get<bool>()) {
    const std::string error = StringField(reply, "error", "");
    return Fail(op, error.empty() ? "failed without saying why" : error, false);
  }
  return reply;
}

absl::StatusOr<OracleHello> OracleProcess::AwaitHello() {
  if (hello_read_) return hello_;
  if (!alive_) return Gone("hello");
  absl::StatusOr<nlohmann::json> hello = Receive("hello", options_.hello_timeout);
  if (!hello.ok()) {
    // An oracle that cannot serve from the start is of no use: it is ended either way.
    if (child_.running()) Fail("hello", "", true).IgnoreError();
    alive_ = false;
    return hello.status();
  }
  const nlohmann::json& h = *hello;
  if (StringField(h, "op", "") != "hello" || StringField(h, "torch", "").empty()) {
    return Fail("hello", "the first packet is not a hello with a torch version: " +
                             h.dump().substr(0, 200),
                true);
  }
  hello_.torch = StringField(h, "torch", "");
  hello_.cuda = BoolField(h, "cuda");
  hello_.device = StringField(h, "device", "");
  hello_read_ = true;
  return hello_;
}

bool OracleProcess::HelloArrived() {
  if (hello_read_) return true;
  pollfd p{socket_.get(), POLLIN, 0};
  return poll(&p, 1, 0) > 0;
}

absl::Status OracleProcess::DrainLateReplies(const std::string& op, bool wait) {
  while (late_replies_ > 0) {
    if (!wait) {
      pollfd p{socket_.get(), POLLIN, 0};
      if (poll(&p, 1, 0) <= 0) {
        return absl::DeadlineExceededError(options_.name + ", op '" + op +
                                           "': busy (an earlier request is still unanswered)");
      }
    }
    --late_replies_;
    // The late reply's own outcome was reported as "busy" already; only a broken stream counts.
    absl::StatusOr<nlohmann::json> late = Receive(op, options_.request_timeout);
    if (!late.ok() && !alive_) return late.status();
  }
  return absl::OkStatus();
}

absl::StatusOr<nlohmann::json> OracleProcess::Request(const nlohmann::json& request,
                                                      const std::vector<int>& fds) {
  const std::string op = StringField(request, "op", "?");
  if (!alive_) return Gone(op);
  if (!hello_read_) {
    absl::StatusOr<OracleHello> hello = AwaitHello();
    if (!hello.ok()) return hello.status();
  }
  const bool impatient = options_.patience.count() > 0 && (op == "load" || op == "compile");
  KJ_RETURN_IF_ERROR(DrainLateReplies(op, !impatient));
  KJ_RETURN_IF_ERROR(Send(op, request.dump(), fds));
  if (impatient) {
    pollfd p{socket_.get(), POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(options_.patience.count())) <= 0) {
      ++late_replies_;
      return absl::DeadlineExceededError(options_.name + ", op '" + op + "': busy (no reply within " +
                                         std::to_string(options_.patience.count()) +
                                         " ms; a compile holds it); not waited for");
    }
  }
  return Receive(op, options_.request_timeout);
}

nlohmann::json TensorsJson(const std::vector<OracleTensor>& tensors, std::vector<int>* fds) {
  nlohmann::json out = nlohmann::json::array();
  for (const OracleTensor& t : tensors) {
    out.push_back({{"name", t.name},
                   {"dtype", t.dtype},
                   {"shape", t.shape},
                   {"fd", fds->size()},
                   {"bytes", t.bytes},
                   {"offset", t.offset}});
    fds->push_back(t.fd);
  }
  return out;
}

absl::StatusOr<double> OracleProcess::Load(const OracleLoad& load) {
  nlohmann::json globals = nlohmann::json::object();
  for (const auto& [name, value] : load.globals) globals[name] = value;
  nlohmann::json parameters = nlohmann::json::array();
  for (const auto& [key, tensor] : load.parameters) parameters.push_back({key, tensor});
  const nlohmann::json request = {{"op", "load"},           {"key", load.key},
                                  {"problem", load.problem}, {"filename", load.filename},
                                  {"source", load.source},   {"globals", globals},
                                  {"forward", load.forward}, {"parameters", parameters},
                                  {"outputs", load.outputs}};
  absl::StatusOr<nlohmann::json> reply = Request(request);
  if (!reply.ok()) return reply.status();
  return NumberField(*reply, "ms");
}

absl::StatusOr<double> OracleProcess::Run(const std::string& key, const std::string& precision,
                                          const std::string& memory,
                                          const std::vector<OracleTensor>& tensors) {
  std::vector<int> fds;
  nlohmann::json request = {{"op", "run"}, {"key", key}, {"precision", precision},
                            {"memory", memory}};
  request["tensors"] = TensorsJson(tensors, &fds);
  absl::StatusOr<nlohmann::json> reply = Request(request, fds);
  if (!reply.ok()) return reply.status();
  return NumberField(*reply, "ms");
}

absl::Status OracleProcess::BenchOpen(const std::string& key, const std::string& mode,
                                      const std::string& memory,
                                      const std::vector<std::vector<OracleTensor>>& sets) {
  std::vector<int> fds;
  nlohmann::json request = {{"op", "bench_open"}, {"key", key}, {"mode", mode},
                            {"memory", memory}};
  nlohmann::json sets_json = nlohmann::json::array();
  for (const std::vector<OracleTensor>& set : sets) sets_json.push_back(TensorsJson(set, &fds));
  request["sets"] = std::move(sets_json);
  return Request(request, fds).status();
}

absl::Status OracleProcess::WarmUp(int set) {
  return Request({{"op", "warmup"}, {"set", set}}).status();
}

absl::StatusOr<OracleSample> OracleProcess::Sample(int set) {
  absl::StatusOr<nlohmann::json> reply = Request({{"op", "sample"}, {"set", set}});
  if (!reply.ok()) return reply.status();
  const auto elapsed = reply->find("elapsed_us");
  if (elapsed == reply->end() || !elapsed->is_number()) {
    return Fail("sample", "a reply without a number \"elapsed_us\": " + reply->dump(), true);
  }
  return OracleSample{elapsed->get<double>(), BoolField(*reply, "busy_after_stop")};
}

absl::Status OracleProcess::WriteOutputs(int set) {
  return Request({{"op", "write_outputs"}, {"set", set}}).status();
}

absl::Status OracleProcess::BenchClose() { return Request({{"op", "bench_close"}}).status(); }

absl::StatusOr<CompileState> OracleProcess::Compile(const std::string& key) {
  absl::StatusOr<nlohmann::json> reply = Request({{"op", "compile"}, {"key", key}});
  if (!reply.ok()) return reply.status();
  CompileState state{StringField(*reply, "state", ""), StringField(*reply, "error", "")};
  if (state.state != "ready" && state.state != "compiling" && state.state != "failed") {
    return Fail("compile", "unknown compile state '" + state.state + "'", true);
  }
  return state;
}

void OracleKeeper::Begin() {
  if (begun_) return;
  begun_ = true;
  absl::StatusOr<std::unique_ptr<OracleProcess>> p = OracleProcess::Spawn(options_);
  if (!p.ok()) {
    why_not_ = std::string(p.status().message());
    return;
  }
  process_ = *std::move(p);
}

void OracleKeeper::Finish() {
  if (finished_) return;
  finished_ = true;
  if (process_ == nullptr) return;
  absl::StatusOr<OracleHello> hello = process_->AwaitHello();
  if (!hello.ok()) {
    why_not_ = std::string(hello.status().message());
    process_.reset();
    return;
  }
  torch_ = hello->torch;
  why_not_.clear();
}

void OracleKeeper::Disable(std::string why) {
  begun_ = finished_ = true;
  why_not_ = std::move(why);
}

absl::StatusOr<OracleProcess*> OracleKeeper::Get() {
  Begin();   // no-ops for a keeper begun at start-up; the first need of a lazy one
  if (!finished_ && options_.patience.count() > 0 && process_ != nullptr &&
      !process_->HelloArrived()) {
    return absl::DeadlineExceededError(options_.name +
                                       " is still starting (torch imports); not waited for");
  }
  Finish();
  if (!available()) {
    return absl::FailedPreconditionError("this runner has no " + options_.name + ": " + why_not_);
  }
  if (process_ != nullptr && process_->alive()) return process_.get();
  loaded_.clear();
  process_.reset();
  absl::StatusOr<std::unique_ptr<OracleProcess>> p = OracleProcess::Start(options_);
  if (!p.ok()) return p.status();
  process_ = *std::move(p);
  return process_.get();
}

bool OracleKeeper::compile_failed(const std::string& key) const {
  return std::find(compile_failed_.begin(), compile_failed_.end(), key) != compile_failed_.end();
}

void OracleKeeper::set_compile_failed(const std::string& key) {
  if (!compile_failed(key)) compile_failed_.push_back(key);
}

}  // namespace kjudge::oracle
