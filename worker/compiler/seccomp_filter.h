// SeccompFilter: the system-call filter of kjudge-compiler.
//
// Contract: InstallSeccompFilter() loads (libseccomp) a filter on every thread of the process that
// fails with EPERM every call a compiler never needs and an attacker would: sockets (socket,
// socketpair, connect, bind, listen, accept, accept4), program execution (execve, execveat),
// new processes (fork, vfork, clone without CLONE_THREAD or with any namespace flag; clone3 gets
// ENOSYS so glibc falls back to the inspectable clone), other processes (ptrace,
// process_vm_readv/writev, kill/tgkill/pidfd_* aimed at another process), the mount and
// namespace machinery (mount, umount2, unshare, setns, chroot, pivot_root, ...), keyctl, bpf,
// perf_event_open, userfaultfd, io_uring_*. Everything else is allowed: a default-allow list is
// acceptable because the filter is the second wall, not the first; what could read a secret
// (open/openat) is already confined by Landlock, memory and time by rlimits, and an allow-list
// of what NVRTC calls would break with every CUDA release. Needs PR_SET_NO_NEW_PRIVS (set by
// the caller). Irreversible; inherited by threads created later, and put on every thread that
// already exists (TSYNC): if one cannot take it, nothing is loaded and an error is returned.
#pragma once

#include "absl/status/status.h"

namespace kjudge::compiler {

absl::Status InstallSeccompFilter();

}  // namespace kjudge::compiler
