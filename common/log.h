// Logging for every kjudge process: spdlog, plus a formatter so absl::string_view (what
// absl::Status::message() returns; Debian's Abseil does not alias it to std::string_view)
// can be logged directly. Include this instead of spdlog/spdlog.h.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "absl/strings/string_view.h"
#include "spdlog/pattern_formatter.h"
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

// `%*` in a pattern: the message, escaped for a JSON string.
class JsonEscapedMessage : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override {
    for (const char c : std::string_view(msg.payload.data(), msg.payload.size())) {
      switch (c) {
        case '"': dest.append(std::string_view("\\\"")); break;
        case '\\': dest.append(std::string_view("\\\\")); break;
        case '\n': dest.append(std::string_view("\\n")); break;
        case '\t': dest.append(std::string_view("\\t")); break;
        default:
          if (static_cast<unsigned char>(c) < 0x20) {
            char hex[8];
            std::snprintf(hex, sizeof(hex), "\\u%04x", c);
            dest.append(std::string_view(hex));
          } else {
            dest.push_back(c);
          }
      }
    }
  }
  std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<JsonEscapedMessage>(); }
};

// Logs go to stderr (stdout is for results: JSON, keys, the runner protocol), at `level`.
// format "json" writes one JSON object per line (ts, level, process, msg) for log pipelines;
// anything else the usual text lines.
inline void InitLogging(const std::string& name, const std::string& level, const std::string& format = "text") {
  auto logger = spdlog::stderr_color_mt(name);
  if (format == "json") {
    auto formatter = std::make_unique<spdlog::pattern_formatter>();
    formatter->add_flag<JsonEscapedMessage>('*').set_pattern(
        R"({"ts":"%Y-%m-%dT%H:%M:%S.%e","level":"%l","process":"%n","pid":%P,"msg":"%*"})");
    logger->set_formatter(std::move(formatter));
  }
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(level));
}

}  // namespace kjudge
