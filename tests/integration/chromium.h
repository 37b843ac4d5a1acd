// Chromium: a real headless Chromium driven over the DevTools protocol on a pipe
// (--remote-debugging-pipe: commands on fd 3, replies and events on fd 4, each a JSON text
// ended by a NUL byte), for dashboard tests that must act as a person would: open the sign-in
// page, type a key, press the button, follow redirects, run the page's own script under its
// Content-Security-Policy, and report where the browser ended up.
//
// Contract: one browser process per object, with its own fresh profile (its own cookies);
// the destructor closes it and reaps it. Every call has a timeout; a call that fails records a
// gtest failure and returns an empty result, so a test cannot hang on a stuck browser.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace kjudge::testing {

class Chromium {
 public:
  // "" when no Chromium is installed.
  static std::string BinaryPath();
  // Starts `binary` with a fresh profile in `profile_dir`; stderr goes to `log_path`.
  Chromium(const std::string& binary, const std::string& profile_dir, const std::string& log_path);
  ~Chromium();
  Chromium(const Chromium&) = delete;
  Chromium& operator=(const Chromium&) = delete;

  bool ok() const { return !session_.empty(); }
  // Loads `url` and waits for its load event (after any redirects).
  bool Navigate(const std::string& url, std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // Runs `expression` in the page; its value (promises awaited). Null on error.
  nlohmann::json Evaluate(const std::string& expression, std::chrono::milliseconds timeout = std::chrono::seconds(20));
  // Runs `expression` (which navigates, e.g. a form submit) and waits for the next load event.
  bool EvaluateAndWaitForLoad(const std::string& expression, std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // Polls `condition` (a JS expression) until it is true.
  bool WaitFor(const std::string& condition, std::chrono::milliseconds timeout);
  std::string Url();
  std::string Dom();
  // A PNG of the page at 1280 px wide.
  bool Screenshot(const std::string& path);
  // Console and browser log entries of level "error" so far (CSP violations land here).
  std::vector<std::string> Errors();

 private:
  nlohmann::json Call(const std::string& method, const nlohmann::json& params, bool in_page,
                      std::chrono::milliseconds timeout);
  // Reads one message (false on timeout or EOF); events are recorded as they pass.
  bool ReadMessage(nlohmann::json* message, std::chrono::steady_clock::time_point deadline);
  void Record(const nlohmann::json& event);

  pid_t pid_ = -1;
  int to_browser_ = -1, from_browser_ = -1;
  std::string buffer_;
  int next_id_ = 0;
  std::string session_;
  int loads_ = 0;  // Page.loadEventFired seen
  std::vector<std::string> errors_;
};

}  // namespace kjudge::testing
