#include "dashboard/html.h"

#include <array>
#include <cctype>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "dashboard/web_security.h"

namespace kjudge::dashboard {
namespace {

// One style sheet and one script, embedded: pages work offline on a GPU host.
constexpr char kStyle[] = R"css(
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1d2330;color:#fff;padding:8px 16px;display:flex;gap:18px;align-items:center}
header a{color:#c9d3e6;text-decoration:none}header a.on{color:#fff;font-weight:600}
header .who{margin-left:auto;color:#9aa6bd}main{padding:12px 16px}
h1{font-size:20px;margin:4px 0 12px}h2{font-size:16px;margin:18px 0 8px}
table{border-collapse:collapse;background:#fff;margin-bottom:8px}
td,th{border:1px solid #dde1e8;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#eef1f5}td.n{text-align:right;font-variant-numeric:tabular-nums}
.cards{display:flex;gap:12px;flex-wrap:wrap}.card{background:#fff;border:1px solid #dde1e8;padding:8px 14px;min-width:120px}
.card b{display:block;font-size:22px}pre{background:#fff;border:1px solid #dde1e8;padding:8px;overflow:auto;max-height:520px}
pre.prose{white-space:pre-wrap;overflow-wrap:anywhere}
.v-CORRECT,.v-COMPILED{color:#1a7f37}.v-BASELINES_MEASURED{color:#0969da}.v-WRONG_ANSWER,.v-COMPILE_ERROR,.v-RUNTIME_ERROR,.v-LAUNCH_ERROR,
.v-INTERNAL_ERROR,.v-TIMEOUT,.v-SUSPICIOUS,.v-UNWRITTEN_OUTPUT,.v-INPUT_MODIFIED,.v-REJECTED{color:#b42318}
.c{color:#6a737d}.s{color:#0a6b2e}.k{color:#8a2be2;font-weight:600}.m{color:#b35900}.p{color:#005cc5}
form.f input,form.f select{margin-right:8px}form.so{display:inline;margin:0 0 0 8px}.err{color:#b42318;font-weight:600}svg{background:#fff;border:1px solid #dde1e8}
)css";

// Live updates: elements with data-live="NAME" take the value of NAME from the JSON at the
// page's data-poll URL every 2 s; data-reload-when="FIELD=VALUE" reloads the page then.
constexpr char kScript[] = R"js(
(function(){var b=document.body,u=b.getAttribute('data-poll');if(!u)return;
function tick(){fetch(u,{credentials:'same-origin'}).then(function(r){return r.json()}).then(function(d){
document.querySelectorAll('[data-live]').forEach(function(e){var k=e.getAttribute('data-live');if(k in d)e.textContent=d[k]});
var w=b.getAttribute('data-reload-when');if(w){var kv=w.split('=');if(String(d[kv[0]])===kv[1])location.reload()}
}).catch(function(){})}setInterval(tick,2000)})();
)js";

constexpr std::array<const char*, 5> kNav = {"Overview", "Jobs", "Problems", "Runs", ""};
constexpr std::array<const char*, 5> kNavPath = {"/", "/jobs", "/problems", "/runs", ""};

bool IsKeyword(std::string_view word) {
  static constexpr std::array<std::string_view, 34> kWords = {
      "__global__", "__device__", "__shared__", "__restrict__", "__syncthreads", "__forceinline__", "const",
      "extern", "float", "double", "int", "long", "unsigned", "void", "return", "if", "else", "for", "while",
      "template", "typename", "struct", "auto", "bool", "char", "half", "__half", "__nv_bfloat16", "static",
      "constexpr", "inline", "size_t", "break", "continue"};
  for (std::string_view w : kWords) {
    if (w == word) return true;
  }
  return false;
}

// Length of the token of class `cls` starting at source[i].
size_t TokenEnd(std::string_view s, size_t i, char* cls) {
  *cls = 0;
  if (s.substr(i, 2) == "//") {
    *cls = 'c';
    return std::min(s.size(), s.find('\n', i) == std::string_view::npos ? s.size() : s.find('\n', i));
  }
  if (s.substr(i, 2) == "/*") {
    *cls = 'c';
    size_t end = s.find("*/", i + 2);
    return end == std::string_view::npos ? s.size() : end + 2;
  }
  if (s[i] == '"' || s[i] == '\'') {
    *cls = 's';
    size_t j = i + 1;
    while (j < s.size() && s[j] != s[i] && s[j] != '\n') j += s[j] == '\\' ? 2 : 1;
    return std::min(s.size(), j + 1);
  }
  if (s[i] == '#' && (i == 0 || s[i - 1] == '\n')) {
    *cls = 'p';
    size_t end = s.find('\n', i);
    return end == std::string_view::npos ? s.size() : end;
  }
  size_t j = i;
  if (std::isdigit(static_cast<unsigned char>(s[i]))) {
    *cls = 'm';
    while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '.')) ++j;
    return j;
  }
  if (std::isalpha(static_cast<unsigned char>(s[i])) || s[i] == '_') {
    while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
    if (IsKeyword(s.substr(i, j - i))) *cls = 'k';
    return j;
  }
  return i + 1;
}

}  // namespace

std::string Escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string UrlEncode(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '/') {
      out += static_cast<char>(c);
    } else {
      absl::StrAppendFormat(&out, "%%%02X", c);
    }
  }
  return out;
}

std::string ContentSecurityPolicy() {
  static const std::string policy = absl::StrCat(
      "default-src 'self'; script-src 'sha256-", Sha256Base64(kScript), "'; style-src 'sha256-", Sha256Base64(kStyle),
      "'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; "
      "object-src 'none'");
  return policy;
}

std::string Page(const std::string& title, const std::string& active, const std::string& who, const std::string& csrf,
                 const std::string& body, const std::string& body_attributes) {
  std::string nav;
  for (size_t i = 0; i < kNav.size() && *kNav[i] != '\0'; ++i) {
    absl::StrAppend(&nav, "<a href=\"", kNavPath[i], "\"", active == kNav[i] ? " class=\"on\"" : "", ">", kNav[i],
                    "</a>");
  }
  return absl::StrCat("<!doctype html><html><head><meta charset=\"utf-8\"><title>", Escape(title),
                      " - kjudge</title><style>", kStyle, "</style></head><body ", body_attributes,
                      "><header><b>kjudge</b>", nav, "<span class=\"who\">", Escape(who),
                      csrf.empty() ? ""
                                   : absl::StrCat("<form class=\"so\" method=\"post\" action=\"/logout\"><input type=\"hidden\" "
                                                  "name=\"csrf\" value=\"", Escape(csrf), "\"><button>sign out</button></form>"), "</span></header><main><h1>", Escape(title), "</h1>", body, "</main><script>", kScript,
                      "</script></body></html>");
}

std::string FormatTime(int64_t unix_ms) {
  if (unix_ms == 0) return "-";
  return absl::FormatTime("%Y-%m-%d %H:%M:%S", absl::FromUnixMillis(unix_ms), absl::UTCTimeZone());
}

std::string FormatAge(int64_t from_ms, int64_t now_ms) {
  if (from_ms == 0) return "-";
  const double s = static_cast<double>(std::max<int64_t>(0, now_ms - from_ms)) / 1000.0;
  if (s < 120) return absl::StrFormat("%.0f s", s);
  if (s < 7200) return absl::StrFormat("%.0f min", s / 60);
  return absl::StrFormat("%.1f h", s / 3600);
}

std::string FormatUs(double us) {
  if (!(us > 0)) return "-";
  if (us < 1000) return absl::StrFormat("%.2f us", us);
  return absl::StrFormat("%.3f ms", us / 1000);
}

std::string Highlight(std::string_view source) {
  std::string out;
  size_t i = 0;
  while (i < source.size()) {
    char cls = 0;
    const size_t end = TokenEnd(source, i, &cls);
    const std::string text = Escape(source.substr(i, end - i));
    if (cls != 0) {
      absl::StrAppend(&out, "<span class=\"", std::string(1, cls), "\">", text, "</span>");
    } else {
      out += text;
    }
    i = end;
  }
  return out;
}

}  // namespace kjudge::dashboard
