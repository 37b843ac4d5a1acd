#include "worker/compiler/sandbox.h"

#include <grp.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "worker/gpu/str_util.h"
#include "worker/compiler/landlock.h"
#include "worker/compiler/seccomp_filter.h"
#include "common/status_macros.h"

namespace kjudge::compiler {

using runner::Append;
using runner::Cat;
namespace {

// CPU seconds the warm-up compile may take on top of the compile's own limit.
constexpr rlim_t kWarmUpCpuSeconds = 10;

absl::Status Errno(std::string_view what) {
  return absl::InternalError(Cat("sandbox: ", what, ": ", std::strerror(errno)));
}

absl::Status SetLimit(int resource, rlim_t soft, rlim_t hard, std::string_view name) {
  const rlimit limit{soft, hard};
  if (::setrlimit(resource, &limit) != 0) return Errno(Cat("setrlimit(", name, ")"));
  return absl::OkStatus();
}

absl::Status ApplyRlimits(const SandboxOptions& options) {
  // A file-size overrun then fails the write (EFBIG) instead of killing the process; the only
  // file we write is fd 3, a socket, which RLIMIT_FSIZE does not cover.
  std::signal(SIGXFSZ, SIG_IGN);
  const auto cpu = static_cast<rlim_t>(options.cpu_seconds);
  // Not RLIMIT_NPROC: it counts every process of the uid machine-wide (other compiles, other
  // services running as nobody), so any value is either useless or breaks concurrent compiles;
  // seccomp refuses new processes instead.
  for (absl::Status s : {SetLimit(RLIMIT_AS, options.memory_bytes, options.memory_bytes, "AS"),
                         // Room for the warm-up until RestartCpuLimit() sets the compile's own.
                         SetLimit(RLIMIT_CPU, cpu + kWarmUpCpuSeconds, cpu + kWarmUpCpuSeconds + 1, "CPU"),
                         SetLimit(RLIMIT_FSIZE, 0, 0, "FSIZE"),
                         SetLimit(RLIMIT_NOFILE, 64, 64, "NOFILE"),
                         SetLimit(RLIMIT_CORE, 0, 0, "CORE"),
                         SetLimit(RLIMIT_MEMLOCK, 0, 0, "MEMLOCK")}) {
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

// The CPU limit counts from after the warm-up compile (a spare compiler warms up long before
// its compile), so the compile itself gets exactly --cpu-seconds and a limit message that names
// N seconds is true. Only lowers the limits ApplyRlimits() set, which needs no privilege.
absl::Status RestartCpuLimit(const SandboxOptions& options) {
  rusage usage{};
  if (::getrusage(RUSAGE_SELF, &usage) != 0) return Errno("getrusage");
  const auto used = static_cast<rlim_t>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + 1);
  const rlim_t most = static_cast<rlim_t>(options.cpu_seconds) + kWarmUpCpuSeconds;
  const rlim_t soft = std::min(used + static_cast<rlim_t>(options.cpu_seconds), most);
  return SetLimit(RLIMIT_CPU, soft, soft + 1, "CPU");
}

absl::Status DropPrivileges(const SandboxOptions& options) {
  if (::setgroups(0, nullptr) != 0) return Errno("setgroups(0)");
  if (::setresgid(options.gid, options.gid, options.gid) != 0) return Errno("setresgid");
  if (::setresuid(options.uid, options.uid, options.uid) != 0) return Errno("setresuid");
  // Must not be able to get root back.
  if (options.uid != 0 && (::setuid(0) == 0 || ::geteuid() == 0)) {
    return absl::InternalError("sandbox: still able to regain uid 0 after dropping privileges");
  }
  return absl::OkStatus();
}

// The "Threads:" count of /proc/self/status; 0 when it cannot be read.
int ThreadCount() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Threads:", 0) == 0) return std::atoi(line.c_str() + 8);
  }
  return 0;
}

}  // namespace

absl::StatusOr<std::string> EnterSandbox(const SandboxOptions& options) {
  KJ_RETURN_IF_ERROR(ApplyRlimits(options));
  std::string description = Cat("rlimits (AS ", options.memory_bytes >> 20, " MiB, CPU ",
                                         options.cpu_seconds, " s)");
  if (options.warm_up) {
    KJ_RETURN_IF_ERROR(options.warm_up());
  }
  KJ_RETURN_IF_ERROR(RestartCpuLimit(options));
  if (::geteuid() == 0) {
    KJ_RETURN_IF_ERROR(DropPrivileges(options));
    Append(&description, ", uid ", options.uid);
  }
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return Errno("PR_SET_NO_NEW_PRIVS");
  if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return Errno("PR_SET_DUMPABLE");

  // Landlock binds this thread and those it starts; a thread the warm-up left behind (NVRTC's,
  // on some versions) keeps the walls above and seccomp (synchronized to every thread), not
  // Landlock. Counted before /proc is out of reach, and said in the description.
  const int threads = ThreadCount();
  const int abi = LandlockAbi();
  absl::Status landlock = RestrictToReadOnlyDirs(options.read_dirs);
  if (!landlock.ok()) {
    if (!options.allow_unsandboxed) {
      return absl::FailedPreconditionError(Cat(
          "refusing to compile untrusted code without a filesystem sandbox: ", landlock.message(),
          " (kjudge-compiler --allow-unsandboxed accepts that risk)"));
    }
    Append(&description, ", UNSANDBOXED filesystem (", landlock.message(), ")");
  } else {
    Append(&description, ", landlock abi ", abi);
    if (threads > 1) Append(&description, " (not on ", threads - 1, " earlier thread(s))");
  }
  absl::Status seccomp = InstallSeccompFilter();
  if (!seccomp.ok()) {
    if (!options.allow_unsandboxed) return seccomp;
    Append(&description, ", no seccomp (", seccomp.message(), ")");
  } else {
    Append(&description, ", seccomp (all ", std::max(threads, 1), " thread(s))");
  }
  return description;
}

}  // namespace kjudge::compiler
