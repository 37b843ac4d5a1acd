// LogCap: what of a compiler's text may reach a submitter. Bounds a compiler log so that no
// result carrying it can outgrow a message limit, and cleans it of what would tell a submitter
// about the host rather than about the source.
//
// Contract:
//  * CapLog() first cuts every line longer than kMaxLogLineBytes to its head plus
//    " ... [N bytes cut]"; then, when the log still has more than max_bytes bytes, keeps the head
//    (the first errors are the useful ones), cut back to the last line break within max_bytes
//    when there is one, and appends "\n[kjudge: N bytes of compiler log cut]". bytes_cut is the
//    exact number of original bytes dropped in all. The result never exceeds
//    max_bytes + kLogCapNoteBytes. A log within both caps is returned unchanged.
//  * CleanCompilerText() rewrites NVRTC's text so that it depends on the source alone:
//      - every `cannot open source file "X"` diagnostic ends right after the quoted name, so a
//        missing file, an unreadable one (": Permission denied", what the sandbox answers for
//        any host path) and a directory (": is a directory") read the same: no include can
//        probe whether a host path exists;
//      - every occurrence of an include root (`roots`: its real path -> its public name, e.g.
//        "<kjudge-include>") is replaced by its name, longest root first, so no absolute host
//        path (the bundle's std_headers, the CUDA install) appears in a message or log.
// Pure; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kjudge::compiler {

inline constexpr size_t kLogCapNoteBytes = 64;    // room for the appended note
inline constexpr size_t kMaxLogLineBytes = 2048;  // one diagnostic line (a 1 MB `#error` ...)
inline constexpr size_t kMaxMessageBytes = 2048;  // the one-line message of a compile error

struct CappedLog {
  std::string log;
  uint64_t bytes_cut = 0;
};

CappedLog CapLog(std::string log, size_t max_bytes);

// (real path of an include root, the name it is shown as)
using IncludeRoots = std::vector<std::pair<std::string, std::string>>;

std::string CleanCompilerText(std::string text, const IncludeRoots& roots);

// The roots a compile with these --include-path dirs shows by name: the first (kjudge's
// std_headers) "<kjudge-include>", the others "<kjudge-include-N>", and the CUDA include dir
// "<cuda-include>" (its cccl/ beneath it follows). Both as given and as real paths.
IncludeRoots PublicIncludeRoots(const std::vector<std::string>& include_dirs);

}  // namespace kjudge::compiler
