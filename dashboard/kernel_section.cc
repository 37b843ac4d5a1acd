#include "dashboard/kernel_section.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "dashboard/html.h"

namespace kjudge::dashboard {
namespace {

constexpr size_t kMaxNameBytes = 300;  // proto/result_caps.h caps them so too

std::string Cell(int64_t value, const char* unit) {
  return absl::StrCat("<td class=\"n\">", value, unit, "</td>");
}

std::string NameCell(const v1::KernelResources& k) {
  std::string plan;
  for (const std::string& name : k.plan_names()) {
    absl::StrAppend(&plan, plan.empty() ? "" : ", ", Escape(name.substr(0, kMaxNameBytes)));
  }
  const std::string lowered = Escape(k.name().substr(0, kMaxNameBytes));
  if (plan.empty()) return absl::StrCat("<td><code>", lowered, "</code> (not in the plan)</td>");
  return absl::StrCat("<td>", plan, "<br><code>", lowered, "</code></td>");
}

}  // namespace

std::string KernelSection(const v1::JobResult& result) {
  if (result.kernels().empty()) return "";
  std::string rows;
  for (const v1::KernelResources& k : result.kernels()) {
    absl::StrAppend(&rows, "<tr class=\"kernel\" data-name=\"", Escape(k.name().substr(0, kMaxNameBytes)), "\">",
                    NameCell(k), Cell(k.registers(), ""), Cell(k.spill_store_bytes(), " B"),
                    Cell(k.spill_load_bytes(), " B"), Cell(k.local_bytes(), " B"),
                    Cell(k.static_shared_bytes(), " B"), Cell(k.dynamic_shared_bytes(), " B"),
                    Cell(k.max_threads_per_block(), ""), "</tr>");
  }
  const std::string cut =
      result.kernels_cut() > 0
          ? absl::StrFormat("<p id=\"kernels-cut\">%d more kernels were compiled and are not listed (a result lists "
                            "at most %d).</p>",
                            result.kernels_cut(), result.kernels_size())
          : "";
  return absl::StrCat(
      "<h2>Kernels</h2><p>As ptxas reported them when compiling (no GPU needed). Per thread: registers, spill "
      "stores and loads, local memory (stack frame). Per block: static <code>__shared__</code>, the dynamic "
      "shared memory the launch plan asks (the most at any shape), and the most threads the registers "
      "and its <code>__launch_bounds__</code> allow.</p><table id=\"kernels\"><tr><th>kernel</th>"
      "<th>registers</th><th>spill stores</th><th>spill loads</th><th>local</th><th>static smem</th>"
      "<th>dynamic smem</th><th>max threads/block</th></tr>",
      rows, "</table>", cut);
}

}  // namespace kjudge::dashboard
