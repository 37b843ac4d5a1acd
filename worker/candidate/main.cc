// kjudge-candidate: one process per job, started by the judge (kjudge-runner) ahead of time.
// It loads the submitted cubin, maps the judge's buffers (inputs read-only), launches the plan
// and times it, answering the judge over file descriptor 3 (proto/kjudge/v1/candidate.proto).
// Its stdout and stderr belong to the submission (device printf lands there): the judge
// captures and caps them and never reads them as protocol.
//
// Exit status: 0 when the judge closes the channel; 3 after a sticky CUDA error (replied
// first); 1 when CUDA cannot be set up (replied first when possible); 2 for a bad command line.
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <CLI/CLI.hpp>
#include <cuda_runtime_api.h>

#include "worker/candidate/candidate_session.h"
#include "worker/runner/message_channel.h"
#include "worker/runner/runner_error.h"

namespace {

constexpr int kChannelFd = 3;

// Leaves at once when the judge is done: the driver tears the context down as the process
// ends, off the judge's path (it has read our output by the time the pipe closes).
[[noreturn]] void Leave() {
  std::fflush(stdout);
  std::fflush(stderr);
  // Our output ends here, not after the kernel has unmapped the CUDA address space.
  close(STDOUT_FILENO);
  close(STDERR_FILENO);
  std::_Exit(0);
}

int Serve(int device) {
  using kjudge::runner::MessageChannel;
  MessageChannel channel{kjudge::runner::ScopedFd(kChannelFd)};
  const auto forever = MessageChannel::Clock::now() + std::chrono::hours(24 * 365);
  // cuInit now (about half of the start-up; harmless to timings in other processes), the
  // context only when the judge says so (candidate.proto, Open).
  const auto started = std::chrono::steady_clock::now();
  int devices = 0;
  (void)cudaGetDeviceCount(&devices);  // an error shows again, with its reason, in Create
  const auto initialised = std::chrono::steady_clock::now();
  {
    kjudge::v1::CandidateRequest open;
    std::vector<kjudge::runner::ScopedFd> fds;
    if (!channel.Receive(&open, forever, &fds).ok()) Leave();
    if (!open.has_open()) {
      kjudge::v1::CandidateReply refused;
      refused.set_verdict(kjudge::v1::INTERNAL_ERROR);
      refused.set_message("candidate process: the first request must be Open");
      (void)channel.Send(refused);
      return 1;
    }
  }
  const auto opened = std::chrono::steady_clock::now();
  absl::StatusOr<std::unique_ptr<kjudge::candidate::CandidateSession>> session =
      kjudge::candidate::CandidateSession::Create(device);
  kjudge::v1::CandidateReply ready;
  using Ms = std::chrono::duration<double, std::milli>;
  ready.set_init_ms(Ms(initialised - started).count());
  ready.set_context_ms(Ms(std::chrono::steady_clock::now() - opened).count());
  if (!session.ok()) {
    const kjudge::runner::ErrorInfo info = kjudge::runner::DescribeError(session.status());
    ready.set_verdict(kjudge::v1::INTERNAL_ERROR);
    ready.set_message("candidate process: " + info.message);
    (void)channel.Send(ready);
    return 1;
  }
  ready.set_ready(true);
  if (!channel.Send(ready).ok()) return 0;
  while (true) {
    kjudge::v1::CandidateRequest request;
    std::vector<kjudge::runner::ScopedFd> fds;
    if (!channel.Receive(&request, forever, &fds).ok()) Leave();  // the judge is done
    const kjudge::v1::CandidateReply reply = (*session)->Handle(request, std::move(fds));
    // Whatever the kernels printed (device printf lands in stdio's buffer at each
    // synchronisation) is in the pipe before the judge reads the reply.
    std::fflush(stdout);
    std::fflush(stderr);
    if (!channel.Send(reply).ok()) return 0;
    if (reply.sticky()) std::_Exit(kjudge::runner::kStickyExitCode);  // skip CUDA teardown
  }
}

}  // namespace

int main(int argc, char** argv) {
  // The judge that started us is our only reason to exist.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() == 1) return 0;
  int device = 0;
  CLI::App app{"kjudge-candidate: runs one job's submitted kernels for the judge (fd 3)"};
  app.add_option("--device", device, "CUDA device index")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  return Serve(device);
}
