// InstallSeccompFilter() binds every thread of the process, also one started before it (TSYNC):
// NVRTC can leave a thread behind its warm-up compile, and that thread must not open sockets,
// start programs or fork. Runs in a forked child, since the filter is irreversible.
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

#include <gtest/gtest.h>

#include "worker/compiler/seccomp_filter.h"

namespace kjudge::compiler {
namespace {

constexpr int kSocketRefused = 10;
constexpr int kSocketAllowed = 11;
constexpr int kSetupFailed = 12;

// In the child: a thread that exists before the filter is loaded tries socket() after it.
[[noreturn]] void ChildWithAnEarlierThread() {
  int go[2];
  if (::pipe(go) != 0) ::_exit(kSetupFailed);
  int outcome = kSetupFailed;
  std::thread earlier([&] {
    char byte = 0;
    if (::read(go[0], &byte, 1) != 1) return;
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    outcome = fd < 0 && errno == EPERM ? kSocketRefused : kSocketAllowed;
  });
  const bool loaded = ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && InstallSeccompFilter().ok();
  const char byte = 1;
  if (::write(go[1], &byte, 1) != 1) ::_exit(kSetupFailed);
  earlier.join();
  ::_exit(loaded ? outcome : kSetupFailed);
}

TEST(SeccompFilter, BindsAThreadStartedBeforeIt) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ChildWithAnEarlierThread();
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "child status " << status;
  EXPECT_EQ(WEXITSTATUS(status), kSocketRefused)
      << "11: the earlier thread could open a socket (filter not synchronized); 12: setup failed";
}

}  // namespace
}  // namespace kjudge::compiler
