// libFuzzer target: the launch-plan parser (and evaluation of what it accepts) must never
// crash, hang or leak on any input: plans come straight from untrusted submissions.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/launch_plan.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<kjudge::LaunchPlan> plan = kjudge::ParseLaunchPlan(text, 1);
  if (!plan.ok()) return 0;
  const kjudge::Bindings bindings = {{"M", kjudge::Value::Int(3)}, {"N", kjudge::Value::Int(1 << 20)},
                                     {"alpha", kjudge::Value::Float(0.5)}};
  for (const kjudge::Launch& launch : plan->launches) {
    (void)launch.NameExpression(bindings);
    for (const kjudge::Expr* e : {&launch.grid.x, &launch.grid.y, &launch.grid.z, &launch.block.x, &launch.shared_bytes}) {
      if (!e->empty()) (void)e->Evaluate(bindings);
    }
    for (const kjudge::Expr& arg : launch.args) (void)arg.Evaluate(bindings);
  }
  for (const kjudge::ScratchDecl& scratch : plan->scratch) (void)scratch.count.EvaluateInt(bindings);
  return 0;
}
