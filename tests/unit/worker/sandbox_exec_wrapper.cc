// sandbox_exec_wrapper: what sandbox_limits_test.cc gives SandboxedCompiler as its compiler
// binary. Test-only; never part of a bundle.
//
// Contract: execs the real kjudge-compiler (KJUDGE_COMPILER_PATH) with the command line it was
// given, so the compiler runs exactly as the runner starts it, with two test-only changes made
// before the exec:
//   * LD_PRELOAD=KJUDGE_SANDBOX_PROBE_PATH (sandbox_probe.cc: probes run inside the sandbox);
//   * built with KJUDGE_WITHOUT_LANDLOCK: a seccomp filter makes every landlock_* system call
//     fail with ENOSYS, as on a kernel without Landlock (the compiler must then refuse to
//     compile unless --allow-unsandboxed).
// Exit status 127 (message on stderr) when the filter or the exec fails.
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

#ifdef KJUDGE_WITHOUT_LANDLOCK
// Only the system-call number is checked: this filter runs in a test, on the architecture it
// was built for, and fails nothing but the three Landlock calls.
bool HideLandlock() {
  sock_filter program[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_landlock_create_ruleset, 3, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_landlock_add_rule, 2, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_landlock_restrict_self, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
  };
  sock_fprog fprog{static_cast<unsigned short>(sizeof program / sizeof program[0]), program};
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
  return ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) == 0;
}
#endif

}  // namespace

int main(int /*argc*/, char** argv) {
#ifdef KJUDGE_WITHOUT_LANDLOCK
  if (!HideLandlock()) {
    std::fprintf(stderr, "sandbox_exec_wrapper: seccomp filter: %s\n", std::strerror(errno));
    return 127;
  }
#endif
  if (::setenv("LD_PRELOAD", KJUDGE_SANDBOX_PROBE_PATH, 1) != 0) return 127;
  argv[0] = const_cast<char*>(KJUDGE_COMPILER_PATH);
  ::execv(KJUDGE_COMPILER_PATH, argv);
  std::fprintf(stderr, "sandbox_exec_wrapper: exec %s: %s\n", KJUDGE_COMPILER_PATH, std::strerror(errno));
  return 127;
}
