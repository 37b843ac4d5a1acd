#include "worker/compiler/log_cap.h"

#include <algorithm>
#include <filesystem>
#include <string_view>

#include "worker/gpu/nvrtc_compiler.h"
#include "worker/gpu/str_util.h"

namespace kjudge::compiler {

using runner::Cat;

namespace {

constexpr std::string_view kCannotOpen = "cannot open source file \"";

// Each line of `log` longer than max_line cut to its head; adds what it dropped to *cut.
std::string CapLines(const std::string& log, size_t max_line, uint64_t* cut) {
  std::string out;
  out.reserve(std::min(log.size(), size_t{1} << 20));
  size_t start = 0;
  while (start < log.size()) {
    size_t end = log.find('\n', start);
    const bool last = end == std::string::npos;
    if (last) end = log.size();
    const size_t length = end - start;
    if (length > max_line) {
      out.append(log, start, max_line);
      *cut += length - max_line;
      out += Cat(" ... [", length - max_line, " bytes cut]");
    } else {
      out.append(log, start, length);
    }
    if (!last) out += '\n';
    start = end + 1;
  }
  return out;
}

void ReplaceAll(std::string* text, std::string_view from, std::string_view to) {
  if (from.empty()) return;
  for (size_t at = text->find(from); at != std::string::npos; at = text->find(from, at + to.size())) {
    text->replace(at, from.size(), to);
  }
}

}  // namespace

CappedLog CapLog(std::string log, size_t max_bytes) {
  CappedLog out;
  if (log.size() > kMaxLogLineBytes) log = CapLines(log, kMaxLogLineBytes, &out.bytes_cut);
  if (log.size() <= max_bytes) {
    out.log = std::move(log);
    return out;
  }
  size_t keep = max_bytes;
  // End on a whole line so the last kept error is not cut mid-word, unless that would drop
  // most of the budget (one enormous line).
  const size_t newline = keep == 0 ? std::string::npos : log.rfind('\n', keep - 1);
  if (newline != std::string::npos && newline >= keep / 2) keep = newline;
  out.bytes_cut += log.size() - keep;
  log.resize(keep);
  out.log = Cat(log, "\n[kjudge: ", out.bytes_cut, " bytes of compiler log cut]");
  return out;
}

std::string CleanCompilerText(std::string text, const IncludeRoots& roots) {
  // "cannot open source file "X": Permission denied" -> "cannot open source file "X"": the name
  // runs to the last quote of its line (a name may itself hold a quote; errno text never does).
  for (size_t at = text.find(kCannotOpen); at != std::string::npos; at = text.find(kCannotOpen, at + 1)) {
    const size_t name = at + kCannotOpen.size();
    size_t eol = text.find('\n', name);
    if (eol == std::string::npos) eol = text.size();
    const size_t quote = text.rfind('"', eol - 1);
    if (quote == std::string::npos || quote < name) continue;
    text.erase(quote + 1, eol - quote - 1);
  }
  IncludeRoots sorted = roots;
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  for (const auto& [path, name] : sorted) {
    if (path.size() > 1) ReplaceAll(&text, path, name);  // never "/" alone
  }
  return text;
}

IncludeRoots PublicIncludeRoots(const std::vector<std::string>& include_dirs) {
  IncludeRoots roots;
  const auto add = [&roots](const std::string& dir, const std::string& name) {
    std::string given = dir;
    while (given.size() > 1 && given.back() == '/') given.pop_back();
    roots.emplace_back(given, name);
    std::error_code ec;
    const std::string real = std::filesystem::canonical(given, ec).string();
    if (!ec && real != given) roots.emplace_back(real, name);
  };
  for (size_t i = 0; i < include_dirs.size(); ++i) {
    add(include_dirs[i], i == 0 ? "<kjudge-include>" : Cat("<kjudge-include-", i, ">"));
  }
  add(runner::CudaIncludeDir(), "<cuda-include>");
  return roots;
}

}  // namespace kjudge::compiler
