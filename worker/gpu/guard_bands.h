// GuardBands: canary regions around every device allocation a candidate can touch, so that a
// small out-of-bounds write (one element past the end of an output, one before its start, past
// the end of a scratch buffer) is caught instead of landing silently in cudaMalloc's rounding
// slack.
//
// Layout of a guarded allocation (device_buffer.h, DeviceBuffer::AllocateGuarded):
//   [ guard: kGuardBytes ][ data: n bytes ][ guard: kGuardBytes ]
//   ^ cudaMalloc base      ^ pointer handed to kernels (base + kGuardBytes: 256-aligned)
// The after-guard starts exactly at data byte n, so a write to element n lands in it.
//
// Pattern: the guard byte at device address a is byte (a % 64) of the ChaCha12 block a / 64
// under the job's guard key (secret_key.h; nonce KeyNonce(kGuards, 0); words little-endian).
// The key is a per-job secret of its own, drawn from the OS CSPRNG, so a kernel that reads
// the guard bytes around its buffers learns nothing about its inputs, nor the guard bytes of
// any address it has not read (it cannot write a guard-correct pattern past its buffers);
// they depend on the address, so every guard holds different bytes and an off-by-one copy
// (Y[n] = X[n]: X's guard into Y's) still changes Y's.
// The host fills the guards at allocation (GuardPattern::Bytes); DeviceUtilities::CheckGuards
// recomputes the same bytes on the device and counts the ones that differ (one launch for all
// regions).
//
// Contract: DescribeGuardDamage() turns the per-region results of a check (two regions per
// buffer: before, then after) into the message of a RUNTIME_ERROR, or "" when nothing was
// modified. Pure C++ (no CUDA), so it is unit-tested without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "worker/gpu/secret_key.h"

namespace kjudge::runner {

// 4 KiB a side: a multiple of 256 (the data pointer stays 256-aligned for vector loads), wide
// enough for the common bugs (an off-by-one, a tail that rounds up to a vector, tile or warp:
// up to 1024 floats), small enough to cost nothing per buffer. A bigger overrun usually reaches
// unmapped memory (illegal address, a sticky RUNTIME_ERROR) or another buffer (the input
// byte-for-byte input check and the output comparison see it).
inline constexpr size_t kGuardBytes = 4096;

// Device memory a guarded allocation of `bytes` takes (memory accounting: what fits).
constexpr size_t GuardedBytes(size_t bytes) { return bytes + 2 * kGuardBytes; }

// The guard bytes of one job.
class GuardPattern {
 public:
  GuardPattern() = default;
  explicit GuardPattern(const SecretKey& key) : key_(key) {}
  const SecretKey& key() const { return key_; }
  // The bytes that guard device addresses [address, address + n).
  std::vector<std::byte> Bytes(uintptr_t address, size_t n) const;

 private:
  SecretKey key_;
};

// One device allocation with guards, as a check reports on it.
struct GuardedBuffer {
  std::string label;              // "output 'Y' (4096 x f32)"
  const std::byte* data = nullptr;  // the first byte handed to kernels
  size_t bytes = 0;               // the after-guard starts at data + bytes
  size_t guard_bytes = 0;         // 0: no guards (not checked)
};

// A contiguous guard region to check on the device.
struct GuardRegion {
  const void* ptr = nullptr;
  size_t bytes = 0;
};

// What a check found in one region: modified bytes and the first and last of them (offsets
// from the region's first byte; -1 when none).
struct GuardDamage {
  int64_t modified = 0;
  int64_t first = -1;
  int64_t last = -1;
};

// Two regions per guarded buffer (before, after), in order; buffers without guards add none.
std::vector<GuardRegion> GuardRegionsOf(const std::vector<GuardedBuffer>& buffers);

// `damage` holds one entry per region of GuardRegionsOf(buffers). "" when none is modified;
// else "out-of-bounds write: 4 bytes after the end of output 'Y' (4096 x f32) were modified
// (first at +0, last at +3 bytes past the end)" (several damaged guards joined by "; ").
std::string DescribeGuardDamage(const std::vector<GuardedBuffer>& buffers,
                                const std::vector<GuardDamage>& damage);

}  // namespace kjudge::runner
