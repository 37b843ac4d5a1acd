#include "server/job_outcome.h"

namespace kjudge::server {

bool JobSucceeded(const v1::Job& job) {
  if (job.state() != v1::DONE) return false;
  const v1::Verdict asked = job.baselines_only() ? v1::BASELINES_MEASURED
                            : job.compile_only() ? v1::COMPILED
                                                 : v1::CORRECT;
  return job.result().verdict() == asked;
}

}  // namespace kjudge::server
