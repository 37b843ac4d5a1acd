#include "worker/job_prefetcher.h"

#include <utility>

#include "common/log.h"

namespace kjudge::worker {

JobPrefetcher::~JobPrefetcher() {
  // A job leased here and never taken is dropped with its keeper: the lease expires on the
  // server. WorkerLoop takes and hands back a pending job before it lets this go.
  if (next_.valid()) next_.wait();
}

void JobPrefetcher::Begin(LeaseFn lease, AbortFn should_abort) {
  next_ = std::async(std::launch::async, [this, lease = std::move(lease),
                                          should_abort = std::move(should_abort)]() {
    std::optional<LeasedJob> job = lease();
    if (!job.has_value()) return job;
    if (job->lease.spec().baselines_only()) return job;  // no candidate: nothing to compile
    v1::RunSpec spec = job->lease.spec();
    spec.set_compile_only(true);
    const auto start = std::chrono::steady_clock::now();
    RunOutcome outcome = compile_ahead_->Run(
        spec, [](const v1::RunnerProgress&) {},
        [&] { return should_abort() || job->keeper->lost().load(); });
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (outcome.handed_back) {
      spdlog::info("job {}: compile-ahead gave up ({}); the judge will compile it", spec.job_id(),
                   outcome.reason);
    } else {
      spdlog::info("job {}: compiled ahead in {:.0f} ms ({})", spec.job_id(), ms,
                   v1::Verdict_Name(outcome.result.result().verdict()));
    }
    return job;
  });
}

std::optional<LeasedJob> JobPrefetcher::Take() {
  if (!next_.valid()) return std::nullopt;
  return next_.get();
}

}  // namespace kjudge::worker
