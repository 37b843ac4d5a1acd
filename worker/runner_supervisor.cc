#include "worker/runner_supervisor.h"

#include "absl/strings/str_cat.h"
#include "proto/proto_json.h"
#include "common/log.h"

namespace kjudge::worker {
namespace {

using Clock = RunnerProcess::Clock;

std::string StageWords(v1::Stage stage) {
  switch (stage) {
    case v1::STAGE_COMPILING: return "compiling";
    case v1::STAGE_CHECKING: return "checking correctness";
    case v1::STAGE_TIMING: return "timing";
    case v1::STAGE_BASELINE: return "measuring a baseline";
    default: return "starting";
  }
}

std::string ProgressWords(const v1::RunnerProgress& progress) {
  std::string words = StageWords(progress.stage());
  if (progress.total() > 0) absl::StrAppend(&words, " (", progress.done(), "/", progress.total(), ")");
  return words;
}

}  // namespace

absl::StatusOr<v1::GpuInfo> RunnerSupervisor::Start() {
  Stop();
  std::vector<std::string> args = runner_args_;
  if (measured_.has_value()) {
    args.emplace_back("--measured-gpu");
    args.push_back(ToJson(*measured_));
  }
  absl::StatusOr<std::unique_ptr<RunnerProcess>> process = RunnerProcess::Spawn(runner_path_, args);
  if (!process.ok()) return process.status();
  process_ = std::move(*process);
  ++restarts_;
  absl::StatusOr<std::string> line = process_->ReadLine(Clock::now() + limits_.hello);
  if (!line.ok()) {
    const std::string how = process_->WaitAndDescribe(std::chrono::milliseconds(100));
    Stop();
    return absl::UnavailableError(absl::StrCat("the runner sent no hello (", line.status().message(),
                                               "; it ", how, "): see its log above"));
  }
  v1::RunnerMessage message;
  if (absl::Status s = FromJson(*line, &message); !s.ok() || !message.has_hello()) {
    Stop();
    return absl::InternalError(absl::StrCat("the runner's first line is not a hello: ", line->substr(0, 200)));
  }
  gpu_ = message.hello().gpu();
  // The first complete measurement serves every later runner of this worker (same GPU).
  if (!measured_.has_value() && !gpu_.compile_only() && gpu_.event_overhead_us() > 0.0 &&
      gpu_.copy_bandwidth_gbs() > 0.0) {
    measured_ = gpu_;
  }
  if (gpu_.compile_only() && compiles_ahead_) {
    spdlog::info("compile-ahead runner ready (compiles the next jobs for {})", gpu_.arch());
  } else if (gpu_.compile_only()) {
    spdlog::warn("runner has no GPU ({}): compile-only mode, arch {}", message.hello().error(), gpu_.arch());
  } else {
    spdlog::info("runner ready on {} ({} SMs, {}); ceilings: device copy {:.1f} GB/s, GEMM TFLOP/s SGEMM {:.1f}, "
                 "TF32 {:.1f}, FP16 {:.1f}, BF16 {:.1f}",
                 gpu_.name(), gpu_.sm_count(), gpu_.arch(), gpu_.copy_bandwidth_gbs(), gpu_.sgemm_tflops(),
                 gpu_.tf32_tflops(), gpu_.fp16_tflops(), gpu_.bf16_tflops());
  }
  return gpu_;
}

void RunnerSupervisor::Stop() {
  if (process_) process_->Kill();
  process_.reset();
}

RunOutcome RunnerSupervisor::HandBack(std::string reason) {
  Stop();
  RunOutcome outcome;
  outcome.handed_back = true;
  outcome.reason = std::move(reason);
  return outcome;
}

RunOutcome RunnerSupervisor::Timeout(v1::Stage stage, const v1::RunnerProgress& last, bool job_limit) {
  Stop();  // kills the runner's process group: its kernels end with its CUDA context
  RunOutcome outcome;
  v1::JobResult* result = outcome.result.mutable_result();
  result->set_verdict(v1::TIMEOUT);
  if (job_limit) {
    result->set_message(absl::StrCat("the job ran past its limit of ", limits_.job.count() / 1000,
                                     " s while ", ProgressWords(last), "; the runner was killed"));
  } else if (stage == v1::STAGE_COMPILING) {
    result->set_message(absl::StrCat("compilation took longer than ", limits_.compile.count() / 1000,
                                     " s; the runner was killed"));
  } else {
    result->set_message(absl::StrCat("no progress for ", limits_.stall.count() / 1000, " s while ",
                                     ProgressWords(last),
                                     ": a kernel did not finish (infinite loop or far too slow); the runner was killed"));
  }
  result->set_gpu(gpu_.name());
  return outcome;
}

RunOutcome RunnerSupervisor::Run(const v1::RunSpec& spec, const ProgressCallback& on_progress,
                                 const std::function<bool()>& should_abort) {
  if (!process_) {
    if (absl::StatusOr<v1::GpuInfo> started = Start(); !started.ok()) {
      return HandBack(absl::StrCat("no runner: ", started.status().message()));
    }
  }
  v1::RunnerRequest request;
  *request.mutable_spec() = spec;
  if (absl::Status s = process_->WriteLine(ToJson(request)); !s.ok()) {
    return HandBack(absl::StrCat("could not send the job to the runner: ", s.message()));
  }
  const auto job_deadline = Clock::now() + limits_.job;
  v1::RunnerProgress last;
  last.set_stage(v1::STAGE_COMPILING);
  auto stage_deadline = Clock::now() + limits_.compile;
  while (true) {
    if (should_abort()) return HandBack("the worker gave the job up (lease lost or shutting down)");
    const auto now = Clock::now();
    if (now >= job_deadline) return Timeout(last.stage(), last, /*job_limit=*/true);
    if (now >= stage_deadline) return Timeout(last.stage(), last, /*job_limit=*/false);
    // Wake at least every 200 ms to notice an abort.
    const auto wake = std::min({stage_deadline, job_deadline, now + std::chrono::milliseconds(200)});
    absl::StatusOr<std::string> line = process_->ReadLine(wake);
    if (absl::IsDeadlineExceeded(line.status())) continue;
    if (!line.ok()) {
      const std::string how = process_->WaitAndDescribe(std::chrono::milliseconds(2000));
      return HandBack(absl::StrCat("the runner ", how, " while ", ProgressWords(last), " without a verdict"));
    }
    v1::RunnerMessage message;
    if (absl::Status s = FromJson(*line, &message); !s.ok()) {
      spdlog::warn("ignoring a malformed runner line: {}", line->substr(0, 200));
      continue;
    }
    if (message.has_progress()) {
      last = message.progress();
      stage_deadline = Clock::now() + (last.stage() == v1::STAGE_COMPILING ? limits_.compile : limits_.stall);
      on_progress(last);
      continue;
    }
    if (message.has_result()) {
      RunOutcome outcome;
      outcome.result = message.result();
      if (outcome.result.runner_exits()) {
        // After a sticky CUDA error the runner exits by itself; make sure, and start afresh.
        spdlog::info("runner {} after a runtime error; a fresh one serves the next job",
                     process_->WaitAndDescribe(std::chrono::milliseconds(3000)));
        Stop();
      }
      return outcome;
    }
  }
}

}  // namespace kjudge::worker
