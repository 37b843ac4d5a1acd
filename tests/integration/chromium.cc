#include "tests/integration/chromium.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <thread>

namespace kjudge::testing {
namespace {

using Clock = std::chrono::steady_clock;

std::string Base64Decode(const std::string& in) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  int bits = 0, acc = 0;
  for (char c : in) {
    const int v = value(c);
    if (v < 0) continue;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return out;
}

}  // namespace

std::string Chromium::BinaryPath() {
  // Debian's /usr/bin/chromium is a shell wrapper; the browser itself is under /usr/lib.
  for (const char* path : {"/usr/lib/chromium/chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"}) {
    if (access(path, X_OK) == 0) return path;
  }
  return "";
}

Chromium::Chromium(const std::string& binary, const std::string& profile_dir, const std::string& log_path) {
  int to[2], from[2];
  if (pipe2(to, O_CLOEXEC) != 0 || pipe2(from, O_CLOEXEC) != 0) {
    ADD_FAILURE() << "pipe failed";
    return;
  }
  pid_ = fork();
  if (pid_ == 0) {
    // The browser reads commands on fd 3 and writes on fd 4. The pipe ends are first moved
    // above 10: dup2 onto the same number would keep FD_CLOEXEC and close them on exec.
    const int in = fcntl(to[0], F_DUPFD_CLOEXEC, 10), out = fcntl(from[1], F_DUPFD_CLOEXEC, 10);
    dup2(in, 3);
    dup2(out, 4);
    const int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (log >= 0) {
      dup2(log, 1);
      dup2(log, 2);
    }
    const std::string profile = "--user-data-dir=" + profile_dir;
    execl(binary.c_str(), binary.c_str(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
          "--no-default-browser-check", "--disable-extensions", "--remote-debugging-pipe", profile.c_str(), "about:blank",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(to[0]);
  close(from[1]);
  to_browser_ = to[1];
  from_browser_ = from[0];
  const nlohmann::json targets = Call("Target.getTargets", nlohmann::json::object(), false, std::chrono::seconds(30));
  std::string target;
  for (const nlohmann::json& t : targets.value("targetInfos", nlohmann::json::array())) {
    if (t.value("type", "") == "page") target = t.value("targetId", "");
  }
  if (target.empty()) {
    target = Call("Target.createTarget", {{"url", "about:blank"}}, false, std::chrono::seconds(10)).value("targetId", "");
  }
  if (target.empty()) {
    ADD_FAILURE() << "Chromium gave no page target; see " << log_path;
    return;
  }
  session_ = Call("Target.attachToTarget", {{"targetId", target}, {"flatten", true}}, false, std::chrono::seconds(10))
                 .value("sessionId", "");
  for (const char* domain : {"Page.enable", "Runtime.enable", "Log.enable"}) {
    Call(domain, nlohmann::json::object(), true, std::chrono::seconds(10));
  }
  Call("Emulation.setDeviceMetricsOverride", {{"width", 1280}, {"height", 1600}, {"deviceScaleFactor", 1}, {"mobile", false}},
       true, std::chrono::seconds(10));
}

Chromium::~Chromium() {
  if (pid_ > 0) {
    if (to_browser_ >= 0) Call("Browser.close", nlohmann::json::object(), false, std::chrono::seconds(5));
    for (int i = 0; i < 50; ++i) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  if (to_browser_ >= 0) close(to_browser_);
  if (from_browser_ >= 0) close(from_browser_);
}

void Chromium::Record(const nlohmann::json& event) {
  const std::string method = event.value("method", "");
  if (method == "Page.loadEventFired") ++loads_;
  if (method == "Log.entryAdded") {
    const nlohmann::json& entry = event["params"]["entry"];
    if (entry.value("level", "") == "error") errors_.push_back(entry.value("text", ""));
  }
  if (method == "Runtime.exceptionThrown") errors_.push_back(event["params"]["exceptionDetails"].dump());
  if (method == "Runtime.consoleAPICalled" && event["params"].value("type", "") == "error") {
    errors_.push_back(event["params"]["args"].dump());
  }
}

bool Chromium::ReadMessage(nlohmann::json* message, Clock::time_point deadline) {
  while (true) {
    const size_t end = buffer_.find('\0');
    if (end != std::string::npos) {
      *message = nlohmann::json::parse(buffer_.substr(0, end), nullptr, false);
      buffer_.erase(0, end + 1);
      return true;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{from_browser_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
    char chunk[65536];
    const ssize_t n = read(from_browser_, chunk, sizeof(chunk));
    if (n <= 0) return false;
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

nlohmann::json Chromium::Call(const std::string& method, const nlohmann::json& params, bool in_page,
                              std::chrono::milliseconds timeout) {
  const int id = ++next_id_;
  nlohmann::json command = {{"id", id}, {"method", method}, {"params", params}};
  if (in_page) command["sessionId"] = session_;
  const std::string text = command.dump() + std::string(1, '\0');
  if (write(to_browser_, text.data(), text.size()) != static_cast<ssize_t>(text.size())) return nullptr;
  const Clock::time_point deadline = Clock::now() + timeout;
  nlohmann::json message;
  while (ReadMessage(&message, deadline)) {
    if (message.contains("id") && message["id"] == id) {
      if (message.contains("error")) return nlohmann::json{{"error", message["error"]}};
      return message.value("result", nlohmann::json::object());
    }
    if (message.contains("method")) Record(message);
  }
  ADD_FAILURE() << "Chromium did not answer " << method << " within " << timeout.count() << " ms";
  return nullptr;
}

bool Chromium::Navigate(const std::string& url, std::chrono::milliseconds timeout) {
  // Page.navigate, not location.href: a page may not send the browser to a file:// URL.
  const int before = loads_;
  Call("Page.navigate", {{"url", url}}, true, timeout);
  const Clock::time_point deadline = Clock::now() + timeout;
  nlohmann::json message;
  while (loads_ == before && ReadMessage(&message, deadline)) {
    if (message.contains("method")) Record(message);
  }
  if (loads_ == before) return false;
  return WaitFor("document.readyState === 'complete'", timeout);
}

nlohmann::json Chromium::Evaluate(const std::string& expression, std::chrono::milliseconds timeout) {
  nlohmann::json r = Call("Runtime.evaluate", {{"expression", expression}, {"returnByValue", true}, {"awaitPromise", true}},
                          true, timeout);
  if (!r.is_object() || r.contains("error") || r.contains("exceptionDetails")) return nullptr;
  return r["result"].value("value", nlohmann::json());
}

bool Chromium::EvaluateAndWaitForLoad(const std::string& expression, std::chrono::milliseconds timeout) {
  const int before = loads_;
  Call("Runtime.evaluate", {{"expression", expression}}, true, timeout);
  const Clock::time_point deadline = Clock::now() + timeout;
  nlohmann::json message;
  while (loads_ == before && ReadMessage(&message, deadline)) {
    if (message.contains("method")) Record(message);
  }
  if (loads_ == before) return false;
  return WaitFor("document.readyState === 'complete'", std::chrono::duration_cast<std::chrono::milliseconds>(timeout));
}

bool Chromium::WaitFor(const std::string& condition, std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    if (Evaluate(condition) == true) return true;
    // Let events through while waiting.
    nlohmann::json message;
    while (ReadMessage(&message, Clock::now() + std::chrono::milliseconds(100))) {
      if (message.contains("method")) Record(message);
    }
  }
  return false;
}

std::string Chromium::Url() {
  const nlohmann::json v = Evaluate("location.href");
  return v.is_string() ? v.get<std::string>() : "";
}

std::string Chromium::Dom() {
  const nlohmann::json v = Evaluate("document.documentElement.outerHTML");
  return v.is_string() ? v.get<std::string>() : "";
}

bool Chromium::Screenshot(const std::string& path) {
  const nlohmann::json shot = Call("Page.captureScreenshot", {{"format", "png"}, {"captureBeyondViewport", true}}, true,
                                   std::chrono::seconds(30));
  if (!shot.is_object() || !shot.contains("data")) return false;
  std::ofstream(path, std::ios::binary) << Base64Decode(shot["data"].get<std::string>());
  return true;
}

std::vector<std::string> Chromium::Errors() {
  nlohmann::json message;
  while (ReadMessage(&message, Clock::now())) {
    if (message.contains("method")) Record(message);
  }
  return errors_;
}

}  // namespace kjudge::testing
