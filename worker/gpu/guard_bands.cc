#include "worker/gpu/guard_bands.h"

#include <array>

#include "worker/gpu/str_util.h"

namespace kjudge::runner {
namespace {

// Guards listed in a message; the rest are counted.
constexpr size_t kMaxDescribed = 3;

std::string Bytes(int64_t n) { return Cat(n, n == 1 ? " byte" : " bytes"); }

// One damaged guard: `before` is the region in front of the data.
std::string DescribeOne(const GuardedBuffer& b, bool before, const GuardDamage& d) {
  const auto guard = static_cast<int64_t>(b.guard_bytes);
  std::string where;
  bool at_far_edge = false;
  if (before) {
    where = Cat("before the start of ", b.label, " were modified (from -", guard - d.first,
                " to -", guard - d.last, " bytes from the start)");
    at_far_edge = d.first == 0;
  } else {
    where = Cat("after the end of ", b.label, " were modified (first at +", d.first,
                ", last at +", d.last, " bytes past the end)");
    at_far_edge = d.last == guard - 1;
  }
  std::string out = Cat(Bytes(d.modified), " ", where);
  if (at_far_edge) {
    Append(&out, ", up to the far edge of the ", guard, "-byte guard: it may reach further");
  }
  return out;
}

}  // namespace

std::vector<std::byte> GuardPattern::Bytes(uintptr_t address, size_t n) const {
  std::vector<std::byte> out(n);
  uint64_t block_of = ~uint64_t{0};
  std::array<uint32_t, 16> block{};
  for (size_t j = 0; j < n; ++j) {
    const uint64_t a = uint64_t{address} + j;
    // Byte a % 64 of block a / 64, as kj_guard_check computes it on the device.
    if (a / 64 != block_of) {
      block_of = a / 64;
      block = ChaChaBlock(key_, block_of, KeyNonce(KeyDomain::kGuards, 0));
    }
    const uint32_t word = block[(a % 64) / 4];
    out[j] = static_cast<std::byte>((word >> (8U * (a % 4))) & 0xFFU);
  }
  return out;
}

std::vector<GuardRegion> GuardRegionsOf(const std::vector<GuardedBuffer>& buffers) {
  std::vector<GuardRegion> regions;
  for (const GuardedBuffer& b : buffers) {
    if (b.guard_bytes == 0) continue;
    regions.push_back({b.data - b.guard_bytes, b.guard_bytes});
    regions.push_back({b.data + b.bytes, b.guard_bytes});
  }
  return regions;
}

std::string DescribeGuardDamage(const std::vector<GuardedBuffer>& buffers,
                                const std::vector<GuardDamage>& damage) {
  std::vector<std::string> found;
  size_t r = 0;
  for (const GuardedBuffer& b : buffers) {
    if (b.guard_bytes == 0) continue;
    for (const bool before : {true, false}) {
      if (r < damage.size() && damage[r].modified > 0) {
        found.push_back(DescribeOne(b, before, damage[r]));
      }
      ++r;
    }
  }
  if (found.empty()) return "";
  std::string out = "out-of-bounds write: ";
  for (size_t i = 0; i < found.size() && i < kMaxDescribed; ++i) {
    Append(&out, i == 0 ? "" : "; ", found[i]);
  }
  if (found.size() > kMaxDescribed) {
    Append(&out, "; and ", found.size() - kMaxDescribed, " more modified guards");
  }
  return out;
}

}  // namespace kjudge::runner
