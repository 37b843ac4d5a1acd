// ValidatePlanAgainstSpec (declared in problem_spec.h): name resolution for a launch plan.
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/lexer.h"
#include "absl/strings/string_view.h"
#include "common/problem_spec.h"

namespace kjudge {
namespace {

enum class NameKind { kSize, kScalar, kTensor, kScratch };

absl::string_view KindName(NameKind kind) {
  switch (kind) {
    case NameKind::kSize:
      return "size";
    case NameKind::kScalar:
      return "scalar";
    case NameKind::kTensor:
      return "tensor";
    case NameKind::kScratch:
      return "scratch buffer";
  }
  return "name";
}

class PlanChecker {
 public:
  explicit PlanChecker(const ProblemSpec& spec) {
    for (const std::string& size : spec.sizes) names_.emplace(size, NameKind::kSize);
    for (const ScalarSpec& scalar : spec.scalars) names_.emplace(scalar.name, NameKind::kScalar);
    for (const TensorSpec& tensor : spec.tensors) names_.emplace(tensor.name, NameKind::kTensor);
  }

  absl::Status AddScratch(const ScratchDecl& decl) {
    const auto [it, inserted] = names_.emplace(decl.name, NameKind::kScratch);
    if (inserted) return absl::OkStatus();
    return MakePosError(decl.pos, absl::StrCat("scratch buffer '", decl.name, "' has the name of a ",
                                               KindName(it->second),
                                               "; expected a name not used by the problem"));
  }

  // An integer/float value: only sizes and scalars may appear.
  absl::Status CheckValue(const Expr& expr, absl::string_view where) const {
    for (const NameUse& use : expr.NameUses()) {
      const auto it = names_.find(use.name);
      if (it == names_.end()) {
        return MakePosError(use.pos, absl::StrCat("unknown name '", use.name, "' in ", where,
                                                  "; expected ", Listing(false)));
      }
      if (it->second == NameKind::kTensor || it->second == NameKind::kScratch) {
        return MakePosError(
            use.pos, absl::StrCat(KindName(it->second), " '", use.name, "' is a pointer and cannot be used in ",
                                  where, "; expected ", Listing(false)));
      }
    }
    return absl::OkStatus();
  }

  // A kernel argument: a bare tensor or scratch name passes a pointer; anything else is a value.
  absl::Status CheckArg(const Expr& arg, absl::string_view where) const {
    if (arg.IsIdentifier()) {
      if (names_.contains(arg.Identifier())) return absl::OkStatus();
      return MakePosError(arg.pos(), absl::StrCat("unknown name '", arg.Identifier(), "' in ",
                                                  where, "; expected ", Listing(true)));
    }
    return CheckValue(arg, where);
  }

 private:
  std::string Listing(bool with_pointers) const {
    std::vector<std::string> parts;
    for (NameKind kind : {NameKind::kTensor, NameKind::kScratch, NameKind::kSize,
                          NameKind::kScalar}) {
      const bool pointer = kind == NameKind::kTensor || kind == NameKind::kScratch;
      if (pointer && !with_pointers) continue;
      std::vector<std::string> names;
      for (const auto& [name, k] : names_) {
        if (k == kind) names.emplace_back(name);
      }
      if (!names.empty()) {
        parts.push_back(absl::StrCat("a ", KindName(kind), " (", absl::StrJoin(names, ", "), ")"));
      }
    }
    if (parts.empty()) return "a number";
    return absl::StrJoin(parts, " or ");
  }

  std::map<std::string, NameKind, std::less<>> names_;
};

absl::Status CheckDim(const PlanChecker& checker, const Dim3Expr& dim, absl::string_view what,
                      absl::string_view kernel) {
  for (const Expr* e : {&dim.x, &dim.y, &dim.z}) {
    if (absl::Status st = checker.CheckValue(*e, absl::StrCat("the ", what, " of '", kernel, "'"));
        !st.ok()) {
      return st;
    }
  }
  return absl::OkStatus();
}

absl::Status CheckLaunch(const PlanChecker& checker, const Launch& launch) {
  const std::string& k = launch.kernel;
  for (size_t i = 0; i < launch.template_args.size(); ++i) {
    const TemplateArg& targ = launch.template_args[i];
    if (targ.is_type) continue;
    if (absl::Status st = checker.CheckValue(
            targ.value, absl::StrCat("template argument ", i + 1, " of '", k, "'"));
        !st.ok()) {
      return st;
    }
  }
  if (absl::Status st = CheckDim(checker, launch.grid, "grid size", k); !st.ok()) return st;
  if (absl::Status st = CheckDim(checker, launch.block, "block size", k); !st.ok()) return st;
  if (absl::Status st = checker.CheckValue(launch.shared_bytes,
                                           absl::StrCat("the shared memory size of '", k, "'"));
      !st.ok()) {
    return st;
  }
  if (launch.args.empty()) {
    return MakePosError(launch.pos, absl::StrCat("kernel '", k, "' is launched without arguments; "
                                                 "expected at least one (its output tensor)"));
  }
  for (size_t i = 0; i < launch.args.size(); ++i) {
    if (absl::Status st =
            checker.CheckArg(launch.args[i], absl::StrCat("argument ", i + 1, " of '", k, "'"));
        !st.ok()) {
      return st;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidatePlanAgainstSpec(const LaunchPlan& plan, const ProblemSpec& spec) {
  PlanChecker checker(spec);
  for (const ScratchDecl& decl : plan.scratch) {
    if (absl::Status st = checker.AddScratch(decl); !st.ok()) return st;
  }
  for (const ScratchDecl& decl : plan.scratch) {
    if (absl::Status st = checker.CheckValue(
            decl.count, absl::StrCat("the element count of scratch buffer '", decl.name, "'"));
        !st.ok()) {
      return st;
    }
  }
  for (const Launch& launch : plan.launches) {
    if (absl::Status st = CheckLaunch(checker, launch); !st.ok()) return st;
  }
  return absl::OkStatus();
}

}  // namespace kjudge
