// Sandbox: everything kjudge-compiler does to itself before it reads an untrusted request.
//
// Contract: EnterSandbox() applies, in this order:
//   1. rlimits: RLIMIT_AS = memory_bytes (NVRTC's arenas then fail with "out of memory"
//      instead of the machine), RLIMIT_CPU = cpu_seconds + 10 s for the warm-up (SIGXCPU,
//      then SIGKILL at +1 s), RLIMIT_FSIZE 0 (no file may grow; SIGXFSZ is ignored so a write fails with
//      EFBIG instead of killing us), RLIMIT_NOFILE 64, RLIMIT_CORE 0, RLIMIT_MEMLOCK 0;
//   2. warm_up(): runs while the process can still read everything (NVRTC dlopens
//      libnvrtc-builtins at its first compile; after Landlock it could not); then RLIMIT_CPU
//      is lowered to the CPU time used so far (rounded up) + cpu_seconds, so the compile itself
//      gets cpu_seconds;
//   3. when running as root: setgroups(0), setgid(gid), setuid(uid) (default nobody 65534),
//      checked to be irreversible;
//   4. prctl(PR_SET_NO_NEW_PRIVS, 1) and PR_SET_DUMPABLE 0 (no ptrace/proc access by peers);
//   5. Landlock: read-only beneath read_dirs, nothing else (landlock.h);
//   6. seccomp (seccomp_filter.h).
// Returns a one-line description of what was applied. Landlock unavailable is an error
// (fail closed) unless allow_unsandboxed, in which case steps 5-6 are best-effort and the
// description says "UNSANDBOXED". Any other failure is an error. Irreversible.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace kjudge::compiler {

struct SandboxOptions {
  uint64_t memory_bytes = uint64_t{2} << 30;
  int cpu_seconds = 60;
  uid_t uid = 65534;  // used only when started as root
  gid_t gid = 65534;
  std::vector<std::string> read_dirs;
  bool allow_unsandboxed = false;
  std::function<absl::Status()> warm_up;
};

absl::StatusOr<std::string> EnterSandbox(const SandboxOptions& options);

}  // namespace kjudge::compiler
