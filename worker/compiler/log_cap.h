// LogCap: bounds a compiler log so that no result carrying it can outgrow a message limit.
//
// Contract: CapLog() returns the log unchanged when it has at most max_bytes bytes; otherwise
// it keeps the head (the first errors are the useful ones), cut back to the last line break
// within max_bytes when there is one, and appends "\n[kjudge: N bytes of compiler log cut]",
// N being the exact number of original bytes dropped. The result never exceeds
// max_bytes + kLogCapNoteBytes. Pure; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace kjudge::compiler {

inline constexpr size_t kLogCapNoteBytes = 64;  // room for the appended note

struct CappedLog {
  std::string log;
  uint64_t bytes_cut = 0;
};

CappedLog CapLog(std::string log, size_t max_bytes);

}  // namespace kjudge::compiler
