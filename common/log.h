// Logging for every kjudge process: spdlog, plus a formatter so absl::string_view (what
// absl::Status::message() returns; Debian's Abseil does not alias it to std::string_view)
// can be logged directly. Include this instead of spdlog/spdlog.h.
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "spdlog/sinks/stdout_color_sinks.h"
#include "spdlog/spdlog.h"

template <>
struct fmt::formatter<absl::string_view> : fmt::formatter<fmt::string_view> {
  template <typename Context>
  auto format(absl::string_view text, Context& ctx) const {
    return fmt::formatter<fmt::string_view>::format(fmt::string_view(text.data(), text.size()), ctx);
  }
};

namespace kjudge {

// Logs go to stderr (stdout is for results: JSON, keys, the runner protocol), at `level`.
inline void InitLogging(const std::string& name, const std::string& level) {
  auto logger = spdlog::stderr_color_mt(name);
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(level));
}

}  // namespace kjudge
