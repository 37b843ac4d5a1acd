#include "worker/compiler/landlock.h"

#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "worker/gpu/str_util.h"

// Debian 12's linux-libc-dev (6.1) knows Landlock ABI 1-2 only; the kernels we run on know
// more. Everything newer is defined here with the values of the upstream uapi header, so the
// ruleset handles (= denies unless granted) the rights a newer kernel can enforce.
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)  // ABI 2
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)  // ABI 3
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)  // ABI 5
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)  // ABI 4
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)  // ABI 6
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif
#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif

namespace kjudge::compiler {

using runner::Cat;
namespace {

// The ruleset attribute of ABI 6+ (handled_access_fs, handled_access_net, scoped). Older
// kernels accept a shorter size; we pass only as many bytes as the running ABI understands,
// since a kernel rejects unknown non-zero trailing fields with E2BIG.
struct RulesetAttr {
  uint64_t handled_access_fs = 0;
  uint64_t handled_access_net = 0;
  uint64_t scoped = 0;
};

struct PathBeneathAttr {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__((packed));

constexpr int kLandlockRulePathBeneath = 1;  // LANDLOCK_RULE_PATH_BENEATH

uint64_t FsRights(int abi) {
  uint64_t rights = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;  // ABI 1: bits 0..12
  if (abi >= 2) rights |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) rights |= LANDLOCK_ACCESS_FS_TRUNCATE;
  if (abi >= 5) rights |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
  return rights;
}

// Closes the fd on every path out.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

absl::Status Errno(std::string_view what) {
  return absl::InternalError(Cat("landlock: ", what, ": ", std::strerror(errno)));
}

}  // namespace

int LandlockAbi() {
  const long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0,
                             LANDLOCK_CREATE_RULESET_VERSION);
  return abi < 0 ? 0 : static_cast<int>(abi);
}

absl::Status RestrictToReadOnlyDirs(const std::vector<std::string>& dirs) {
  const int abi = LandlockAbi();
  if (abi <= 0) {
    return absl::FailedPreconditionError(
        "Landlock is not available in this kernel (needs Linux >= 5.13 with lsm=landlock)");
  }
  RulesetAttr attr;
  attr.handled_access_fs = FsRights(abi);
  size_t attr_size = sizeof(uint64_t);
  if (abi >= 4) {
    attr.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP;
    attr_size = 2 * sizeof(uint64_t);
  }
  if (abi >= 6) {
    attr.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL;
    attr_size = 3 * sizeof(uint64_t);
  }
  const Fd ruleset(static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0)));
  if (ruleset.get() < 0) return Errno("landlock_create_ruleset");

  const uint64_t read_only = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
  for (const std::string& dir : dirs) {
    const Fd parent(::open(dir.c_str(), O_PATH | O_CLOEXEC | O_DIRECTORY));
    if (parent.get() < 0) return Errno(Cat("open(", dir, ")"));
    PathBeneathAttr rule{read_only, parent.get()};
    if (::syscall(SYS_landlock_add_rule, ruleset.get(), kLandlockRulePathBeneath, &rule, 0) != 0) {
      return Errno(Cat("landlock_add_rule(", dir, ")"));
    }
  }
  if (::syscall(SYS_landlock_restrict_self, ruleset.get(), 0) != 0) {
    return Errno("landlock_restrict_self");
  }
  return absl::OkStatus();
}

}  // namespace kjudge::compiler
