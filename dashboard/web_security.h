// WebSecurity: the small, pure checks the dashboard applies at its HTTP edge: where a sign-in
// may send the browser next, which Host names it answers, random tokens, and the signed
// pre-session token that binds the sign-in form to the browser that loaded it.
//
// Contract: no I/O except the CSPRNG (OpenSSL RAND_bytes, which aborts rather than hand out
// predictable bytes). Every function is thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kjudge::dashboard {

// `bytes` bytes from the CSPRNG, as lowercase hex (2 * bytes characters).
std::string RandomHex(size_t bytes);

// `next` when it is a path on this origin, else "/". Accepted: printable ASCII only (no
// whitespace, tab, CR, LF or other control bytes), exactly one leading '/', no backslash
// anywhere, and the same holds once percent-decoded (so "/%2F%2Fhost" and "/%5Chost" are
// refused too); at most 2,048 bytes. Browsers read "//host", "/\host" and "/<TAB>/host" as
// another origin; none of them passes.
std::string SafeNext(std::string_view next);

// The Host names a request may carry. Each entry is "name" (any port, or none) or
// "name:port" / "[v6]:port" (that port only); names compare case-insensitively. An empty list
// allows every Host (for in-process use such as the benchmark; kjudge-dashboard always passes
// a non-empty one).
class HostAllowList {
 public:
  explicit HostAllowList(const std::vector<std::string>& entries);
  // The default for a listener on host:port: that host and localhost, 127.0.0.1 and [::1],
  // each with the port.
  static HostAllowList ForListener(const std::string& host, int port);
  bool Allows(std::string_view host_header) const;
  const std::vector<std::string>& entries() const { return entries_; }

 private:
  std::vector<std::string> entries_;  // lowercase
};

// Signed pre-session tokens for the sign-in form: "<nonce>.<HMAC-SHA256(secret, nonce)>".
// The token goes both into an HttpOnly SameSite=Strict cookie and into the form; a sign-in is
// accepted only when both carry the same valid token, which a page on another site can neither
// read nor make the browser send.
class LoginTokens {
 public:
  LoginTokens();  // a fresh random secret: tokens do not survive a restart
  std::string Issue() const;
  bool Valid(std::string_view token) const;

 private:
  std::string Mac(std::string_view nonce) const;
  std::string secret_;
};

// base64(SHA-256(text)), for a Content-Security-Policy hash source.
std::string Sha256Base64(std::string_view text);

// Constant-time comparison of two secrets (length may leak; contents do not).
bool SecretsEqual(std::string_view a, std::string_view b);

}  // namespace kjudge::dashboard
