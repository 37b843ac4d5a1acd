// SubmissionIntake: turns a SubmitRequest into a job to queue, judging at once what needs no
// GPU.
//
// Contract:
//  * A malformed request (proto/request_checks.h: empty or oversized source, invalid UTF-8,
//    too many or too long tags, a control character in the filename, ...) is INVALID_ARGUMENT
//    naming the field and position; an unknown problem is NOT_FOUND. Nothing is stored.
//  * A launch plan that is missing, does not parse, or names what the problem lacks gives a
//    job that is already done with verdict REJECTED and a "file:line:column: ..." message,
//    so agents read plan errors from the same place as every other verdict.
//  * Otherwise the job carries the plan text and the plan's first line in the source, and a
//    fresh secret seed.
//  * A baselines-only request (no source, no plan, not compile-only: checked as malformed
//    otherwise) gives a job with no candidate and no plan, routed like a GPU job of its problem
//    (needs_torch as for any job of it).
#pragma once

#include "absl/status/statusor.h"
#include "kjudge/v1/kjudge.pb.h"
#include "proto/request_checks.h"
#include "server/job_store.h"
#include "server/problem_catalog.h"

namespace kjudge::server {

struct IntakeLimits {
  size_t max_source_bytes = 1 << 20;
  size_t max_plan_bytes = 64 << 10;
};

// SHA-256 of the request's deterministic serialization: an idempotent retry must match it.
std::string RequestSha256(const v1::SubmitRequest& request);

absl::StatusOr<NewJob> PrepareJob(const v1::SubmitRequest& request, const ProblemCatalog& catalog,
                                  const IntakeLimits& limits);

}  // namespace kjudge::server
