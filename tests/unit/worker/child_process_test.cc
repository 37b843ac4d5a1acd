// ChildProcess (worker/process/child_process.h) with real children (/bin/sh): what a child
// gets through each path (posix_spawn, fork + exec), and that a child is always reaped.
#include "worker/process/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "worker/process/unique_fd.h"

namespace kjudge::process {
namespace {

using ::testing::HasSubstr;

// Everything the child can see of what it was given, one line each.
constexpr const char* kProbe = R"sh(
echo "stdin $(readlink /proc/$$/fd/0)"
echo "env A=$A B=${B-unset}"
[ -e /proc/$$/fd/50 ] && echo "fd50 leaked" || echo "fd50 closed"
echo "via3" >&3 && echo "fd3 ok"
echo "to stderr" >&2
set -- $(cat /proc/$$/stat)
[ "$1" = "$5" ] && echo "own group" || echo "parent group"
sigign=$(sed -n 's/^SigIgn:\t//p' /proc/$$/status)
[ $(( 0x$sigign & 0x1000 )) -ne 0 ] && echo "SIGPIPE ignored" || echo "SIGPIPE default"
)sh";

struct ProbeRun {
  std::string output;   // its stdout and stderr, in order
  std::string channel;  // what it wrote to its fd 3
  int status = 0;
};

ProbeRun RunProbe(bool fork_path, bool default_sigpipe, bool own_group) {
  int sv[2];
  EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  UniqueFd ours(sv[0]);
  UniqueFd theirs(sv[1]);
  int out[2];
  EXPECT_EQ(pipe2(out, O_CLOEXEC), 0);
  UniqueFd out_read(out[0]);
  UniqueFd out_write(out[1]);
  // A descriptor without close-on-exec that the child must not inherit.
  const int devnull = open("/dev/null", O_RDONLY);
  EXPECT_EQ(dup2(devnull, 50), 50);
  close(devnull);
  UniqueFd leak(50);

  SpawnSpec spec;
  spec.path = "/bin/sh";
  spec.args = {"-c", kProbe};
  spec.env = std::vector<std::string>{"A=1", "PATH=/usr/bin:/bin"};
  spec.channel_fd = theirs.get();
  spec.stdout_fd = out_write.get();
  spec.stderr_fd = out_write.get();
  spec.default_sigpipe = default_sigpipe;
  spec.own_process_group = own_group;
  spec.die_with_parent = fork_path;
  absl::StatusOr<ChildProcess> child = ChildProcess::Spawn(spec);
  EXPECT_TRUE(child.ok()) << child.status();
  out_write.Reset();
  theirs.Reset();
  ProbeRun run;
  char buf[4096];
  ssize_t n = 0;
  while ((n = read(out_read.get(), buf, sizeof(buf))) > 0) run.output.append(buf, n);
  EXPECT_FALSE(child->ReapBy(ChildProcess::Clock::now() + std::chrono::seconds(10)));
  run.status = child->wait_status();
  while ((n = read(ours.get(), buf, sizeof(buf))) > 0) run.channel.append(buf, n);
  return run;
}

class ChildProcessPaths : public ::testing::TestWithParam<bool> {};

TEST_P(ChildProcessPaths, ChildGetsExactlyTheSpec) {
  const sighandler_t old = signal(SIGPIPE, SIG_IGN);  // as the worker and the judge run
  const ProbeRun run = RunProbe(GetParam(), /*default_sigpipe=*/true, /*own_group=*/true);
  signal(SIGPIPE, old);
  EXPECT_TRUE(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0) << run.output;
  EXPECT_EQ(run.output,
            "stdin /dev/null\nenv A=1 B=unset\nfd50 closed\nfd3 ok\nto stderr\nown group\n"
            "SIGPIPE default\n");
  EXPECT_EQ(run.channel, "via3\n");
}

TEST_P(ChildProcessPaths, InheritsIgnoredSigpipeAndGroupUnlessAsked) {
  const sighandler_t old = signal(SIGPIPE, SIG_IGN);
  const ProbeRun run = RunProbe(GetParam(), /*default_sigpipe=*/false, /*own_group=*/false);
  signal(SIGPIPE, old);
  EXPECT_THAT(run.output, HasSubstr("parent group\nSIGPIPE ignored\n"));
}

INSTANTIATE_TEST_SUITE_P(PosixSpawnAndForkExec, ChildProcessPaths, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& p) {
                           return p.param ? "ForkExec" : "PosixSpawn";
                         });

TEST(ChildProcess, DestructorKillsAndReapsARunningChild) {
  SpawnSpec spec;
  spec.path = "/bin/sleep";
  spec.args = {"100"};
  pid_t pid = -1;
  {
    absl::StatusOr<ChildProcess> child = ChildProcess::Spawn(spec);
    ASSERT_TRUE(child.ok()) << child.status();
    pid = child->pid();
    EXPECT_EQ(child->PollExit(), ChildProcess::Poll::kRunning);
  }
  // Reaped: no zombie left to signal.
  EXPECT_EQ(kill(pid, 0), -1);
  EXPECT_EQ(errno, ESRCH);
}

TEST(ChildProcess, ReapByKillsAtTheDeadlineAndSaysSo) {
  SpawnSpec spec;
  spec.path = "/bin/sleep";
  spec.args = {"100"};
  spec.own_process_group = true;
  absl::StatusOr<ChildProcess> child = ChildProcess::Spawn(spec);
  ASSERT_TRUE(child.ok()) << child.status();
  EXPECT_TRUE(child->ReapBy(ChildProcess::Clock::now() + std::chrono::milliseconds(20)));
  EXPECT_FALSE(child->running());
  EXPECT_EQ(child->DescribeExit(), "was killed by signal 9 (Killed)");
  child->Kill();  // reaped: nothing is signalled, nothing fails
}

TEST(ChildProcess, ExitStatusIsDescribed) {
  SpawnSpec spec;
  spec.path = "/bin/sh";
  spec.args = {"-c", "exit 3"};
  absl::StatusOr<ChildProcess> child = ChildProcess::Spawn(spec);
  ASSERT_TRUE(child.ok()) << child.status();
  EXPECT_FALSE(child->ReapBy(ChildProcess::Clock::now() + std::chrono::seconds(10)));
  EXPECT_EQ(child->DescribeExit(), "exited with status 3");
}

TEST(ChildProcess, MissingBinaryIsAnErrorNamingTheCall) {
  SpawnSpec spec;
  spec.path = "/nonexistent/kjudge-binary";
  spec.spawn_call = "posix_spawn(/nonexistent/kjudge-binary)";
  absl::StatusOr<ChildProcess> child = ChildProcess::Spawn(spec);
  ASSERT_FALSE(child.ok());
  EXPECT_EQ(child.status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(child.status().message(),
            "posix_spawn(/nonexistent/kjudge-binary): No such file or directory");
}

TEST(ChildProcess, ForkPathExecFailureExits127) {
  SpawnSpec spec;
  spec.path = "/nonexistent/kjudge-binary";
  spec.die_with_parent = true;
  absl::StatusOr<ChildProcess> child = ChildProcess::Spawn(spec);
  ASSERT_TRUE(child.ok()) << child.status();  // fork succeeded; exec fails in the child
  EXPECT_FALSE(child->ReapBy(ChildProcess::Clock::now() + std::chrono::seconds(10)));
  EXPECT_EQ(child->DescribeExit(), "exited with status 127");
}

TEST(ChildProcess, ReleaseHandsThePidOver) {
  SpawnSpec spec;
  spec.path = "/bin/sh";
  spec.args = {"-c", "exit 0"};
  absl::StatusOr<ChildProcess> child = ChildProcess::Spawn(spec);
  ASSERT_TRUE(child.ok()) << child.status();
  const pid_t pid = child->Release();
  EXPECT_EQ(child->pid(), -1);
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, 0), pid);  // still ours to reap: the destructor did not
  EXPECT_TRUE(WIFEXITED(status));
}

}  // namespace
}  // namespace kjudge::process
