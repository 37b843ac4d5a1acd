// kjudge-compiler: compiles ONE untrusted CUDA source with NVRTC inside a sandbox.
//
// Started per compile by SandboxedCompiler (sandboxed_compiler.h); see README.md for the
// contract. fd 3 carries one request in and one response out (compile_protocol.h); stdin and
// stdout are never used for the protocol. Exit status: 0 after a response (also for compile
// errors and limits), 1 after an internal-error response, 2 for a bad command line or no fd 3,
// kExitOutOfMemory when our own allocation failed under RLIMIT_AS.
#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "proto/result_caps.h"
#include "worker/compiler/compile_protocol.h"
#include "worker/compiler/log_cap.h"
#include "worker/compiler/sandbox.h"
#include "worker/compiler/sandboxed_compiler.h"
#include "worker/gpu/nvrtc_compiler.h"

namespace kjudge::compiler {
namespace {

constexpr int kProtocolFd = 3;

struct Flags {
  SandboxOptions sandbox;
  uint64_t log_bytes = 64 << 10;
  uint64_t cubin_bytes = kDefaultCubinMib << 20;
  uint64_t source_bytes = 8 << 20;
};

[[noreturn]] void Usage(std::string_view problem) {
  std::fprintf(stderr,
               "kjudge-compiler: %.*s\n"
               "usage: kjudge-compiler [--memory-mib N] [--cpu-seconds N] [--log-bytes N]\n"
               "         [--cubin-bytes N] [--source-bytes N] [--read-dir DIR]... [--uid N]\n"
               "         [--gid N] [--allow-unsandboxed]\n"
               "  reads one request from fd 3 and writes one response to it (started by\n"
               "  kjudge-runner; not meant to be run by hand)\n",
               static_cast<int>(problem.size()), problem.data());
  std::exit(2);
}

uint64_t Number(std::string_view flag, const char* value) {
  uint64_t n = 0;
  const std::string_view text(value);
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size()) {
    Usage(std::string(flag) + " needs a number");
  }
  return n;
}

Flags ParseFlags(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--allow-unsandboxed") {
      flags.sandbox.allow_unsandboxed = true;
      continue;
    }
    if (i + 1 >= argc) Usage(std::string("missing value after ") + argv[i]);
    const char* value = argv[++i];
    if (flag == "--memory-mib") {
      flags.sandbox.memory_bytes = Number(flag, value) << 20;
    } else if (flag == "--cpu-seconds") {
      flags.sandbox.cpu_seconds = static_cast<int>(Number(flag, value));
    } else if (flag == "--log-bytes") {
      flags.log_bytes = Number(flag, value);
    } else if (flag == "--cubin-bytes") {
      flags.cubin_bytes = Number(flag, value);
    } else if (flag == "--source-bytes") {
      flags.source_bytes = Number(flag, value);
    } else if (flag == "--read-dir") {
      flags.sandbox.read_dirs.emplace_back(value);
    } else if (flag == "--uid") {
      flags.sandbox.uid = static_cast<uid_t>(Number(flag, value));
    } else if (flag == "--gid") {
      flags.sandbox.gid = static_cast<gid_t>(Number(flag, value));
    } else {
      Usage(std::string("unknown flag ") + argv[i - 1]);
    }
  }
  if (flags.sandbox.read_dirs.empty()) flags.sandbox.read_dirs = DefaultReadDirs();
  return flags;
}

// Our own allocations failing under RLIMIT_AS: no memory left to build a response, so say it
// with the exit status (the parent names the memory limit).
void OutOfMemory() { _exit(kCompilerExitOutOfMemory); }

// NVRTC loads libnvrtc-builtins (and reads nothing else) on its first compile; doing one now,
// before Landlock, means the sandbox never has to allow /usr/local/cuda/lib64.
absl::Status WarmUp() {
  runner::CompileRequest request;
  request.source = "__global__ void kjudge_warm_up() {}\n";
  request.program_name = "warm_up.cu";
  absl::StatusOr<runner::CompileOutcome> outcome = runner::CompileWithNvrtc(request);
  if (!outcome.ok()) return outcome.status();
  if (!outcome->success) return absl::InternalError("NVRTC warm-up compile failed: " + outcome->log);
  return absl::OkStatus();
}

// NVRTC reports its arena running dry as "catastrophic error: out of memory".
bool LogSaysOutOfMemory(std::string_view log) {
  return log.find("error: out of memory") != std::string_view::npos;
}

ProtocolResponse Compile(const Flags& flags, const ProtocolRequest& request) {
  ProtocolResponse response;
  if (request.source.size() > flags.source_bytes) {
    response.limit_hit = kLimitSource;
    response.message = "source too large (" + std::to_string(request.source.size()) +
                       " bytes; limit " + std::to_string(flags.source_bytes) + ")";
    return response;
  }
  runner::CompileRequest compile;
  compile.source = request.source;
  compile.program_name = request.program_name;
  compile.arch = request.arch;
  compile.name_expressions = request.name_expressions;
  absl::StatusOr<runner::CompileOutcome> outcome =
      runner::CompileWithNvrtc(compile, request.include_dirs);
  if (!outcome.ok()) {
    const std::string text(outcome.status().message());
    if (text.find("OUT_OF_MEMORY") != std::string::npos) {
      response.limit_hit = kLimitMemory;
    } else {
      response.internal_error = true;
      response.message = text;
      return response;
    }
  } else {
    response.compile_ms = outcome->compile_ms;
    // Only what the source decides reaches the submitter: no errno text that tells a host
    // path's existence, no absolute include path, no unbounded line (log_cap.h).
    const IncludeRoots roots = PublicIncludeRoots(request.include_dirs);
    CappedLog log = CapLog(CleanCompilerText(std::move(outcome->log), roots), flags.log_bytes);
    response.log = std::move(log.log);
    response.log_bytes_cut = log.bytes_cut;
    response.message = kjudge::CapText(CleanCompilerText(std::move(outcome->message), roots), kMaxMessageBytes);
    if (!outcome->success && LogSaysOutOfMemory(response.log)) response.limit_hit = kLimitMemory;
    if (outcome->success && outcome->program.cubin.size() > flags.cubin_bytes) {
      response.limit_hit = kLimitCubin;
      response.message = CubinLimitMessage(outcome->program.cubin.size(), flags.cubin_bytes);
    } else if (outcome->success) {
      response.success = true;
      response.cubin = std::move(outcome->program.cubin);
      response.lowered_names = std::move(outcome->program.lowered_names);
      response.kernels = std::move(outcome->program.kernels);
      response.kernels_cut = outcome->program.kernels_cut;
    }
  }
  if (response.limit_hit == kLimitMemory) {
    response.message = LimitMessage(kLimitMemory, flags.sandbox.memory_bytes >> 20);
  }
  return response;
}

int Main(int argc, char** argv) {
  std::set_new_handler(OutOfMemory);
  if (::fcntl(kProtocolFd, F_GETFD) < 0) Usage("fd 3 is not open (the parent passes it)");
  Flags flags = ParseFlags(argc, argv);
  flags.sandbox.warm_up = WarmUp;
  // Nothing untrusted has been read yet; from here on the process can read only the include
  // dirs, write only the fds it holds, and start nothing.
  absl::StatusOr<std::string> sandbox = EnterSandbox(flags.sandbox);
  ProtocolResponse response;
  if (!sandbox.ok()) {
    response.internal_error = true;
    response.message = "kjudge-compiler: " + std::string(sandbox.status().message());
  } else {
    if (sandbox->find("UNSANDBOXED") != std::string::npos) {
      std::fprintf(stderr, "kjudge-compiler: WARNING: compiling WITHOUT a filesystem sandbox: %s\n",
                   sandbox->c_str());
    }
    // The request may be at most the source cap plus room for the other fields.
    absl::StatusOr<std::string> frame = ReadFrame(kProtocolFd, flags.source_bytes + (1 << 20));
    absl::StatusOr<ProtocolRequest> request =
        frame.ok() ? DecodeRequest(*frame) : absl::StatusOr<ProtocolRequest>(frame.status());
    if (!request.ok() && absl::IsResourceExhausted(request.status())) {
      response.limit_hit = kLimitSource;
      response.message = "source too large: " + std::string(request.status().message());
    } else if (!request.ok()) {
      response.internal_error = true;
      response.message = "kjudge-compiler: bad request: " + std::string(request.status().message());
    } else {
      response = Compile(flags, *request);
    }
    response.sandbox = *sandbox;
  }
  if (!WriteFrame(kProtocolFd, EncodeResponse(response)).ok()) return 1;
  return response.internal_error ? 1 : 0;
}

}  // namespace
}  // namespace kjudge::compiler

int main(int argc, char** argv) { return kjudge::compiler::Main(argc, argv); }
