// Html: the pieces every dashboard page is built from: escaping, the page frame (navigation,
// style, the live-update script), number and time formats, and CUDA syntax highlighting.
//
// Contract: pure functions, no I/O. Every string from the database or a request goes through
// Escape (or Highlight, which escapes) before it reaches a page, so a job's source, tags or
// compile log can never inject markup. Pages need nothing from outside the binary.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kjudge::dashboard {

std::string Escape(std::string_view text);
// Percent-encodes a query parameter value.
std::string UrlEncode(std::string_view text);
// A whole page: `title`, the navigation with `active` marked, who is signed in, `body` (HTML).
// `csrf` non-empty: the header has a sign-out button (a POST form carrying that token).
// `body_attributes` (trusted, e.g. data-poll="/api/overview") go on <body> for live updates.
std::string Page(const std::string& title, const std::string& active, const std::string& who, const std::string& csrf,
                 const std::string& body, const std::string& body_attributes = "");
// The Content-Security-Policy for every page: nothing but this origin, and inline only the
// page frame's own style and script, allowed by their SHA-256 hashes (no 'unsafe-inline').
std::string ContentSecurityPolicy();
// "2026-11-23 01:02:03" (UTC); "-" for 0.
std::string FormatTime(int64_t unix_ms);
// "3 s", "4 min", "2.5 h" between two instants; "-" when `from_ms` is 0.
std::string FormatAge(int64_t from_ms, int64_t now_ms);
// Microseconds with a unit that suits them: "12.3 us", "4.56 ms".
std::string FormatUs(double us);
// CUDA C++ as HTML: comments, strings, keywords, numbers and preprocessor lines in spans.
std::string Highlight(std::string_view source);

}  // namespace kjudge::dashboard
