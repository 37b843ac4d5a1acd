// Result text caps: every text of a JobResult that reaches a client is bounded, so no
// submission can make a result (or a ListJobs page, or a log line) large by printing: a 1 MB
// `#error` line, a long device printf, a flood of mismatch records.
//
// Contract: CapText() keeps the head of a text (cut back to a UTF-8 character boundary, so a
// capped valid UTF-8 text stays valid) and appends " ... [N bytes cut]", N being the exact
// number of original bytes dropped; a text within the cap is returned unchanged. The result,
// note included, never exceeds max_bytes (for max_bytes > kCapNoteBytes), so capping is
// idempotent: the server capping what the judge capped changes nothing and keeps the judge's
// count. CapResultText() applies the caps below to every
// client-visible text of a JobResult in place: the judge calls it before a result leaves it, the
// server again before it stores a worker's result (a worker is not trusted to have done so).
// Pure; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "kjudge/v1/kjudge.pb.h"

namespace kjudge {

inline constexpr size_t kCapNoteBytes = 40;  // room for " ... [N bytes cut]" (N < 10^20)

struct ResultTextCaps {
  size_t message = 4 << 10;            // one line a person can act on
  size_t compile_log = (64 << 10) + 256;  // kjudge-compiler's own 64 KiB cap and its note
  size_t cuda_error = 1 << 10;
  size_t test_detail = 2 << 10;
  size_t test_shape = 256;
  size_t mismatch_tensor = 128;
  size_t mismatches_per_test = 32;     // first_mismatches entries kept per test
  size_t tests = 256;                  // test outcomes kept
  size_t candidate_output = 64 << 10;  // the judge's own kMaxCandidateOutput
  size_t flag = 512;
  size_t flags = 64;
  size_t kernels = 64;                 // JobResult.kernels kept (the rest counted in kernels_cut)
  size_t kernel_name = 300;            // a kernel's name and each of its plan_names
};

// text capped to max_bytes, the note included.
std::string CapText(std::string_view text, size_t max_bytes);
// In place; returns the number of bytes cut (0: unchanged).
uint64_t CapTextInPlace(std::string* text, size_t max_bytes);

// Caps message, compile_log, cuda_error, every test's detail, shape, mismatch tensor names and
// mismatch count kept, the number of tests and flags, and candidate_output (whose cut bytes are
// also added to candidate_output_cut). Returns the total number of bytes cut.
uint64_t CapResultText(v1::JobResult* result, const ResultTextCaps& caps = {});

}  // namespace kjudge
