#include "server/submission_intake.h"

#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/launch_plan.h"
#include "common/sha256.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "common/plan_block.h"
#include "proto/result_caps.h"
#include "common/status_macros.h"

namespace kjudge::server {
namespace {

uint64_t FreshSeed() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) ^ device();
}

// Takes the job by reference so the message (often built from the job's fields) is complete
// before the job is moved out.
NewJob Rejected(NewJob& job, std::string message) {
  v1::JobResult result;
  result.set_verdict(v1::REJECTED);
  result.set_message(std::move(message));
  CapResultText(&result);  // a plan error may quote the submitter's text: bounded like any result
  job.immediate_result = std::move(result);
  return std::move(job);
}

}  // namespace

std::string RequestSha256(const v1::SubmitRequest& request) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream out(&stream);
    out.SetSerializationDeterministic(true);  // map order fixed: equal requests, equal bytes
    request.SerializeToCodedStream(&out);
  }
  return Sha256Hex(bytes);
}

absl::StatusOr<NewJob> PrepareJob(const v1::SubmitRequest& request, const ProblemCatalog& catalog,
                                  const IntakeLimits& limits) {
  SubmitLimits checks;
  checks.max_source_bytes = limits.max_source_bytes;
  KJ_RETURN_IF_ERROR(CheckSubmitRequest(request, checks));
  const CatalogEntry* entry = catalog.Find(request.problem());
  if (entry == nullptr) {
    std::vector<std::string> near = catalog.Suggest(request.problem());
    return absl::NotFoundError(absl::StrCat(
        "unknown problem '", request.problem(), "'",
        near.empty() ? "; `kjudge problems` lists them" : absl::StrCat("; did you mean ", absl::StrJoin(near, ", "), "?")));
  }
  NewJob job;
  job.problem = request.problem();
  job.source = request.source();
  job.filename = request.filename().empty() ? "submission.cu" : request.filename();
  job.compile_only = request.compile_only();
  job.needs_torch = !entry->files.spec.HasCudaReference();
  job.tags.insert(request.tags().begin(), request.tags().end());
  job.seed = FreshSeed();
  job.is_public = request.public_();
  job.idempotency_key = request.idempotency_key();
  job.request_sha256 = RequestSha256(request);
  job.baselines_only = request.baselines_only();
  if (job.baselines_only) return job;  // no candidate: no plan to parse (request_checks)

  if (!request.launch_plan().empty()) {
    job.launch_plan = request.launch_plan();
    job.plan_first_line = 1;
  } else {
    absl::StatusOr<std::optional<PlanBlock>> block = FindPlanBlock(request.source());
    if (!block.ok()) return Rejected(job, absl::StrCat(job.filename, ":", block.status().message()));
    if (!block->has_value()) {
      return Rejected(job,
                      absl::StrCat(job.filename, ": no launch plan: add a /* kjudge-plan ... */ block "
                                   "to the source (see `kjudge problem ", job.problem,
                                   " --starter`) or send one in launch_plan"));
    }
    job.launch_plan = (*block)->text;
    job.plan_first_line = (*block)->first_line;
  }
  const std::string plan_origin = request.launch_plan().empty() ? job.filename : "launch_plan";
  if (job.launch_plan.size() > limits.max_plan_bytes) {
    return Rejected(job, absl::StrCat("the launch plan is ", job.launch_plan.size(),
                                                 " bytes; the limit is ", limits.max_plan_bytes));
  }
  absl::StatusOr<LaunchPlan> plan = ParseLaunchPlan(job.launch_plan, job.plan_first_line);
  if (!plan.ok()) return Rejected(job, absl::StrCat(plan_origin, ":", plan.status().message()));
  absl::Status valid = ValidatePlanAgainstSpec(*plan, entry->files.spec);
  if (!valid.ok()) return Rejected(job, absl::StrCat(plan_origin, ":", valid.message()));
  return job;
}

}  // namespace kjudge::server
