// JobSetup: everything a job needs that can be worked out without a GPU: the parsed problem
// spec, the candidate's launch plan (from RunSpec.launch_plan, else the source's kjudge-plan
// block), validated against the spec, and the kernel name expressions NVRTC must instantiate
// for the candidate and the reference (every test and bench shape; deduplicated, sorted).
// A baselines-only RunSpec has no candidate: its plan stays empty and it has no names.
//
// Contract: SetUpJob() fails with REJECTED for a submission's fault (no plan, a plan parse or
// validation error with its line:column, a template argument that does not evaluate) and with
// INTERNAL_ERROR for the problem's fault (spec or reference plan unusable). Inputs come from
// keys of their own (secret_key.h), never from the job.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/launch_plan.h"
#include "common/problem_spec.h"
#include "kjudge/v1/kjudge.pb.h"

namespace kjudge::runner {

struct JobSetup {
  ProblemSpec spec;
  LaunchPlan candidate_plan;
  std::string program_name;
  std::vector<std::string> candidate_names;
  std::vector<std::string> reference_names;
};

absl::StatusOr<JobSetup> SetUpJob(const v1::RunSpec& run);

absl::StatusOr<std::vector<std::string>> NameExpressions(const LaunchPlan& plan,
                                                         const ProblemSpec& spec);

}  // namespace kjudge::runner
