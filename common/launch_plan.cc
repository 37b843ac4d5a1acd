#include "common/launch_plan.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kjudge {

absl::StatusOr<std::string> Launch::NameExpression(const Bindings& bindings) const {
  if (template_args.empty()) return kernel;
  std::vector<std::string> parts;
  for (const TemplateArg& arg : template_args) {
    if (arg.is_type) {
      parts.push_back(arg.type_name);
      continue;
    }
    absl::StatusOr<int64_t> value = arg.value.EvaluateInt(bindings);
    if (!value.ok()) return value.status();
    parts.push_back(absl::StrCat(*value));
  }
  return absl::StrCat(kernel, "<", absl::StrJoin(parts, ", "), ">");
}

}  // namespace kjudge
