// Sha256Hex: the SHA-256 digest of a byte string, as 64 lowercase hex characters.
//
// Contract: deterministic, never fails for valid input (an OpenSSL failure aborts, since it
// means a broken installation, not bad input). Used for cache keys (cubins, submissions).
#pragma once

#include <string>
#include <string_view>

namespace kjudge {

std::string Sha256Hex(std::string_view data);

}  // namespace kjudge
