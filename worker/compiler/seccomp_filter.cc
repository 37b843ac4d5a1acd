#include "worker/compiler/seccomp_filter.h"

#include <sched.h>
#include <seccomp.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "common/status_macros.h"
#include "worker/gpu/str_util.h"

namespace kjudge::compiler {

using runner::Cat;
namespace {

struct ContextDeleter {
  void operator()(scmp_filter_ctx ctx) const { seccomp_release(ctx); }
};
using Context = std::unique_ptr<void, ContextDeleter>;

absl::Status Check(int rc, std::string_view what) {
  if (rc == 0) return absl::OkStatus();
  return absl::InternalError(Cat("seccomp: ", what, ": ", std::strerror(-rc)));
}

constexpr uint64_t kNamespaceFlags = CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER |
                                     CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWCGROUP;

}  // namespace

absl::Status InstallSeccompFilter() {
  Context ctx(seccomp_init(SCMP_ACT_ALLOW));
  if (ctx == nullptr) return absl::InternalError("seccomp: seccomp_init failed");
  const uint32_t eperm = SCMP_ACT_ERRNO(EPERM);

  // Unconditionally denied. Names a libseccomp build does not know resolve to
  // __NR_SCMP_ERROR and are skipped: such a call does not exist on this architecture.
  static constexpr const char* kDenied[] = {
      "socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",
      "execve", "execveat", "fork", "vfork", "ptrace", "process_vm_readv", "process_vm_writev",
      "mount", "umount2", "unshare", "setns", "chroot", "pivot_root", "fsopen", "fsmount",
      "fsconfig", "move_mount", "open_tree", "mount_setattr", "keyctl", "add_key",
      "request_key", "bpf", "perf_event_open", "userfaultfd", "io_uring_setup",
      "io_uring_enter", "io_uring_register", "pidfd_open", "pidfd_getfd", "pidfd_send_signal",
      "process_madvise", "kexec_load", "init_module", "finit_module", "delete_module",
      "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid", "setgroups",
      "name_to_handle_at", "open_by_handle_at", "memfd_secret"};
  for (const char* name : kDenied) {
    const int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) continue;
    if (absl::Status s = Check(seccomp_rule_add(ctx.get(), eperm, nr, 0), name); !s.ok()) {
      return s;
    }
  }

  // clone: threads only. A new process (no CLONE_THREAD) or any namespace flag is refused.
  if (absl::Status s = Check(seccomp_rule_add(ctx.get(), eperm, SCMP_SYS(clone), 1,
                                              SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0)),
                             "clone without CLONE_THREAD");
      !s.ok()) {
    return s;
  }
  for (uint64_t flag = 1; flag != 0 && flag <= kNamespaceFlags; flag <<= 1) {
    if ((flag & kNamespaceFlags) == 0) continue;
    if (absl::Status s = Check(seccomp_rule_add(ctx.get(), eperm, SCMP_SYS(clone), 1,
                                                SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag)),
                               "clone with a namespace flag");
        !s.ok()) {
      return s;
    }
  }
  // clone3 passes its flags in memory, which seccomp cannot read: ENOSYS makes glibc use clone.
  if (absl::Status s = Check(seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0),
                             "clone3");
      !s.ok()) {
    return s;
  }

  // Signals only to ourselves: kill(pid) for pid != our pid (incl. 0 and -1, process groups)
  // and tgkill aimed at another thread group. abort() and raise() still work.
  const auto self = static_cast<uint64_t>(::getpid());
  if (absl::Status s = Check(seccomp_rule_add(ctx.get(), eperm, SCMP_SYS(kill), 1,
                                              SCMP_A0(SCMP_CMP_NE, self)),
                             "kill");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = Check(seccomp_rule_add(ctx.get(), eperm, SCMP_SYS(tgkill), 1,
                                              SCMP_A0(SCMP_CMP_NE, self)),
                             "tgkill");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = Check(seccomp_rule_add(ctx.get(), eperm, SCMP_SYS(tkill), 0), "tkill");
      !s.ok()) {
    return s;
  }
  // A filter binds the loading thread and those it starts later; a thread NVRTC started before
  // (seen on an H200 host's NVRTC, not on every version) would run unfiltered. TSYNC puts every
  // thread of the process under this filter (and no_new_privs), or the load fails: fail closed.
  KJ_RETURN_IF_ERROR(Check(seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_TSYNC, 1), "TSYNC"));
  return Check(seccomp_load(ctx.get()), "seccomp_load");
}

}  // namespace kjudge::compiler
