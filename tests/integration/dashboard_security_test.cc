// The dashboard's web security (issue 25), each point against the real kjudge-dashboard binary
// on a real SQLite file (keys made by kjudge-server, jobs submitted over real gRPC where a test
// needs them), spoken to over loopback as raw HTTP (so a test can send what a hostile client
// would: a forged Host, a foreign Origin, a trickled header) and, where what matters is what a
// browser does, in real headless Chromium (tests/integration/chromium.h).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sqlite3.h>
#include <sys/socket.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "tests/integration/api_client.h"
#include "tests/integration/chromium.h"
#include "tests/support/binary_path.h"

namespace kjudge::testing {
namespace {

using Clock = std::chrono::steady_clock;

struct HttpResponse {
  int status = 0;
  std::multimap<std::string, std::string> headers;  // names lowercase
  std::string body;
  std::string Header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
  std::vector<std::string> All(const std::string& name) const {
    std::vector<std::string> out;
    for (auto [it, end] = headers.equal_range(name); it != end; ++it) out.push_back(it->second);
    return out;
  }
};

int Connect(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return -1;
  }
  timeval tv{10, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  return fd;
}

// One request, Connection: close; `headers` are whole lines ("Cookie: a=b"). The Host header is
// 127.0.0.1:port unless `headers` has one.
HttpResponse Http(int port, const std::string& method, const std::string& target, const std::vector<std::string>& headers = {},
                  const std::string& body = "") {
  HttpResponse r;
  const int fd = Connect(port);
  if (fd < 0) return r;
  std::string request = method + " " + target + " HTTP/1.1\r\n";
  bool has_host = false;
  for (const std::string& h : headers) {
    has_host = has_host || absl::StartsWithIgnoreCase(h, "host:");
    request += h + "\r\n";
  }
  if (!has_host) request += "Host: 127.0.0.1:" + std::to_string(port) + "\r\n";
  if (method == "POST") {
    request += "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  }
  request += "Connection: close\r\n\r\n" + body;
  send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string raw;
  char chunk[8192];
  ssize_t n = 0;
  while ((n = recv(fd, chunk, sizeof(chunk), 0)) > 0) raw.append(chunk, static_cast<size_t>(n));
  close(fd);
  const size_t split = raw.find("\r\n\r\n");
  if (split == std::string::npos) return r;
  r.body = raw.substr(split + 4);
  std::vector<std::string> lines = absl::StrSplit(raw.substr(0, split), "\r\n");
  if (lines.empty() || lines[0].size() < 12) return r;
  r.status = std::stoi(lines[0].substr(9, 3));
  for (size_t i = 1; i < lines.size(); ++i) {
    const size_t colon = lines[i].find(':');
    if (colon == std::string::npos) continue;
    r.headers.emplace(absl::AsciiStrToLower(lines[i].substr(0, colon)),
                      std::string(absl::StripAsciiWhitespace(lines[i].substr(colon + 1))));
  }
  return r;
}

std::string FormEncode(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char hex[4];
      std::snprintf(hex, sizeof(hex), "%%%02X", c);
      out += hex;
    }
  }
  return out;
}

// The value of cookie `name` set by `r` ("" if none).
std::string SetCookieValue(const HttpResponse& r, const std::string& name) {
  for (const std::string& c : r.All("set-cookie")) {
    if (absl::StartsWith(c, name + "=")) return c.substr(name.size() + 1, c.find(';') - name.size() - 1);
  }
  return "";
}

std::string SetCookieLine(const HttpResponse& r, const std::string& name) {
  for (const std::string& c : r.All("set-cookie")) {
    if (absl::StartsWith(c, name + "=")) return c;
  }
  return "";
}

std::string HiddenField(const std::string& html, const std::string& name) {
  const std::string marker = "name=\"" + name + "\" value=\"";
  const size_t at = html.find(marker);
  if (at == std::string::npos) return "";
  const size_t start = at + marker.size();
  return html.substr(start, html.find('"', start) - start);
}

class DashboardSecurity : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<Cluster>("dashboard-security");
    alice_key_ = cluster_->CreateKey("submitter");
    admin_key_ = cluster_->CreateKey("admin");
    db_ = cluster_->dir() + "/kjudge.sqlite";
  }
  void TearDown() override {
    if (dashboard_) dashboard_->Signal(SIGKILL);
  }

  void StartDashboard(const std::vector<std::string>& extra = {}) {
    port_ = FreeLoopbackPort();
    std::vector<std::string> argv = {ResolveBinary("kjudge-dashboard", "KJUDGE_DASHBOARD_BIN", KJUDGE_DASHBOARD_BIN),
                                     "--db", db_, "--problems", SourcePath("problems"), "--listen",
                                     "127.0.0.1:" + std::to_string(port_), "--require-auth"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    log_ = "dashboard-" + std::to_string(++starts_) + ".log";
    dashboard_ = std::make_unique<Subprocess>(argv, cluster_->dir() + "/" + log_);
    ASSERT_TRUE(cluster_->WaitForLog(log_, "kjudge-dashboard: http://", 30)) << ReadFileOrEmpty(cluster_->dir() + "/" + log_);
  }

  std::string Origin() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // Signs in as the form does: GET /login (pre-session cookie and its token), then the POST.
  HttpResponse SignIn(const std::string& key, const std::string& next = "/") {
    const HttpResponse form = Http(port_, "GET", "/login");
    const std::string token = SetCookieValue(form, "kjudge_login");
    EXPECT_FALSE(token.empty());
    EXPECT_EQ(HiddenField(form.body, "csrf"), token);
    return Http(port_, "POST", "/login", {"Cookie: kjudge_login=" + token, "Origin: " + Origin(), "Sec-Fetch-Site: same-origin"},
                "key=" + FormEncode(key) + "&next=" + FormEncode(next) + "&csrf=" + FormEncode(token));
  }
  std::string SessionOf(const std::string& key) { return SetCookieValue(SignIn(key), "kjudge_session"); }

  std::unique_ptr<Chromium> Browser() {
    const std::string binary = Chromium::BinaryPath();
    if (binary.empty()) return nullptr;
    ++browsers_;
    return std::make_unique<Chromium>(binary, cluster_->dir() + "/chrome-" + std::to_string(browsers_),
                                      cluster_->dir() + "/chrome.log");
  }

  // Signs `browser` in through the real form on the sign-in page for `next`.
  void BrowserSignIn(Chromium& browser, const std::string& key, const std::string& next) {
    ASSERT_TRUE(browser.Navigate(Origin() + "/login?next=" + FormEncode(next)));
    ASSERT_TRUE(browser.EvaluateAndWaitForLoad(
        "(function(){var f=document.querySelector('form[action=\"/login\"]');f.querySelector('[name=key]').value=" +
        nlohmann::json(key).dump() + ";f.submit()})()"));
  }

  std::string db_, alice_key_, admin_key_;
  std::unique_ptr<Cluster> cluster_;
  std::unique_ptr<Subprocess> dashboard_;
  int port_ = 0, browsers_ = 0, starts_ = 0;
  std::string log_;
};

// 1. /jobs?tag= keys and values pass the gRPC tag rules before any query; a bad key is a 400
// that says what is allowed, never SQL.
TEST_F(DashboardSecurity, TagFilterIsCheckedBeforeAnyQuery) {
  StartDashboard();
  const std::string auth = "Authorization: Bearer " + alice_key_;
  for (const char* tag : {"a')%20OR%201=1--=x", "x\"')||1--=y", "model%0A=x", "%E2%80%AE=x", ""}) {
    if (*tag == '\0') continue;
    const HttpResponse r = Http(port_, "GET", std::string("/jobs?tag=") + tag, {auth});
    EXPECT_EQ(r.status, 400) << tag << r.body;
    EXPECT_NE(r.body.find("tag key"), std::string::npos) << r.body;
    EXPECT_NE(r.body.find("A-Z a-z 0-9 _ . : -"), std::string::npos) << r.body;
    for (const char* sql : {"json_extract", "SELECT", "SQLITE", "syntax error"}) {
      EXPECT_EQ(r.body.find(sql), std::string::npos) << sql << " in " << r.body;
    }
  }
  // A value with a control character is refused too; a well-formed filter is served.
  EXPECT_EQ(Http(port_, "GET", "/jobs?tag=model=a%01b", {auth}).status, 400);
  EXPECT_EQ(Http(port_, "GET", "/jobs?tag=model=m-a", {auth}).status, 200);
  EXPECT_EQ(Http(port_, "GET", "/runs?a=x')--=1", {auth}).status, 400);
}

// 2. Sign-in trades the key for a random session token; the cookie never holds the key; the
// key in the URL is refused; a revoked key or an expired session ends at once; Bearer works.
TEST_F(DashboardSecurity, SignInGivesASessionTokenNeverTheKey) {
  StartDashboard({"--session-hours", "0.0008"});  // about 3 s
  const HttpResponse signed_in = SignIn(alice_key_, "/jobs");
  ASSERT_EQ(signed_in.status, 303) << signed_in.body;
  EXPECT_EQ(signed_in.Header("location"), "/jobs");
  const std::string cookie = SetCookieLine(signed_in, "kjudge_session");
  const std::string token = SetCookieValue(signed_in, "kjudge_session");
  EXPECT_EQ(token.size(), 64U) << cookie;  // 256 bits, hex
  const std::string key_id = alice_key_.substr(0, alice_key_.find('_', 3));
  for (const std::string& c : signed_in.All("set-cookie")) {
    EXPECT_EQ(c.find(alice_key_), std::string::npos) << c;
    EXPECT_EQ(c.find(alice_key_.substr(key_id.size() + 1)), std::string::npos) << "the key's secret part in " << c;
  }
  for (const char* attribute : {"; HttpOnly", "; SameSite=Strict", "; Path=/", "; Max-Age=2"}) {
    EXPECT_NE(cookie.find(attribute), std::string::npos) << attribute << " missing in " << cookie;
  }
  EXPECT_EQ(cookie.find("Secure"), std::string::npos) << "plain HTTP: no Secure";
  const std::string with_session = "Cookie: kjudge_session=" + token;
  EXPECT_EQ(Http(port_, "GET", "/jobs", {with_session}).status, 200);
  // The old cookie, holding the raw key, is not a way in.
  EXPECT_EQ(Http(port_, "GET", "/jobs", {"Cookie: kjudge_key=" + alice_key_}).status, 303);
  // The key in the URL: refused, no session.
  const HttpResponse in_url = Http(port_, "POST", "/login?key=" + alice_key_, {}, "");
  EXPECT_EQ(in_url.status, 400) << in_url.body;
  EXPECT_TRUE(SetCookieValue(in_url, "kjudge_session").empty());
  // Scripts keep using the key directly.
  EXPECT_EQ(Http(port_, "GET", "/api/overview", {"Authorization: Bearer " + alice_key_}).status, 200);
  // Expiry: the session ends after its lifetime.
  std::this_thread::sleep_for(std::chrono::milliseconds(3200));
  const HttpResponse expired = Http(port_, "GET", "/jobs", {with_session});
  EXPECT_EQ(expired.status, 303);
  EXPECT_NE(expired.Header("location").find("/login"), std::string::npos);
  // Revocation: a live session of a key revoked in the database stops on the next request.
  const std::string fresh = "Cookie: kjudge_session=" + SessionOf(admin_key_);
  EXPECT_EQ(Http(port_, "GET", "/", {fresh}).status, 200);
  const std::string admin_id = admin_key_.substr(0, admin_key_.find('_', 3));
  CommandResult revoked = kjudge::testing::Run({ResolveBinary("kjudge-server", "KJUDGE_SERVER_BIN", KJUDGE_SERVER_BIN), "--db", db_, "keys",
                               "revoke", admin_id},
                              std::chrono::seconds(30));
  ASSERT_EQ(revoked.exit_code, 0) << revoked.err;
  EXPECT_EQ(Http(port_, "GET", "/", {fresh}).status, 303);
  EXPECT_EQ(Http(port_, "GET", "/api/overview", {fresh}).status, 401);
}

// 3. Login CSRF: a sign-in without the form's own token, or from another origin, is refused;
// in Chromium a foreign page that posts a key of its choosing does not sign the browser in.
TEST_F(DashboardSecurity, LoginCsrfFails) {
  StartDashboard();
  const std::string body = "key=" + FormEncode(alice_key_) + "&next=%2F";
  const HttpResponse bare = Http(port_, "POST", "/login", {}, body);
  EXPECT_EQ(bare.status, 403) << bare.body;
  EXPECT_TRUE(SetCookieValue(bare, "kjudge_session").empty());
  const HttpResponse form = Http(port_, "GET", "/login");
  const std::string token = SetCookieValue(form, "kjudge_login");
  // The form's token without the browser's cookie, a forged token, and a foreign Origin.
  EXPECT_EQ(Http(port_, "POST", "/login", {}, body + "&csrf=" + token).status, 403);
  EXPECT_EQ(Http(port_, "POST", "/login", {"Cookie: kjudge_login=" + token}, body + "&csrf=x" + token).status, 403);
  const std::string forged = std::string(32, 'a') + "." + std::string(64, 'b');
  EXPECT_EQ(Http(port_, "POST", "/login", {"Cookie: kjudge_login=" + forged}, body + "&csrf=" + forged).status, 403);
  EXPECT_EQ(Http(port_, "POST", "/login", {"Cookie: kjudge_login=" + token, "Origin: http://evil.example"},
                 body + "&csrf=" + token).status,
            403);
  EXPECT_EQ(Http(port_, "POST", "/login", {"Cookie: kjudge_login=" + token, "Sec-Fetch-Site: cross-site"},
                 body + "&csrf=" + token).status,
            403);
  EXPECT_EQ(Http(port_, "POST", "/login", {"Cookie: kjudge_login=" + token}, body + "&csrf=" + token).status, 303);

  // In a browser: the attacker's page (another origin: a file) posts its key to the dashboard.
  std::unique_ptr<Chromium> browser = Browser();
  if (!browser) GTEST_SKIP() << "SKIPPED (browser part): Chromium not installed";
  ASSERT_TRUE(browser->ok());
  // The victim has opened the sign-in page before (so a pre-session cookie exists in the browser).
  ASSERT_TRUE(browser->Navigate(Origin() + "/login"));
  const std::string attacker = cluster_->dir() + "/attacker.html";
  std::ofstream(attacker) << "<html><body><form method=\"post\" action=\"" << Origin()
                          << "/login\"><input name=\"key\" value=\"" << alice_key_
                          << "\"><input name=\"next\" value=\"/jobs\"><input name=\"csrf\" value=\"guess\"></form>"
                             "<script>document.forms[0].submit()</script></body></html>";
  browser->Navigate("file://" + attacker, std::chrono::seconds(5));
  // The dashboard answers the foreign post with its 403 page.
  EXPECT_TRUE(browser->WaitFor("location.href.indexOf('" + Origin() + "/login') === 0 && document.readyState === "
                               "'complete' && document.body.innerText.indexOf('another site') >= 0",
                               std::chrono::seconds(15)))
      << browser->Url() << browser->Dom();
  ASSERT_TRUE(browser->Navigate(Origin() + "/jobs"));
  EXPECT_NE(browser->Url().find("/login"), std::string::npos) << "the browser was signed in by a foreign page: "
                                                              << browser->Url();
  EXPECT_EQ(browser->Dom().find("test-submitter"), std::string::npos);
}

// 4. next= is only ever a path on this origin.
TEST_F(DashboardSecurity, NextIsOnlyASameOriginPath) {
  StartDashboard();
  const std::vector<std::string> bypasses = {"/\\127.0.0.2:1/", "/\t/127.0.0.2:1/", "//127.0.0.2:1/", "https://127.0.0.2:1/",
                                             "/%2F%2F127.0.0.2:1/", "/%5C127.0.0.2:1/", "\\\\127.0.0.2:1/", "/\r\n/x",
                                             " //127.0.0.2:1/", "http:/127.0.0.2:1/", "/\\/127.0.0.2:1/", "/\x7f/x"};
  for (const std::string& next : bypasses) {
    const HttpResponse r = SignIn(alice_key_, next);
    EXPECT_EQ(r.status, 303);
    EXPECT_EQ(r.Header("location"), "/") << "next=" << nlohmann::json(next).dump();
  }
  EXPECT_EQ(SignIn(alice_key_, "/jobs?verdict=CORRECT").Header("location"), "/jobs?verdict=CORRECT");
  // The sign-in page never echoes a bad next into its form either.
  EXPECT_EQ(HiddenField(Http(port_, "GET", "/login?next=%2F%5Cevil").body, "next"), "/");

  std::unique_ptr<Chromium> browser = Browser();
  if (!browser) GTEST_SKIP() << "SKIPPED (browser part): Chromium not installed";
  for (const std::string& next : {std::string("/\\127.0.0.2:1/"), std::string("/\t/127.0.0.2:1/"), std::string("//127.0.0.2:1/")}) {
    std::unique_ptr<Chromium> b = Browser();
    ASSERT_TRUE(b->ok());
    BrowserSignIn(*b, alice_key_, next);
    EXPECT_EQ(b->Url(), Origin() + "/") << "next=" << nlohmann::json(next).dump() << " left the origin: " << b->Dom();
  }
}

// 5. Sign-out is a POST with the session's CSRF token, and ends the session in the dashboard.
TEST_F(DashboardSecurity, SignOutIsAPostThatEndsTheSession) {
  StartDashboard();
  const std::string token = SessionOf(alice_key_);
  const std::string cookie = "Cookie: kjudge_session=" + token;
  const HttpResponse page = Http(port_, "GET", "/", {cookie});
  ASSERT_EQ(page.status, 200);
  const std::string csrf = HiddenField(page.body, "csrf");
  ASSERT_EQ(csrf.size(), 32U) << "the sign-out form carries the session's token";
  const HttpResponse get = Http(port_, "GET", "/logout", {cookie});
  EXPECT_EQ(get.status, 405);
  EXPECT_EQ(Http(port_, "GET", "/", {cookie}).status, 200) << "GET /logout signed nobody out";
  EXPECT_EQ(Http(port_, "POST", "/logout", {cookie}, "csrf=wrong").status, 403);
  EXPECT_EQ(Http(port_, "POST", "/logout", {cookie}, "").status, 403);
  EXPECT_EQ(Http(port_, "GET", "/", {cookie}).status, 200);
  const HttpResponse out = Http(port_, "POST", "/logout", {cookie}, "csrf=" + csrf);
  EXPECT_EQ(out.status, 303);
  EXPECT_NE(SetCookieLine(out, "kjudge_session").find("Max-Age=0"), std::string::npos);
  // The token replayed after sign-out (a copy the browser did not delete) is dead.
  EXPECT_EQ(Http(port_, "GET", "/", {cookie}).status, 303);
}

// 6. Security headers on every response, and the pages still work under the CSP in Chromium.
TEST_F(DashboardSecurity, EveryResponseCarriesTheSecurityHeaders) {
  StartDashboard();
  const std::string session = "Cookie: kjudge_session=" + SessionOf(alice_key_);
  const std::vector<std::pair<std::string, std::vector<std::string>>> requests = {
      {"/", {session}}, {"/jobs", {session}}, {"/jobs?tag=%27=1", {session}}, {"/jobs/999999", {session}},
      {"/login", {}}, {"/healthz", {}}, {"/api/overview", {}}, {"/api/overview", {session}}, {"/no-such-page", {}},
      {"/", {}}, {"/", {"Host: evil.example"}}, {"/logout", {session}}};
  for (const auto& [path, headers] : requests) {
    const HttpResponse r = Http(port_, "GET", path, headers);
    ASSERT_NE(r.status, 0) << path;
    EXPECT_EQ(r.Header("x-frame-options"), "DENY") << path;
    EXPECT_EQ(r.Header("x-content-type-options"), "nosniff") << path;
    EXPECT_EQ(r.Header("cache-control"), "no-store") << path;
    EXPECT_EQ(r.Header("referrer-policy"), "same-origin") << path;
    const std::string csp = r.Header("content-security-policy");
    EXPECT_NE(csp.find("default-src 'self'"), std::string::npos) << path << ": " << csp;
    EXPECT_NE(csp.find("frame-ancestors 'none'"), std::string::npos) << path;
    EXPECT_EQ(csp.find("unsafe-inline"), std::string::npos) << path;
  }
  // Chromium: the overview's polling script runs under the CSP (it fetches /api/overview), and
  // no CSP violation is reported.
  std::unique_ptr<Chromium> browser = Browser();
  if (!browser) GTEST_SKIP() << "SKIPPED (browser part): Chromium not installed";
  ASSERT_TRUE(browser->ok());
  BrowserSignIn(*browser, alice_key_, "/");
  EXPECT_EQ(browser->Url(), Origin() + "/");
  EXPECT_TRUE(browser->WaitFor("performance.getEntriesByType('resource').some(function(e){return "
                               "e.name.indexOf('/api/overview')>0})",
                               std::chrono::seconds(8)))
      << "the polling script did not run";
  EXPECT_EQ(browser->Evaluate("getComputedStyle(document.querySelector('header')).display"), "flex")
      << "the embedded style sheet was blocked";
  for (const std::string& error : browser->Errors()) {
    EXPECT_EQ(error.find("Content Security Policy"), std::string::npos) << error;
  }
}

// 7. Host names outside the allow-list get 421 (DNS rebinding); --dashboard-host sets the list.
TEST_F(DashboardSecurity, OnlyAllowedHostNamesAreServed) {
  StartDashboard();
  const std::string p = std::to_string(port_);
  EXPECT_EQ(Http(port_, "GET", "/healthz", {"Host: evil.example"}).status, 421);
  EXPECT_EQ(Http(port_, "GET", "/healthz", {"Host: evil.example:" + p}).status, 421);
  EXPECT_EQ(Http(port_, "GET", "/login", {"Host: 127.0.0.1.evil.example:" + p}).status, 421);
  for (const std::string& host : {"127.0.0.1:" + p, "localhost:" + p, "LOCALHOST:" + p, "[::1]:" + p}) {
    EXPECT_EQ(Http(port_, "GET", "/healthz", {"Host: " + host}).status, 200) << host;
  }
  EXPECT_EQ(Http(port_, "GET", "/healthz", {"Host: 127.0.0.1:1"}).status, 421) << "another port";
  dashboard_->Signal(SIGTERM);
  dashboard_->Wait(std::chrono::seconds(10));
  StartDashboard({"--dashboard-host", "dash.example", "--dashboard-host", "other.example:8443"});
  EXPECT_EQ(Http(port_, "GET", "/healthz", {"Host: dash.example"}).status, 200);
  EXPECT_EQ(Http(port_, "GET", "/healthz", {"Host: dash.example:" + std::to_string(port_)}).status, 200);
  EXPECT_EQ(Http(port_, "GET", "/healthz", {"Host: other.example:8443"}).status, 200);
  EXPECT_EQ(Http(port_, "GET", "/healthz", {"Host: other.example:8444"}).status, 421);
  EXPECT_EQ(Http(port_, "GET", "/healthz", {"Host: 127.0.0.1:" + std::to_string(port_)}).status, 421);
}

// 8. 50 keyless slow-loris connections (a header byte every 500 ms) do not keep /healthz or a
// page from answering within 2 s. (Figures: bench/dashboard/slowloris_bench.)
TEST_F(DashboardSecurity, FiftySlowLorisConnectionsDoNotBlockTheDashboard) {
  StartDashboard();
  std::vector<int> holds;
  for (int i = 0; i < 50; ++i) {
    const int fd = Connect(port_);
    ASSERT_GE(fd, 0);
    const std::string start = "GET / HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port_) + "\r\nX-Slow: ";
    send(fd, start.data(), start.size(), MSG_NOSIGNAL);
    holds.push_back(fd);
  }
  std::atomic<bool> stop{false};
  std::thread trickle([&] {
    while (!stop) {
      for (int fd : holds) send(fd, "a", 1, MSG_NOSIGNAL);
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
  });
  const std::string auth = "Authorization: Bearer " + alice_key_;
  for (int round = 0; round < 3; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    for (const char* path : {"/healthz", "/jobs"}) {
      const Clock::time_point start = Clock::now();
      const HttpResponse r = Http(port_, "GET", path, {auth});
      const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
      EXPECT_EQ(r.status, 200) << path << " round " << round;
      EXPECT_LT(ms, 2000) << path << " round " << round;
    }
  }
  stop = true;
  trickle.join();
  for (int fd : holds) close(fd);
}

// Holds an exclusive lock on the database (switched to rollback-journal mode first, where a
// writer's lock keeps readers out) until destroyed.
class DatabaseLock {
 public:
  explicit DatabaseLock(const std::string& path) {
    EXPECT_EQ(sqlite3_open(path.c_str(), &db_), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db_, "PRAGMA journal_mode=DELETE; BEGIN EXCLUSIVE; SELECT COUNT(*) FROM api_keys;", nullptr,
                           nullptr, nullptr),
              SQLITE_OK)
        << sqlite3_errmsg(db_);
  }
  ~DatabaseLock() {
    sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
    sqlite3_close(db_);
  }
  DatabaseLock(const DatabaseLock&) = delete;
  DatabaseLock& operator=(const DatabaseLock&) = delete;

 private:
  sqlite3* db_ = nullptr;
};

void UseRollbackJournal(const std::string& path) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, "PRAGMA journal_mode=DELETE", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
}

// 9 and 10. /healthz says 503 when a real read cannot finish; a failed page shows a sentence and
// a request id, never SQL, SQLite's words or a path; the details are in the log.
TEST_F(DashboardSecurity, HealthzFailsAndErrorPagesShowNoSqlWhenTheDatabaseCannotBeRead) {
  UseRollbackJournal(db_);
  StartDashboard();
  EXPECT_EQ(Http(port_, "GET", "/healthz").status, 200);
  {
    DatabaseLock lock(db_);
    const Clock::time_point start = Clock::now();
    const HttpResponse health = Http(port_, "GET", "/healthz");
    EXPECT_EQ(health.status, 503) << health.body;
    EXPECT_LT(Clock::now() - start, std::chrono::seconds(4));
    const HttpResponse page = Http(port_, "GET", "/jobs", {"Authorization: Bearer " + alice_key_});
    EXPECT_EQ(page.status, 500) << page.body;
    EXPECT_NE(page.body.find("request id"), std::string::npos) << page.body;
    for (const char* leak : {"locked", "SQLITE", "sqlite", "SELECT", "api_keys", "kjudge.sqlite", "/tmp"}) {
      EXPECT_EQ(page.body.find(leak), std::string::npos) << leak << " in " << page.body;
    }
    const HttpResponse api = Http(port_, "GET", "/api/overview", {"Authorization: Bearer " + alice_key_});
    EXPECT_EQ(api.status, 500);
    EXPECT_EQ(api.body.find("locked"), std::string::npos) << api.body;
  }
  EXPECT_EQ(Http(port_, "GET", "/healthz").status, 200) << "healthy again once the database can be read";
  EXPECT_NE(ReadFileOrEmpty(cluster_->dir() + "/" + log_).find("request "), std::string::npos)
      << "the details went to the log";
}

// 9. SIGTERM stops the dashboard even while a request is stuck (a client trickling its headers).
TEST_F(DashboardSecurity, SigtermStopsItWhileARequestIsStuck) {
  StartDashboard({"--stop-grace-seconds", "1"});
  const int fd = Connect(port_);
  ASSERT_GE(fd, 0);
  std::atomic<bool> stop{false};
  std::thread trickle([&] {
    const std::string start = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
    send(fd, start.data(), start.size(), MSG_NOSIGNAL);
    while (!stop) {
      send(fd, "a", 1, MSG_NOSIGNAL);
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const Clock::time_point start = Clock::now();
  dashboard_->Signal(SIGTERM);
  const int code = dashboard_->Wait(std::chrono::seconds(8));
  EXPECT_EQ(code, 0) << ReadFileOrEmpty(cluster_->dir() + "/" + log_);
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(4));
  stop = true;
  trickle.join();
  close(fd);
}

// 11. A tenant's pages carry no worker id and not the id of the admin who cancelled its job.
TEST_F(DashboardSecurity, TenantsSeeNoWorkerIdAndNoAdminKeyId) {
  const std::string worker_key = cluster_->CreateKey("worker");
  cluster_->StartServer({"--require-auth", "--lease-seconds", "600"});
  ApiClient alice(*cluster_, alice_key_), admin(*cluster_, admin_key_);
  auto workers = v1::WorkerService::NewStub(grpc::CreateChannel(cluster_->address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext register_context;
  register_context.AddMetadata("authorization", "Bearer " + worker_key);
  v1::RegisterWorkerRequest registration;
  registration.set_name("gpu-host-1");
  registration.mutable_gpu()->set_name("NVIDIA H100 80GB HBM3");
  registration.mutable_gpu()->set_sm_count(132);
  registration.mutable_gpu()->set_arch("sm_90a");
  v1::RegisterWorkerResponse registered;
  ASSERT_TRUE(workers->RegisterWorker(&register_context, registration, &registered).ok());
  const std::string worker_id = registered.worker_id();
  // A job leased by the worker (its timeline names the worker) and one cancelled by the admin.
  v1::SubmitRequest request = ReluRequest();
  request.set_compile_only(false);
  v1::SubmitResponse leased_job, cancelled_job;
  ASSERT_TRUE(alice.Submit(request, &leased_job).ok());
  grpc::ClientContext lease_context;
  lease_context.AddMetadata("authorization", "Bearer " + worker_key);
  v1::LeaseJobRequest lease;
  lease.set_worker_id(worker_id);
  lease.set_wait_ms(5000);
  v1::LeaseJobResponse leased;
  ASSERT_TRUE(workers->LeaseJob(&lease_context, lease, &leased).ok());
  ASSERT_EQ(leased.spec().job_id(), leased_job.job_id());
  ASSERT_TRUE(alice.Submit(request, &cancelled_job).ok());
  v1::Job job;
  ASSERT_TRUE(admin.CancelJob(cancelled_job.job_id(), &job).ok());
  StartDashboard();
  const std::string admin_id = admin_key_.substr(0, admin_key_.find('_', 3));
  const std::string alice_id = alice_key_.substr(0, alice_key_.find('_', 3));
  const std::string as_alice = "Authorization: Bearer " + alice_key_, as_admin = "Authorization: Bearer " + admin_key_;
  // The admin sees both ids (so the test can tell they are there to hide).
  EXPECT_NE(Http(port_, "GET", "/jobs/" + leased_job.job_id(), {as_admin}).body.find(worker_id), std::string::npos);
  for (const std::string& path : {"/jobs/" + leased_job.job_id(), "/jobs/" + cancelled_job.job_id(), std::string("/jobs"),
                                  std::string("/"), "/api/jobs/" + leased_job.job_id(), std::string("/api/overview")}) {
    const HttpResponse r = Http(port_, "GET", path, {as_alice});
    EXPECT_EQ(r.status, 200) << path;
    EXPECT_EQ(r.body.find(worker_id), std::string::npos) << "worker id on alice's " << path;
    EXPECT_EQ(r.body.find(admin_id), std::string::npos) << "admin key id on alice's " << path;
  }
  EXPECT_NE(Http(port_, "GET", "/jobs/" + cancelled_job.job_id(), {as_alice}).body.find("CANCELLED"), std::string::npos);
}

}  // namespace
}  // namespace kjudge::testing
