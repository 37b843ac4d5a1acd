#include "worker/gpu/secret_key.h"

#include <sys/random.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace kjudge::runner {
namespace {

constexpr uint32_t Rotl(uint32_t v, int n) { return (v << n) | (v >> (32 - n)); }

void QuarterRound(std::array<uint32_t, 16>& x, int a, int b, int c, int d) {
  x[a] += x[b]; x[d] = Rotl(x[d] ^ x[a], 16);
  x[c] += x[d]; x[b] = Rotl(x[b] ^ x[c], 12);
  x[a] += x[b]; x[d] = Rotl(x[d] ^ x[a], 8);
  x[c] += x[d]; x[b] = Rotl(x[b] ^ x[c], 7);
}

}  // namespace

absl::StatusOr<SecretKey> SecretKey::Draw() {
  SecretKey key;
  auto* bytes = reinterpret_cast<unsigned char*>(key.words.data());
  size_t got = 0;
  while (got < sizeof(key.words)) {
    // Blocks until the pool is initialised at boot (flags 0), never returns weak bytes.
    const ssize_t n = getrandom(bytes + got, sizeof(key.words) - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::InternalError(absl::StrCat("getrandom failed: ", std::strerror(errno)));
    }
    got += static_cast<size_t>(n);
  }
  return key;
}

std::string SecretKey::Hex() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(64);
  for (const uint32_t w : words) {
    for (int byte = 0; byte < 4; ++byte) {
      const auto b = static_cast<uint8_t>(w >> (8 * byte));
      out.push_back(kDigits[b >> 4U]);
      out.push_back(kDigits[b & 15U]);
    }
  }
  return out;
}

std::array<uint32_t, 16> ChaChaBlock(const SecretKey& key, uint64_t counter, uint64_t nonce,
                                     int rounds) {
  std::array<uint32_t, 16> state = {0x61707865U, 0x3320646eU, 0x79622d32U, 0x6b206574U};
  for (size_t i = 0; i < 8; ++i) state[4 + i] = key.words[i];
  state[12] = static_cast<uint32_t>(counter);
  state[13] = static_cast<uint32_t>(counter >> 32U);
  state[14] = static_cast<uint32_t>(nonce);
  state[15] = static_cast<uint32_t>(nonce >> 32U);
  std::array<uint32_t, 16> x = state;
  for (int r = 0; r < rounds; r += 2) {
    QuarterRound(x, 0, 4, 8, 12);
    QuarterRound(x, 1, 5, 9, 13);
    QuarterRound(x, 2, 6, 10, 14);
    QuarterRound(x, 3, 7, 11, 15);
    QuarterRound(x, 0, 5, 10, 15);
    QuarterRound(x, 1, 6, 11, 12);
    QuarterRound(x, 2, 7, 8, 13);
    QuarterRound(x, 3, 4, 9, 14);
  }
  for (size_t i = 0; i < 16; ++i) x[i] += state[i];
  return x;
}

}  // namespace kjudge::runner
