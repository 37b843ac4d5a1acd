#include "worker/compiler/sandboxed_compiler.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <spdlog/spdlog.h>

#include "common/sha256.h"
#include "worker/gpu/str_util.h"
#include "worker/compiler/compile_protocol.h"
#include "worker/process/unique_fd.h"
#include "worker/gpu/runner_error.h"

namespace kjudge::compiler {

using process::UniqueFd;
using runner::Append;
using runner::Cat;
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kBinaryName = "kjudge-compiler";
// Where the build tree (CMake) and the bundle (deploy/pack.sh) put std_headers, from bin/.
constexpr const char* kStdHeadersBesideBin = "../share/kjudge/std_headers";

absl::Status Internal(std::string_view message) {
  return runner::MakeRunnerError(v1::INTERNAL_ERROR, Cat("compiler sandbox: ", message));
}

absl::Status Errno(std::string_view what) {
  return Internal(Cat(what, ": ", std::strerror(errno)));
}

bool IsExecutableFile(const std::string& path) {
  std::error_code ec;
  return !path.empty() && fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

int RemainingMs(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return static_cast<int>(std::max<int64_t>(0, left.count()));
}

// Waits until fd is ready for `events` or the deadline passes (false).
bool WaitFor(int fd, short events, Clock::time_point deadline) {
  while (true) {
    pollfd p{fd, events, 0};
    const int ms = RemainingMs(deadline);
    const int n = ::poll(&p, 1, ms);
    if (n > 0) return true;
    if (n == 0 || (n < 0 && errno != EINTR)) return false;
  }
}

enum class Io { kOk, kDeadline, kClosed };

Io SendAll(int fd, std::string_view data, Clock::time_point deadline) {
  size_t done = 0;
  while (done < data.size()) {
    if (!WaitFor(fd, POLLOUT, deadline)) return Io::kDeadline;
    const ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return Io::kClosed;  // the child died or stopped reading (it answers anyway)
    done += static_cast<size_t>(n);
  }
  return Io::kOk;
}

Io RecvExactly(int fd, std::string* out, size_t size, Clock::time_point deadline) {
  size_t done = out->size();
  out->resize(size);
  while (done < size) {
    if (!WaitFor(fd, POLLIN, deadline)) return Io::kDeadline;
    const ssize_t n = ::recv(fd, out->data() + done, size - done, 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) {
      out->resize(done);
      return Io::kClosed;
    }
    done += static_cast<size_t>(n);
  }
  return Io::kOk;
}

// Only what NVRTC needs to be found and to find the CUDA headers.
std::vector<std::string> ChildEnvironment() {
  std::vector<std::string> env;
  for (const char* name : {"LD_LIBRARY_PATH", "CUDA_HOME"}) {
    if (const char* value = std::getenv(name); value != nullptr) env.push_back(Cat(name, "=", value));
  }
  return env;
}

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

runner::CompileOutcome LimitOutcome(std::string_view limit, uint64_t amount) {
  runner::CompileOutcome outcome;
  outcome.limit_hit = std::string(limit);
  outcome.message = LimitMessage(limit, amount);
  return outcome;
}

}  // namespace

std::string LimitMessage(std::string_view limit, uint64_t amount) {
  if (limit == kLimitMemory) return Cat("compile exceeded its ", amount, " MiB memory limit");
  if (limit == kLimitCpu) return Cat("compile exceeded its ", amount, " s CPU limit");
  if (limit == kLimitTime) return Cat("compile exceeded its ", amount, " s wall-clock limit");
  if (limit == kLimitCubin) return Cat("compile exceeded its ", amount, " byte cubin limit");
  if (limit == kLimitSource) return Cat("source exceeds the ", amount, " byte source limit");
  return Cat("compile exceeded its ", limit, " limit");
}

std::string CubinLimitMessage(uint64_t cubin_bytes, uint64_t limit_bytes) {
  const std::string limit = limit_bytes % (1 << 20) == 0 ? Cat(limit_bytes >> 20, " MiB") : Cat(limit_bytes, " byte");
  return Cat("compile produced a cubin of ", cubin_bytes, " bytes, over its ", limit, " cubin limit");
}

std::vector<std::string> DefaultReadDirs() {
  std::vector<std::string> dirs;
  std::error_code ec;
  const fs::path include = fs::canonical(runner::CudaIncludeDir(), ec);
  if (ec) return {runner::CudaIncludeDir()};  // the compiler reports the open failure
  dirs.push_back(include.string());
  // Beneath include already, but named so the rule survives a cccl/ that is a symlink elsewhere.
  const fs::path cccl = fs::canonical(include / "cccl", ec);
  if (!ec && fs::is_directory(cccl, ec)) dirs.push_back(cccl.string());
  return dirs;
}

absl::StatusOr<std::string> FindCompilerBinary(const std::string& explicit_path) {
  if (!explicit_path.empty()) {
    if (IsExecutableFile(explicit_path)) return explicit_path;
    return absl::NotFoundError(Cat("compiler binary ", explicit_path, " is not an executable file"));
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  const std::string beside = ec ? "" : (self.parent_path() / kBinaryName).string();
  if (IsExecutableFile(beside)) return beside;
  const char* env = std::getenv("KJUDGE_COMPILER");
  if (env != nullptr && IsExecutableFile(env)) return std::string(env);
  return absl::NotFoundError(Cat("no ", kBinaryName, " found (looked beside ",
                                          self.string(), " and at $KJUDGE_COMPILER=",
                                          env == nullptr ? "(unset)" : env, ")"));
}

absl::StatusOr<std::string> FindStdHeadersDir(const std::string& compiler_binary) {
  std::error_code ec;
  std::string beside;
  if (!compiler_binary.empty()) {
    const fs::path candidate = fs::path(compiler_binary).parent_path() / kStdHeadersBesideBin;
    beside = candidate.lexically_normal().string();
    const fs::path real = fs::canonical(candidate, ec);
    if (!ec && fs::is_directory(real, ec)) return real.string();
  }
  const char* env = std::getenv("KJUDGE_STD_HEADERS");
  if (env != nullptr && *env != '\0') {
    const fs::path real = fs::canonical(env, ec);
    if (!ec && fs::is_directory(real, ec)) return real.string();
  }
  return absl::NotFoundError(Cat(
      "kjudge std_headers not found (looked at ", beside.empty() ? "(no compiler binary)" : beside,
      " and at $KJUDGE_STD_HEADERS=", env == nullptr ? "(unset)" : env,
      "): the build tree or bundle is incomplete; rebuild, or re-pack with deploy/pack.sh"));
}

absl::StatusOr<std::string> TreeDigest(const std::string& dir) {
  std::error_code ec;
  std::vector<fs::path> files;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec)) files.push_back(it->path());
  }
  if (ec) return absl::FailedPreconditionError(Cat("cannot list ", dir, ": ", ec.message()));
  std::sort(files.begin(), files.end());
  std::string material;
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    if (!in) return absl::FailedPreconditionError(Cat("cannot read ", file.string()));
    const std::string relative = fs::relative(file, dir, ec).string();
    Append(&material, relative.size(), ":", relative, ";", Sha256Hex(bytes.str()), ";");
  }
  return Sha256Hex(material);
}

absl::Status ReadableByOthers(const std::string& dir) {
  std::error_code ec;
  const fs::path root = fs::canonical(dir, ec);
  if (ec) return absl::NotFoundError(Cat(dir, ": ", ec.message()));
  const auto denied = [](const fs::path& path, std::string_view need) {
    return absl::PermissionDeniedError(Cat(
        path.string(), " is not ", need, " by other users, and the compiler runs as another uid "
        "(nobody) when the worker runs as root: chmod o+", need == "searchable" ? "x" : "r",
        " it, or put the bundle under a world-readable folder"));
  };
  for (fs::path p = root.parent_path(); !p.empty(); p = p.parent_path()) {
    const fs::perms perms = fs::status(p, ec).permissions();
    if (ec || (perms & fs::perms::others_exec) == fs::perms::none) return denied(p, "searchable");
    if (p == p.root_path()) break;
  }
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::perms perms = it->status(ec).permissions();
    const bool is_dir = it->is_directory(ec);
    if ((perms & fs::perms::others_read) == fs::perms::none) return denied(it->path(), "readable");
    if (is_dir && (perms & fs::perms::others_exec) == fs::perms::none) {
      return denied(it->path(), "searchable");
    }
  }
  if (ec) return absl::FailedPreconditionError(Cat("cannot list ", root.string(), ": ", ec.message()));
  return absl::OkStatus();
}

absl::StatusOr<std::string> WorldReadableCopy(const std::string& dir) {
  char tmpl[] = "/tmp/kjudge-std-headers-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) {
    return absl::FailedPreconditionError(Cat("mkdtemp(", tmpl, "): ", std::strerror(errno)));
  }
  const fs::path copy = fs::path(tmpl) / fs::path(dir).filename();
  std::error_code ec;
  fs::copy(dir, copy, fs::copy_options::recursive, ec);
  const fs::perms dir_perms = fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec;
  const fs::perms file_perms = fs::perms::owner_read | fs::perms::owner_write |
                               fs::perms::group_read | fs::perms::others_read;
  if (!ec) fs::permissions(tmpl, dir_perms, ec);
  if (!ec) fs::permissions(copy, dir_perms, ec);
  for (fs::recursive_directory_iterator it(copy, ec), end; !ec && it != end; it.increment(ec)) {
    fs::permissions(it->path(), it->is_directory() ? dir_perms : file_perms, ec);
  }
  if (ec) {
    fs::remove_all(tmpl, ec);
    return absl::FailedPreconditionError(Cat("cannot copy ", dir, " to ", tmpl, ": ", ec.message()));
  }
  return copy.string();
}

SandboxedCompiler::SandboxedCompiler(SandboxedCompilerOptions options)
    : options_(std::move(options)) {
  UseStdHeaders();
  if (options_.read_dirs.empty()) options_.read_dirs = DefaultReadDirs();
  options_.read_dirs.insert(options_.read_dirs.end(), options_.include_dirs.begin(),
                            options_.include_dirs.end());
  std::string digests;
  for (const std::string& dir : options_.include_dirs) {
    absl::StatusOr<std::string> digest = TreeDigest(dir);
    Append(&digests, dir, "=", digest.ok() ? *digest : std::string(digest.status().message()), ";");
  }
  include_digest_ = Sha256Hex(digests);
}

// Resolves std_headers_dir and puts it first in include_dirs; on failure remembers why, so
// that every Compile() says so instead of failing on `#include <cmath>` with no explanation.
void SandboxedCompiler::UseStdHeaders() {
  std::string dir;
  if (options_.std_headers_dir.has_value()) {
    if (options_.std_headers_dir->empty()) return;  // explicitly none
    std::error_code ec;
    dir = fs::canonical(*options_.std_headers_dir, ec).string();
    if (ec) {
      std_headers_status_ = absl::NotFoundError(Cat("kjudge std_headers dir ", *options_.std_headers_dir,
                                                    ": ", ec.message()));
    }
  } else {
    absl::StatusOr<std::string> binary = FindCompilerBinary(options_.compiler_path);
    if (!binary.ok()) return;  // Compile() reports the missing binary, the first thing to fix
    absl::StatusOr<std::string> found = FindStdHeadersDir(*binary);
    if (found.ok()) {
      dir = *found;
    } else {
      std_headers_status_ = found.status();
    }
  }
  if (std_headers_status_.ok() && ::geteuid() == 0 && options_.uid.value_or(65534) != 0) {
    if (const absl::Status readable = ReadableByOthers(dir); !readable.ok()) {
      // E.g. a bundle under /root: copy the headers where the compiler's uid can read them.
      absl::StatusOr<std::string> copy = WorldReadableCopy(dir);
      if (copy.ok()) {
        spdlog::info("compiler sandbox: {}; using a world-readable copy of the std_headers at {}",
                     runner::Sv(readable.message()), *copy);
        std_headers_copy_ = fs::path(*copy).parent_path().string();
        dir = *copy;
      } else {
        std_headers_status_ = absl::PermissionDeniedError(
            Cat(runner::Sv(readable.message()), "; and no world-readable copy: ",
                runner::Sv(copy.status().message())));
      }
    }
  }
  if (!std_headers_status_.ok()) {
    spdlog::error("compiler sandbox: {}", runner::Sv(std_headers_status_.message()));
    return;
  }
  options_.std_headers_dir = dir;
  options_.include_dirs.insert(options_.include_dirs.begin(), dir);
}

SandboxedCompiler::~SandboxedCompiler() {
  Spawned spare = TakeSpare();
  if (spare.child.running()) {
    spare.fd.Reset();  // it exits on EOF; ReapBy kills it if it does not
    spare.child.ReapBy(Clock::now() + std::chrono::milliseconds(200));
  }
  if (!std_headers_copy_.empty()) {
    std::error_code ec;
    fs::remove_all(std_headers_copy_, ec);
  }
}

absl::StatusOr<SandboxedCompiler::Spawned> SandboxedCompiler::Launch() const {
  absl::StatusOr<std::string> binary = FindCompilerBinary(options_.compiler_path);
  if (!binary.ok()) return Internal(runner::Sv(binary.status().message()));
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return Errno("socketpair");
  UniqueFd parent_end(fds[0]);
  UniqueFd child_end(fds[1]);
  // Its fd 3 is the channel; stdin and stdout /dev/null; stderr ours (its own log lines).
  process::SpawnSpec spec;
  spec.path = *binary;
  spec.args = Arguments();
  spec.env = ChildEnvironment();
  spec.channel_fd = child_end.get();
  spec.stdout_fd = process::SpawnSpec::kDevNull;
  spec.spawn_call = Cat("posix_spawn(", *binary, ")");
  absl::StatusOr<process::ChildProcess> child = process::ChildProcess::Spawn(spec);
  if (!child.ok()) return Internal(runner::Sv(child.status().message()));
  if (::fcntl(parent_end.get(), F_SETFL, O_NONBLOCK) != 0) {
    return Errno("fcntl(O_NONBLOCK)");  // ~ChildProcess kills and reaps it
  }
  return Spawned{*std::move(child), std::move(parent_end)};
}

SandboxedCompiler::Spawned SandboxedCompiler::TakeSpare() const {
  std::lock_guard<std::mutex> lock(mu_);
  Spawned s = std::exchange(spare_, Spawned{});
  if (s.child.running() && s.child.PollExit() != process::ChildProcess::Poll::kRunning) {
    return Spawned{};  // it died while waiting: not usable (its fd closes with `s`)
  }
  return s;
}

void SandboxedCompiler::StartSpare() const {
  absl::StatusOr<Spawned> s = Launch();
  if (!s.ok()) return;  // the next Compile() spawns its own and reports why it cannot
  std::lock_guard<std::mutex> lock(mu_);
  if (spare_.child.running()) {
    s->fd.Reset();
    s->child.ReapBy(Clock::now());
    return;
  }
  spare_ = *std::move(s);
}

std::vector<std::string> SandboxedCompiler::Arguments() const {
  const CompilerLimits& l = options_.limits;
  std::vector<std::string> args = {
      "--memory-mib", Cat(l.memory_mib), "--cpu-seconds", Cat(l.cpu_seconds),
      "--log-bytes", Cat(l.log_bytes), "--cubin-bytes", Cat(l.cubin_bytes),
      "--source-bytes", Cat(l.source_bytes)};
  for (const std::string& dir : options_.read_dirs) {
    args.push_back("--read-dir");
    args.push_back(dir);
  }
  if (options_.uid) args.insert(args.end(), {"--uid", Cat(*options_.uid)});
  if (options_.gid) args.insert(args.end(), {"--gid", Cat(*options_.gid)});
  if (options_.allow_unsandboxed) args.emplace_back("--allow-unsandboxed");
  return args;
}

absl::StatusOr<runner::CompileOutcome> SandboxedCompiler::Compile(
    const runner::CompileRequest& request) const {
  const auto start = Clock::now();
  if (!std_headers_status_.ok()) return Internal(runner::Sv(std_headers_status_.message()));
  const CompilerLimits& limits = options_.limits;
  if (request.source.size() > limits.source_bytes) {
    return LimitOutcome(kLimitSource, limits.source_bytes);
  }
  Spawned spawned = TakeSpare();
  if (!spawned.child.running()) {
    KJ_ASSIGN_OR_RETURN(spawned, Launch());
  }
  StartSpare();  // the next compile's process gets ready while this one compiles
  UniqueFd parent_end = std::move(spawned.fd);
  // Killed and reaped on every early return (~ChildProcess).
  process::ChildProcess child = std::move(spawned.child);

  const auto deadline = start + std::chrono::seconds(limits.WallSeconds());
  ProtocolRequest wire;
  wire.source = request.source;
  wire.program_name = request.program_name;
  wire.arch = request.arch;
  wire.name_expressions = request.name_expressions;
  wire.include_dirs = options_.include_dirs;
  const std::string payload = EncodeRequest(wire);
  Io io = SendAll(parent_end.get(), FrameHeader(payload.size()) + payload, deadline);

  // Whatever happened to the request, the child may have answered (e.g. a sandbox error).
  std::string frame;
  const uint64_t max_response = limits.cubin_bytes + limits.log_bytes + (4 << 20);
  if (io != Io::kDeadline) io = RecvExactly(parent_end.get(), &frame, 8, deadline);
  absl::StatusOr<uint64_t> size = absl::UnknownError("no response");
  if (io == Io::kOk) {
    size = ParseFrameHeader(frame, max_response);
    frame.clear();
    if (size.ok()) io = RecvExactly(parent_end.get(), &frame, *size, deadline);
  }
  // A complete response: the child exits right away; give it a moment, not the whole budget.
  const bool answered = io == Io::kOk && size.ok();
  // Reaped in any case; past its deadline it is killed first.
  const bool killed_by_us =
      child.ReapBy(answered ? std::min(deadline, Clock::now() + std::chrono::seconds(5)) : deadline);
  const int exit_status = child.wait_status();
  const rusage& usage = child.usage();
  const int64_t peak_rss_kib = usage.ru_maxrss;
  const double cpu_s = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                       1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);

  if (!answered) {
    runner::CompileOutcome outcome;
    const int sig = WIFSIGNALED(exit_status) ? WTERMSIG(exit_status) : 0;
    if (io == Io::kDeadline || (killed_by_us && sig == SIGKILL)) {
      outcome = LimitOutcome(kLimitTime, static_cast<uint64_t>(limits.WallSeconds()));
    } else if (sig == SIGXCPU || (sig == SIGKILL && cpu_s >= limits.cpu_seconds)) {
      outcome = LimitOutcome(kLimitCpu, static_cast<uint64_t>(limits.cpu_seconds));
    } else if ((WIFEXITED(exit_status) && WEXITSTATUS(exit_status) == kCompilerExitOutOfMemory) ||
               (sig != 0 && static_cast<uint64_t>(peak_rss_kib) * 2 >= limits.memory_mib << 10)) {
      // Our own allocation failed, or a crash with half the address-space limit resident: an
      // allocation past RLIMIT_AS that was not checked.
      outcome = LimitOutcome(kLimitMemory, limits.memory_mib);
    } else if (!size.ok() && io == Io::kOk) {
      return Internal(runner::Sv(size.status().message()));
    } else {
      return Internal(Cat(kBinaryName, " ended without a response (",
                                   sig != 0 ? Cat("signal ", sig)
                                            : Cat("exit status ", WEXITSTATUS(exit_status)),
                                   ", peak RSS ", peak_rss_kib >> 10, " MiB)"));
    }
    outcome.peak_rss_kib = peak_rss_kib;
    outcome.compile_ms = MsSince(start);
    return outcome;
  }

  absl::StatusOr<ProtocolResponse> response = DecodeResponse(frame);
  if (!response.ok()) return Internal(runner::Sv(response.status().message()));
  if (response->internal_error) return Internal(response->message);
  runner::CompileOutcome outcome;
  outcome.success = response->success;
  outcome.log = std::move(response->log);
  outcome.log_bytes_cut = response->log_bytes_cut;
  outcome.message = std::move(response->message);
  outcome.limit_hit = std::move(response->limit_hit);
  outcome.sandbox = std::move(response->sandbox);
  if (outcome.sandbox.find("UNSANDBOXED") != std::string::npos) {
    spdlog::warn("UNTRUSTED SOURCE COMPILED WITHOUT A FILESYSTEM SANDBOX (--allow-unsandboxed): {}",
                 outcome.sandbox);
  }
  outcome.program.cubin = std::move(response->cubin);
  outcome.program.lowered_names = std::move(response->lowered_names);
  outcome.program.kernels = std::move(response->kernels);
  outcome.program.kernels_cut = response->kernels_cut;
  if (outcome.success && outcome.program.lowered_names.size() != request.name_expressions.size()) {
    for (const std::string& expr : request.name_expressions) {
      if (outcome.program.lowered_names.count(expr) == 0) {
        return Internal(Cat("the response lacks the lowered name of ", expr));
      }
    }
  }
  outcome.peak_rss_kib = peak_rss_kib;
  outcome.compile_ms = MsSince(start);
  return outcome;
}

}  // namespace kjudge::compiler
