#include "worker/gpu/job_setup.h"

#include <algorithm>
#include <optional>

#include "worker/gpu/str_util.h"
#include "common/plan_block.h"
#include "worker/gpu/runner_error.h"

namespace kjudge::runner {
namespace {

std::string Msg(const absl::Status& s) { return std::string(s.message()); }

absl::StatusOr<LaunchPlan> CandidatePlan(const v1::RunSpec& run, const std::string& file) {
  std::string text = run.launch_plan();
  int first_line = run.plan_first_line() > 0 ? run.plan_first_line() : 1;
  if (text.empty()) {
    absl::StatusOr<std::optional<PlanBlock>> block = FindPlanBlock(run.source());
    if (!block.ok()) {
      return MakeRunnerError(v1::REJECTED, Cat(file, ": ", Msg(block.status())));
    }
    if (!block->has_value()) {
      return MakeRunnerError(v1::REJECTED,
                             Cat(file, ": no launch plan (give one, or put a "
                                                "/* kjudge-plan ... */ block in the source)"));
    }
    text = (*block)->text;
    first_line = (*block)->first_line;
  }
  absl::StatusOr<LaunchPlan> plan = ParseLaunchPlan(text, first_line);
  if (!plan.ok()) {
    return MakeRunnerError(v1::REJECTED, Cat(file, ":", Msg(plan.status())));
  }
  return plan;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> NameExpressions(const LaunchPlan& plan,
                                                         const ProblemSpec& spec) {
  std::vector<std::string> names;
  for (const auto* shapes : {&spec.test_shapes, &spec.bench_shapes}) {
    for (const Shape& shape : *shapes) {
      const Bindings bindings = spec.BindingsFor(shape);
      for (const Launch& launch : plan.launches) {
        absl::StatusOr<std::string> name = launch.NameExpression(bindings);
        if (!name.ok()) {
          return MakeRunnerError(v1::REJECTED, Cat("line ", launch.pos.line, ": ",
                                                            launch.kernel, " at ", shape.Label(),
                                                            ": ", Msg(name.status())));
        }
        names.push_back(*std::move(name));
      }
    }
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

absl::StatusOr<JobSetup> SetUpJob(const v1::RunSpec& run) {
  JobSetup setup;
  setup.program_name = run.filename().empty() ? "solution.cu" : run.filename();
  absl::StatusOr<ProblemSpec> spec = ParseProblemSpec(run.spec_toml(), run.problem());
  if (!spec.ok()) {
    return MakeRunnerError(v1::INTERNAL_ERROR,
                           Cat("problem spec unusable: ", Msg(spec.status())));
  }
  setup.spec = *std::move(spec);
  if (!run.baselines_only()) {  // a baselines-only job has no candidate (empty plan, no names)
    KJ_ASSIGN_OR_RETURN(setup.candidate_plan, CandidatePlan(run, setup.program_name));
    if (absl::Status valid = ValidatePlanAgainstSpec(setup.candidate_plan, setup.spec); !valid.ok()) {
      return MakeRunnerError(v1::REJECTED, Cat(setup.program_name, ":", Msg(valid)));
    }
    KJ_ASSIGN_OR_RETURN(setup.candidate_names, NameExpressions(setup.candidate_plan, setup.spec));
  }
  absl::StatusOr<std::vector<std::string>> ref = NameExpressions(setup.spec.reference_plan, setup.spec);
  if (!ref.ok()) {
    return MakeRunnerError(v1::INTERNAL_ERROR,
                           Cat("reference plan unusable: ", Msg(ref.status())));
  }
  setup.reference_names = *std::move(ref);
  return setup;
}

}  // namespace kjudge::runner
