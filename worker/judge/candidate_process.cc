#include "worker/judge/candidate_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "google/protobuf/repeated_ptr_field.h"
#include "worker/gpu/device_buffer.h"
#include "worker/gpu/runner_error.h"
#include "worker/gpu/str_util.h"

extern char** environ;

namespace kjudge::runner {
namespace {

constexpr int kChannelFd = 3;

// What the child may inherit: the variables CUDA needs to find the driver, the libraries and
// the same devices. Everything else (KJUDGE_API_KEY above all) stays behind.
std::vector<std::string> ChildEnvironment() {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view v(*e);
    if (v.starts_with("LD_LIBRARY_PATH=") || v.starts_with("CUDA_") ||
        v.starts_with("NVIDIA_") || v.starts_with("PATH=")) {
      env.emplace_back(v);
    }
  }
  return env;
}

absl::Status SpawnError(std::string_view what, int err) {
  return MakeRunnerError(v1::INTERNAL_ERROR,
                         Cat("starting the candidate process: ", what, ": ", std::strerror(err)));
}

}  // namespace

absl::StatusOr<std::unique_ptr<CandidateProcess>> CandidateProcess::Spawn(
    const std::string& path, int device, std::chrono::milliseconds timeout) {
  if (access(path.c_str(), X_OK) != 0) {
    return MakeRunnerError(v1::INTERNAL_ERROR,
                           Cat("the candidate binary '", path, "' is not executable"));
  }
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    return SpawnError("socketpair", errno);
  }
  ScopedFd ours(sv[0]);
  ScopedFd theirs(sv[1]);
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return SpawnError("pipe", errno);
  ScopedFd out_read(out[0]);
  ScopedFd out_write(out[1]);

  process::SpawnSpec spec;
  spec.path = path;
  spec.args = {"--device", std::to_string(device)};
  spec.env = ChildEnvironment();
  spec.channel_fd = theirs.get();
  spec.stdout_fd = out_write.get();
  spec.stderr_fd = out_write.get();
  spec.default_sigpipe = true;
  absl::StatusOr<process::ChildProcess> child = process::ChildProcess::Spawn(spec);
  if (!child.ok()) {
    return MakeRunnerError(v1::INTERNAL_ERROR,
                           Cat("starting the candidate process: ", child.status().message()));
  }
  out_write.Reset();
  theirs.Reset();
  std::unique_ptr<CandidateProcess> p(
      new CandidateProcess(*std::move(child), std::move(ours), std::move(out_read), timeout));
  return p;
}

CandidateProcess::CandidateProcess(process::ChildProcess child, ScopedFd channel, ScopedFd output,
                                   std::chrono::milliseconds timeout)
    : child_(std::move(child)), pid_(child_.pid()), channel_(std::move(channel)), timeout_(timeout) {
  drainer_ = std::thread([this, fd = output.release()] { Drain(fd); });
}

CandidateProcess::~CandidateProcess() { (void)Finish(); }

void CandidateProcess::Drain(int fd) {
  ScopedFd owned(fd);
  char chunk[16384];
  while (true) {
    const ssize_t n = read(fd, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::lock_guard<std::mutex> lock(output_mu_);
      drained_ = true;
      drained_cv_.notify_all();
      return;
    }
    std::lock_guard<std::mutex> lock(output_mu_);
    const size_t room = kMaxCandidateOutput - output_.text.size();
    const size_t take = std::min(room, static_cast<size_t>(n));
    output_.text.append(chunk, take);
    output_.cut += n - static_cast<ssize_t>(take);
  }
}

absl::Status CandidateProcess::Open() {
  if (opened_) return absl::OkStatus();
  v1::CandidateRequest open;
  open.mutable_open();
  if (!channel_.Send(open).ok()) return Died("starting up");
  opened_ = true;
  return absl::OkStatus();
}

absl::Status CandidateProcess::AwaitReady() {
  if (ready_) return absl::OkStatus();
  KJ_RETURN_IF_ERROR(Open());
  v1::CandidateReply reply;
  absl::Status s = channel_.Receive(&reply, Clock::now() + std::chrono::seconds(60));
  if (!s.ok()) return Died("starting up");
  if (!reply.ready()) {
    return MakeRunnerError(v1::INTERNAL_ERROR, Cat("candidate process: ", reply.message()));
  }
  ready_ = true;
  init_ms_ = reply.init_ms();
  context_ms_ = reply.context_ms();
  return absl::OkStatus();
}

void CandidateProcess::Reap(std::chrono::milliseconds grace) {
  if (reaped_) return;
  child_.ReapBy(Clock::now() + grace);
  reaped_ = true;
}

absl::Status CandidateProcess::Died(std::string_view what) {
  Reap(std::chrono::milliseconds(2000));
  return MakeRunnerError(v1::RUNTIME_ERROR,
                         Cat("the candidate process ", child_.DescribeExit(), " while ", what));
}

absl::StatusOr<v1::CandidateReply> CandidateProcess::Call(const v1::CandidateRequest& request,
                                                          const std::vector<int>& fds,
                                                          std::string_view what) {
  KJ_RETURN_IF_ERROR(AwaitReady());
  if (reaped_) return Died(what);
  if (!channel_.Send(request, fds).ok()) return Died(what);
  v1::CandidateReply reply;
  const Clock::time_point deadline = Clock::now() + timeout_;
  absl::Status s = channel_.WaitReadable(std::min(deadline, Clock::now() + kHeartbeatEvery));
  while (absl::IsDeadlineExceeded(s) && Clock::now() < deadline) {
    if (heartbeat_) heartbeat_();
    s = channel_.WaitReadable(std::min(deadline, Clock::now() + kHeartbeatEvery));
  }
  if (s.ok()) s = channel_.Receive(&reply, deadline);
  if (absl::IsDeadlineExceeded(s)) {
    child_.Kill();
    Reap(std::chrono::milliseconds(5000));
    return MakeRunnerError(
        v1::TIMEOUT, Cat(what, ": no answer within ", timeout_.count() / 1000.0,
                         " s (a kernel that never finishes?); the candidate process was killed"));
  }
  if (!s.ok()) return Died(what);
  if (reply.verdict() != v1::VERDICT_UNSPECIFIED) {
    if (reply.sticky()) Reap(std::chrono::milliseconds(5000));
    return MakeRunnerError(reply.verdict(), reply.message(), reply.cuda_error(), false);
  }
  return reply;
}

absl::Status CandidateProcess::Load(const v1::RunSpec& run, const CompiledProgram& program) {
  v1::CandidateRequest request;
  v1::CandidateRequest::Load* load = request.mutable_load();
  *load->mutable_run() = run;
  load->mutable_run()->clear_seed();
  load->mutable_run()->clear_reference_source();
  load->mutable_run()->clear_reference_module();
  load->mutable_run()->clear_cached_baselines();
  load->set_cubin(program.cubin);
  for (const auto& [expr, lowered] : program.lowered_names) {
    (*load->mutable_lowered_names())[expr] = lowered;
  }
  return Call(request, {}, "loading the submission").status();
}

absl::Status CandidateProcess::Bind(int set, bool bench, int shape,
                                    const std::vector<BindBuffer>& buffers) {
  v1::CandidateRequest request;
  v1::CandidateRequest::Bind* bind = request.mutable_bind();
  bind->set_set(set);
  bind->set_bench(bench);
  bind->set_shape(shape);
  std::vector<ScopedFd> owned;
  std::vector<int> fds;
  for (const BindBuffer& b : buffers) {
    KJ_ASSIGN_OR_RETURN(int fd, b.buffer->Export());
    owned.emplace_back(fd);
    fds.push_back(fd);
    v1::SharedBuffer* s = bind->add_buffers();
    s->set_name(b.name);
    s->set_alloc_bytes(b.buffer->alloc_bytes());
    s->set_data_offset(b.buffer->data_offset());
    s->set_read_only(b.read_only);
  }
  return Call(request, fds, "binding the buffers").status();
}

absl::Status CandidateProcess::Run(int set, bool sync_each) {
  v1::CandidateRequest request;
  request.mutable_run()->set_set(set);
  request.mutable_run()->set_sync_each(sync_each);
  return Call(request, {}, "running the plan").status();
}

absl::StatusOr<RawSample> CandidateProcess::Sample(int set) {
  v1::CandidateRequest request;
  request.mutable_sample()->set_set(set);
  KJ_ASSIGN_OR_RETURN(v1::CandidateReply reply, Call(request, {}, "a timed sample"));
  return RawSample{reply.elapsed_us(), reply.busy_after_stop()};
}

absl::Status CandidateProcess::Release(int set) {
  v1::CandidateRequest request;
  request.mutable_release()->set_set(set);
  return Call(request, {}, "releasing buffers").status();
}

CandidateOutput CandidateProcess::Finish() {
  // Closing the channel ends the child's loop; it exits at once, which closes its output.
  shutdown(channel_.fd(), SHUT_RDWR);
  {
    std::unique_lock<std::mutex> lock(output_mu_);
    if (!drained_cv_.wait_for(lock, std::chrono::seconds(1), [this] { return drained_; })) {
      child_.Kill();  // stuck (in a kernel?): its output ends here
    }
  }
  if (drainer_.joinable()) drainer_.join();
  if (!reaped_) {
    if (child_.PollExit() == process::ChildProcess::Poll::kRunning) {
      std::thread([pid = child_.Release()] {
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
      }).detach();
    }
    reaped_ = true;
  }
  std::lock_guard<std::mutex> lock(output_mu_);
  return std::exchange(output_, CandidateOutput{});
}

}  // namespace kjudge::runner

namespace kjudge::runner {

absl::StatusOr<std::unique_ptr<CandidateProcess>> CandidateLauncher::Take() {
  if (next_ == nullptr) {
    KJ_ASSIGN_OR_RETURN(next_, CandidateProcess::Spawn(path_, device_, timeout_));
  }
  std::unique_ptr<CandidateProcess> p = std::move(next_);
  KJ_RETURN_IF_ERROR(p->AwaitReady());
  return p;
}

void CandidateLauncher::Prestart() {
  if (next_ != nullptr) return;
  absl::StatusOr<std::unique_ptr<CandidateProcess>> p =
      CandidateProcess::Spawn(path_, device_, timeout_);
  if (p.ok()) next_ = *std::move(p);  // a failure shows again, with its reason, in Take()
}

void CandidateLauncher::Warm() {
  Prestart();
  // A child that died shows it, with its reason, in Take().
  if (next_ != nullptr) (void)next_->Open();
}

}  // namespace kjudge::runner
