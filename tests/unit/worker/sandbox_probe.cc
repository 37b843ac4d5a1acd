// sandbox_probe: code that runs INSIDE the real kjudge-compiler, after its sandbox is in force,
// for sandbox_limits_test.cc. A test-only LD_PRELOAD library; never part of a bundle.
//
// Contract: interposes nvrtcCreateProgram. A source without the marker "KJUDGE_SANDBOX_PROBE"
// (the compiler's own warm-up, before the sandbox) goes to NVRTC unchanged. A source with it
// is not compiled: each probe below runs in the sandboxed process and the source handed to
// NVRTC becomes one `#warning probe name=result` line per probe (an #error would stop NVRTC),
// so the results come back to the test through the real protocol as the compile log. A result
// is "ok" (the call succeeded), an errno name ("EPERM") or a number. Arguments follow the marker
// as key=value tokens:
//   secret=PATH  a world-readable, world-writable file outside the sandbox's read dirs
//   dir=PATH     a world-writable directory outside them
//   allowed=PATH a file inside them (the positive control: reading it must work)
//   spin=1       burn CPU forever after the probes (the CPU limit must end the process)
// Each probe is harmless when it fails to be refused (a fork's child exits at once).
#include <dlfcn.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <nvrtc.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

constexpr std::string_view kMarker = "KJUDGE_SANDBOX_PROBE";

using Results = std::vector<std::pair<std::string, std::string>>;

std::string ErrnoName(int error) {
  const char* name = ::strerrorname_np(error);
  return name != nullptr ? name : std::to_string(error);
}

// "ok" when rc >= 0, else the errno's name.
std::string Outcome(long rc) { return rc >= 0 ? "ok" : ErrnoName(errno); }

std::map<std::string, std::string> Arguments(std::string_view source) {
  std::map<std::string, std::string> args;
  const size_t at = source.find(kMarker);
  const size_t end = source.find('\n', at);
  std::istringstream tokens(std::string(source.substr(at + kMarker.size(), end - at - kMarker.size())));
  for (std::string token; tokens >> token;) {
    const size_t eq = token.find('=');
    if (eq != std::string::npos) args[token.substr(0, eq)] = token.substr(eq + 1);
  }
  return args;
}

void SeccompProbes(Results* r) {
  r->emplace_back("socket_unix", Outcome(::socket(AF_UNIX, SOCK_STREAM, 0)));
  r->emplace_back("socket_inet", Outcome(::socket(AF_INET, SOCK_STREAM, 0)));
  int pair[2];
  r->emplace_back("socketpair", Outcome(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair)));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strcpy(addr.sun_path, "/tmp/kjudge-probe-none");
  r->emplace_back("connect_fd3", Outcome(::connect(3, reinterpret_cast<sockaddr*>(&addr), sizeof addr)));
  char* const argv[] = {const_cast<char*>("/bin/true"), nullptr};
  r->emplace_back("execve", Outcome(::execve("/bin/true", argv, nullptr)));
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  if (child > 0) ::waitpid(child, nullptr, 0);
  r->emplace_back("fork", Outcome(child));
  r->emplace_back("clone3", Outcome(::syscall(SYS_clone3, nullptr, 0)));
  r->emplace_back("unshare_user", Outcome(::unshare(CLONE_NEWUSER)));
  // Not our tracee: ESRCH without the filter, EPERM with it.
  r->emplace_back("ptrace_parent", Outcome(::ptrace(PTRACE_PEEKDATA, ::getppid(), nullptr, nullptr)));
  r->emplace_back("kill_group", Outcome(::kill(0, 0)));
  r->emplace_back("kill_parent", Outcome(::kill(::getppid(), 0)));
  r->emplace_back("kill_self", Outcome(::kill(::getpid(), 0)));
  r->emplace_back("tgkill_self", Outcome(::syscall(SYS_tgkill, ::getpid(), ::gettid(), 0)));
  r->emplace_back("tkill_self", Outcome(::syscall(SYS_tkill, ::gettid(), 0)));
  r->emplace_back("pidfd_open_self", Outcome(::syscall(SYS_pidfd_open, ::getpid(), 0)));
  char byte = 0;
  iovec local{&byte, 1};
  iovec remote{&byte, 1};
  r->emplace_back("process_vm_readv_self", Outcome(::process_vm_readv(::getpid(), &local, 1, &remote, 1, 0)));
  r->emplace_back("io_uring_setup", Outcome(::syscall(SYS_io_uring_setup, 1, nullptr)));
  r->emplace_back("perf_event_open", Outcome(::syscall(SYS_perf_event_open, nullptr, 0, -1, -1, 0)));
  r->emplace_back("bpf", Outcome(::syscall(SYS_bpf, 0, nullptr, 0)));
  r->emplace_back("keyctl", Outcome(::syscall(SYS_keyctl, 0, 0, 0, 0, 0)));
  r->emplace_back("mount", Outcome(::syscall(SYS_mount, "none", "/tmp", "tmpfs", 0, nullptr)));
  r->emplace_back("setuid_0", Outcome(::syscall(SYS_setuid, 0)));
  pthread_t thread;
  const int created = ::pthread_create(&thread, nullptr, [](void*) -> void* { return nullptr; }, nullptr);
  if (created == 0) ::pthread_join(thread, nullptr);
  r->emplace_back("pthread_create", created == 0 ? "ok" : ErrnoName(created));
}

std::string Limit(int resource) {
  rlimit limit{};
  if (::getrlimit(resource, &limit) != 0) return ErrnoName(errno);
  auto text = [](rlim_t v) { return v == RLIM_INFINITY ? std::string("inf") : std::to_string(v); };
  return text(limit.rlim_cur) + "/" + text(limit.rlim_max);
}

// Opens fds until refused: "<errno>:<highest fd opened>"; closes them again.
std::string ExhaustFiles() {
  std::vector<int> fds;
  int fd = 0;
  while ((fd = ::dup(2)) >= 0 && fds.size() < 4096) fds.push_back(fd);
  const std::string refused = fd < 0 ? ErrnoName(errno) : "none";
  int highest = -1;
  for (int f : fds) highest = std::max(highest, f);
  for (int f : fds) ::close(f);
  return refused + ":" + std::to_string(highest);
}

void RlimitProbes(Results* r) {
  for (auto [name, resource] : {std::pair{"as", RLIMIT_AS}, {"cpu", RLIMIT_CPU}, {"fsize", RLIMIT_FSIZE},
                                {"nofile", RLIMIT_NOFILE}, {"core", RLIMIT_CORE},
                                {"memlock", RLIMIT_MEMLOCK}}) {
    r->emplace_back(std::string("limit_") + name, Limit(resource));
    rlimit raised{RLIM_INFINITY, RLIM_INFINITY};
    r->emplace_back(std::string("raise_") + name, Outcome(::setrlimit(resource, &raised)));
  }
  r->emplace_back("nofile_exhaust", ExhaustFiles());
  // RLIMIT_FSIZE covers any regular file, memfd included (Landlock does not govern memfds).
  const int memfd = static_cast<int>(::syscall(SYS_memfd_create, "kjudge-probe", 0));
  r->emplace_back("memfd_create", Outcome(memfd));
  if (memfd >= 0) {
    r->emplace_back("memfd_write", Outcome(::write(memfd, "x", 1)));
    r->emplace_back("memfd_ftruncate", Outcome(::ftruncate(memfd, 4096)));
    ::close(memfd);
  }
  static char page[8192];
  r->emplace_back("mlock", Outcome(::mlock(page, 4096)));
  rlimit as{};
  ::getrlimit(RLIMIT_AS, &as);
  void* big = ::mmap(nullptr, as.rlim_cur, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  r->emplace_back("mmap_as_limit", big == MAP_FAILED ? ErrnoName(errno) : "ok");
  if (big != MAP_FAILED) ::munmap(big, as.rlim_cur);
}

void IdentityProbes(Results* r) {
  uid_t ruid = 0, euid = 0, suid = 0;
  gid_t rgid = 0, egid = 0, sgid = 0;
  ::getresuid(&ruid, &euid, &suid);
  ::getresgid(&rgid, &egid, &sgid);
  r->emplace_back("uids", std::to_string(ruid) + "," + std::to_string(euid) + "," + std::to_string(suid));
  r->emplace_back("gids", std::to_string(rgid) + "," + std::to_string(egid) + "," + std::to_string(sgid));
  r->emplace_back("groups", std::to_string(::getgroups(0, nullptr)));
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct caps[2]{};
  const long got = ::syscall(SYS_capget, &header, caps);
  const std::string failed = got == 0 ? "" : ErrnoName(errno);
  r->emplace_back("cap_effective", got == 0 ? std::to_string(caps[0].effective | caps[1].effective) : failed);
  r->emplace_back("cap_permitted", got == 0 ? std::to_string(caps[0].permitted | caps[1].permitted) : failed);
  r->emplace_back("no_new_privs", std::to_string(::prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)));
  r->emplace_back("dumpable", std::to_string(::prctl(PR_GET_DUMPABLE, 0, 0, 0, 0)));
  r->emplace_back("seccomp_mode", std::to_string(::prctl(PR_GET_SECCOMP, 0, 0, 0, 0)));
  // Landlock's ABI query (allowed by seccomp): 0 or an error when the kernel has none.
  const long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, 1U);
  r->emplace_back("landlock_abi", abi >= 0 ? std::to_string(abi) : ErrnoName(errno));
}

// Other threads of this process: they would not carry a filter installed after they started.
std::string OtherThreads() {
  int found = 0;
  const pid_t self = ::getpid();
  for (pid_t tid = self + 1; tid < self + 4096; ++tid) {
    if (::syscall(SYS_tgkill, self, tid, 0) == 0) ++found;
  }
  return std::to_string(found);
}

std::string OpenOutcome(const std::string& path, int flags) {
  if (path.empty()) return "no-path";
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0666);
  if (fd >= 0) ::close(fd);
  return Outcome(fd);
}

void LandlockProbes(const std::map<std::string, std::string>& args, Results* r) {
  auto arg = [&](const char* key) {
    auto it = args.find(key);
    return it == args.end() ? std::string() : it->second;
  };
  const std::string secret = arg("secret");
  const std::string dir = arg("dir");
  r->emplace_back("read_allowed", OpenOutcome(arg("allowed"), O_RDONLY));
  r->emplace_back("read_secret", OpenOutcome(secret, O_RDONLY));
  r->emplace_back("write_secret", OpenOutcome(secret, O_WRONLY));
  r->emplace_back("read_etc_passwd", OpenOutcome("/etc/passwd", O_RDONLY));
  r->emplace_back("list_root", OpenOutcome("/", O_RDONLY | O_DIRECTORY));
  r->emplace_back("create_in_dir",
                  dir.empty() ? "no-path" : OpenOutcome(dir + "/created", O_WRONLY | O_CREAT));
  r->emplace_back("mkdir_in_dir", dir.empty() ? "no-path" : Outcome(::mkdir((dir + "/made").c_str(), 0777)));
  r->emplace_back("unlink_secret", secret.empty() ? "no-path" : Outcome(::unlink(secret.c_str())));
  r->emplace_back("truncate_secret", secret.empty() ? "no-path" : Outcome(::truncate(secret.c_str(), 0)));
}

std::string RunProbes(std::string_view source) {
  const std::map<std::string, std::string> args = Arguments(source);
  Results results;
  results.emplace_back("other_threads", OtherThreads());
  IdentityProbes(&results);
  SeccompProbes(&results);
  RlimitProbes(&results);
  LandlockProbes(args, &results);
  std::string out;
  for (const auto& [name, result] : results) {
    out.append("#warning probe ").append(name).append("=").append(result).append("\n");
  }
  if (args.count("spin") != 0) {
    for (;;) asm volatile("" ::: "memory");  // NOLINT(hicpp-no-assembler): a side effect per turn
  }
  return out;
}

}  // namespace

extern "C" nvrtcResult nvrtcCreateProgram(nvrtcProgram* prog, const char* src, const char* name,
                                          int num_headers, const char* const* headers,
                                          const char* const* include_names) {
  using Real = nvrtcResult (*)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                               const char* const*);
  // Resolved at the warm-up compile, before the sandbox.
  static const auto real = reinterpret_cast<Real>(::dlsym(RTLD_NEXT, "nvrtcCreateProgram"));
  if (real == nullptr) return NVRTC_ERROR_INTERNAL_ERROR;
  if (src == nullptr || std::string_view(src).find(kMarker) == std::string_view::npos) {
    return real(prog, src, name, num_headers, headers, include_names);
  }
  const std::string report = RunProbes(src);
  return real(prog, report.c_str(), name, num_headers, headers, include_names);
}
