#include "dashboard/web_security.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <algorithm>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace kjudge::dashboard {
namespace {

std::string Hex(const unsigned char* data, size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  for (size_t i = 0; i < size; ++i) {
    out += kDigits[data[i] >> 4];
    out += kDigits[data[i] & 15];
  }
  return out;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The shape rules of a same-origin path, on one spelling of it.
bool PathShapeOk(std::string_view path) {
  if (path.empty() || path[0] != '/') return false;
  if (path.size() > 1 && (path[1] == '/' || path[1] == '\\')) return false;
  for (char c : path) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f || c == '\\') return false;  // controls, space, DEL, non-ASCII, backslash
  }
  return true;
}

}  // namespace

std::string RandomHex(size_t bytes) {
  std::string raw(bytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(bytes)) != 1) {
    // No randomness means no unguessable session: refusing to run is the only safe answer.
    std::abort();
  }
  return Hex(reinterpret_cast<const unsigned char*>(raw.data()), raw.size());
}

std::string SafeNext(std::string_view next) {
  if (next.size() > 2048 || !PathShapeOk(next)) return "/";
  // Once percent-decoded (a proxy or a later hop might decode it), the same rules must hold.
  std::string decoded;
  for (size_t i = 0; i < next.size(); ++i) {
    if (next[i] == '%' && i + 2 < next.size() && HexValue(next[i + 1]) >= 0 && HexValue(next[i + 2]) >= 0) {
      decoded += static_cast<char>(HexValue(next[i + 1]) * 16 + HexValue(next[i + 2]));
      i += 2;
    } else {
      decoded += next[i];
    }
  }
  if (!PathShapeOk(decoded)) return "/";
  return std::string(next);
}

HostAllowList::HostAllowList(const std::vector<std::string>& entries) {
  for (const std::string& e : entries) entries_.push_back(absl::AsciiStrToLower(e));
}

HostAllowList HostAllowList::ForListener(const std::string& host, int port) {
  std::vector<std::string> entries;
  const std::string p = absl::StrCat(":", port);
  const bool v6 = host.find(':') != std::string::npos;
  if (host != "0.0.0.0" && host != "::" && !host.empty()) entries.push_back((v6 ? "[" + host + "]" : host) + p);
  for (const char* name : {"localhost", "127.0.0.1", "[::1]"}) entries.push_back(name + p);
  std::sort(entries.begin(), entries.end());
  entries.erase(std::unique(entries.begin(), entries.end()), entries.end());
  return HostAllowList(entries);
}

bool HostAllowList::Allows(std::string_view header) const {
  if (entries_.empty()) return true;
  const std::string host = absl::AsciiStrToLower(std::string(header));
  if (host.empty()) return false;
  // Split "name[:port]" ("[v6]:port" keeps its brackets in the name).
  std::string name = host;
  const size_t bracket = host.rfind(']');
  const size_t colon = host.rfind(':');
  if (colon != std::string::npos && (bracket == std::string::npos || colon > bracket)) name = host.substr(0, colon);
  for (const std::string& entry : entries_) {
    const size_t entry_bracket = entry.rfind(']');
    const size_t entry_colon = entry.rfind(':');
    const bool entry_has_port =
        entry_colon != std::string::npos && (entry_bracket == std::string::npos || entry_colon > entry_bracket);
    if (entry_has_port ? host == entry : name == entry) return true;
  }
  return false;
}

LoginTokens::LoginTokens() : secret_(RandomHex(32)) {}

std::string LoginTokens::Mac(std::string_view nonce) const {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  HMAC(EVP_sha256(), secret_.data(), static_cast<int>(secret_.size()), reinterpret_cast<const unsigned char*>(nonce.data()),
       nonce.size(), mac, &size);
  return Hex(mac, size);
}

std::string LoginTokens::Issue() const {
  const std::string nonce = RandomHex(16);
  return absl::StrCat(nonce, ".", Mac(nonce));
}

bool LoginTokens::Valid(std::string_view token) const {
  const size_t dot = token.find('.');
  if (dot != 32 || token.size() != 32 + 1 + 64) return false;
  return SecretsEqual(token.substr(dot + 1), Mac(token.substr(0, dot)));
}

std::string Sha256Base64(std::string_view text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(text.data(), text.size(), digest, &size, EVP_sha256(), nullptr);
  std::string out(4 * ((size + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), digest, static_cast<int>(size));
  out.resize(static_cast<size_t>(n));
  return out;
}

bool SecretsEqual(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace kjudge::dashboard
