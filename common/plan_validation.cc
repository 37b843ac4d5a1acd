// ValidatePlanAgainstSpec (declared in problem_spec.h): name resolution for a launch plan, then
// every size the plan computes, evaluated at every test and bench shape with checked
// arithmetic, so that nothing downstream (the runner's allocation and launch) ever sees a
// wrapped, negative or undefined size.
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "common/byte_size.h"
#include "common/lexer.h"
#include "common/problem_spec.h"
#include "common/status_macros.h"

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
  KJ_RETURN_IF_ERROR(CheckDim(checker, launch.grid, "grid size", k));
  KJ_RETURN_IF_ERROR(CheckDim(checker, launch.block, "block size", k));
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

// Appends the shape to a "<line>:<column>: ..." error, keeping the position in front.
absl::Status AtShape(const absl::Status& st, const Shape& shape) {
  return absl::Status(st.code(), absl::StrCat(st.message(), " (at ", shape.Label(), ")"));
}

absl::Status SizeError(const Expr& expr, absl::string_view what, absl::string_view problem,
                       const Shape& shape) {
  return AtShape(MakePosError(expr.pos(), absl::StrCat(what, " '", expr.ToString(), "': ",
                                                       problem)),
                 shape);
}

// An integer that must be >= 0 (negative values are rejected here, before the runner).
absl::StatusOr<int64_t> NonNegative(const Expr& expr, const Bindings& bindings,
                                    absl::string_view what, const Shape& shape) {
  absl::StatusOr<int64_t> v = expr.EvaluateInt(bindings);
  if (!v.ok()) return AtShape(v.status(), shape);
  if (*v < 0) {
    return SizeError(expr, what, absl::StrCat("negative size ", *v, "; expected >= 0"), shape);
  }
  return *v;
}

// A dim3: each component >= 0 (0 and values above the device's limits are the runner's
// LAUNCH_ERROR, which depends on the GPU) and the product x * y * z fits in int64.
absl::Status CheckDimSizes(const Dim3Expr& dim, const Bindings& bindings, absl::string_view what,
                           const Shape& shape) {
  int64_t product = 1;
  for (const Expr* e : {&dim.x, &dim.y, &dim.z}) {
    if (e->empty()) continue;
    absl::StatusOr<int64_t> v = NonNegative(*e, bindings, what, shape);
    if (!v.ok()) return v.status();
    if (__builtin_mul_overflow(product, *v, &product)) {
      return SizeError(*e, what,
                       "integer overflow: the product of the dimensions does not fit in 64 bits",
                       shape);
    }
  }
  return absl::OkStatus();
}

absl::Status CheckLaunchSizes(const Launch& launch, const Bindings& bindings, const Shape& shape) {
  const std::string& k = launch.kernel;
  for (const TemplateArg& targ : launch.template_args) {
    if (targ.is_type) continue;
    if (absl::StatusOr<int64_t> v = targ.value.EvaluateInt(bindings); !v.ok()) {
      return AtShape(v.status(), shape);
    }
  }
  if (absl::Status st = CheckDimSizes(launch.grid, bindings, absl::StrCat("grid size of '", k, "'"),
                                      shape);
      !st.ok()) {
    return st;
  }
  if (absl::Status st = CheckDimSizes(launch.block, bindings,
                                      absl::StrCat("block size of '", k, "'"), shape);
      !st.ok()) {
    return st;
  }
  if (!launch.shared_bytes.empty()) {
    absl::StatusOr<int64_t> shmem = NonNegative(
        launch.shared_bytes, bindings, absl::StrCat("shared memory size of '", k, "'"), shape);
    if (!shmem.ok()) return shmem.status();
  }
  for (const Expr& arg : launch.args) {
    if (arg.IsIdentifier()) continue;  // a pointer, or a size/scalar that always evaluates
    if (absl::StatusOr<Value> v = arg.Evaluate(bindings); !v.ok()) return AtShape(v.status(), shape);
  }
  return absl::OkStatus();
}

// Every size the plan computes at one shape: scratch byte sizes (count * dtype size, and their
// sum, under CheckedBufferBytes' bound), grid and block products, shared memory, and every
// other value (no overflow, no division by zero).
absl::Status CheckPlanSizes(const LaunchPlan& plan, const ProblemSpec& spec, const Shape& shape) {
  const Bindings bindings = spec.BindingsFor(shape);
  int64_t total = 0;
  for (const ScratchDecl& s : plan.scratch) {
    const std::string what = absl::StrCat("element count of scratch buffer '", s.name, "'");
    absl::StatusOr<int64_t> count = NonNegative(s.count, bindings, what, shape);
    if (!count.ok()) return count.status();
    absl::StatusOr<int64_t> bytes = CheckedBufferBytes(*count, s.dtype);
    if (!bytes.ok()) return SizeError(s.count, what, bytes.status().message(), shape);
    absl::StatusOr<int64_t> sum = CheckedAddBytes(total, *bytes);
    if (!sum.ok()) {
      return SizeError(s.count, what,
                       absl::StrCat("the plan's scratch buffers together: ", sum.status().message()),
                       shape);
    }
    total = *sum;
  }
  for (const Launch& launch : plan.launches) {
    KJ_RETURN_IF_ERROR(CheckLaunchSizes(launch, bindings, shape));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidatePlanSizes(const LaunchPlan& plan, const ProblemSpec& spec) {
  for (const auto* shapes : {&spec.test_shapes, &spec.bench_shapes}) {
    for (const Shape& shape : *shapes) {
      KJ_RETURN_IF_ERROR(CheckPlanSizes(plan, spec, shape));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidatePlanAgainstSpec(const LaunchPlan& plan, const ProblemSpec& spec) {
  PlanChecker checker(spec);
  for (const ScratchDecl& decl : plan.scratch) {
    KJ_RETURN_IF_ERROR(checker.AddScratch(decl));
  }
  for (const ScratchDecl& decl : plan.scratch) {
    if (absl::Status st = checker.CheckValue(
            decl.count, absl::StrCat("the element count of scratch buffer '", decl.name, "'"));
        !st.ok()) {
      return st;
    }
  }
  for (const Launch& launch : plan.launches) {
    KJ_RETURN_IF_ERROR(CheckLaunch(checker, launch));
  }
  return ValidatePlanSizes(plan, spec);
}

}  // namespace kjudge
