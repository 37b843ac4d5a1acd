#include "worker/compiler/log_cap.h"

#include "worker/gpu/str_util.h"

namespace kjudge::compiler {

using runner::Cat;

CappedLog CapLog(std::string log, size_t max_bytes) {
  CappedLog out;
  if (log.size() <= max_bytes) {
    out.log = std::move(log);
    return out;
  }
  size_t keep = max_bytes;
  // End on a whole line so the last kept error is not cut mid-word, unless that would drop
  // most of the budget (one enormous line).
  const size_t newline = keep == 0 ? std::string::npos : log.rfind('\n', keep - 1);
  if (newline != std::string::npos && newline >= keep / 2) keep = newline;
  out.bytes_cut = log.size() - keep;
  log.resize(keep);
  out.log = Cat(log, "\n[kjudge: ", out.bytes_cut, " bytes of compiler log cut]");
  return out;
}

}  // namespace kjudge::compiler
