#include "worker/judge/kernel_report.h"

#include <algorithm>
#include <vector>

namespace kjudge::runner {

std::map<std::string, int64_t> DynamicSharedBytes(const LaunchPlan& plan, const ProblemSpec& spec) {
  std::map<std::string, int64_t> most;
  for (const auto* shapes : {&spec.test_shapes, &spec.bench_shapes}) {
    for (const Shape& shape : *shapes) {
      const Bindings bindings = spec.BindingsFor(shape);
      for (const Launch& launch : plan.launches) {
        absl::StatusOr<std::string> name = launch.NameExpression(bindings);
        absl::StatusOr<int64_t> bytes = launch.shared_bytes.EvaluateInt(bindings);
        if (!name.ok() || !bytes.ok()) continue;
        int64_t& entry = most[*name];
        entry = std::max(entry, *bytes);
      }
    }
  }
  return most;
}

void ReportKernels(const CompiledProgram& program, const LaunchPlan& plan, const ProblemSpec& spec,
                   v1::JobResult* result) {
  const std::map<std::string, int64_t> dynamic = DynamicSharedBytes(plan, spec);
  std::map<std::string, std::vector<std::string>> plan_names;  // lowered -> name expressions
  for (const auto& [expression, lowered] : program.lowered_names) {
    plan_names[lowered].push_back(expression);
  }
  result->clear_kernels();
  for (const compiler::KernelResources& kernel : program.kernels) {
    v1::KernelResources* out = result->add_kernels();
    out->set_name(kernel.name);
    out->set_registers(kernel.registers);
    out->set_spill_store_bytes(kernel.spill_store_bytes);
    out->set_spill_load_bytes(kernel.spill_load_bytes);
    out->set_static_shared_bytes(kernel.static_shared_bytes);
    out->set_local_bytes(kernel.local_bytes);
    out->set_max_threads_per_block(kernel.max_threads_per_block);
    out->set_barriers(kernel.barriers);
    const auto names = plan_names.find(kernel.name);
    if (names == plan_names.end()) continue;
    int64_t shared = 0;
    for (const std::string& expression : names->second) {
      out->add_plan_names(expression);
      if (const auto it = dynamic.find(expression); it != dynamic.end()) shared = std::max(shared, it->second);
    }
    out->set_dynamic_shared_bytes(shared);
  }
  result->set_kernels_cut(program.kernels_cut);
}

}  // namespace kjudge::runner
