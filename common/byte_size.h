// Checked byte sizes: the one place that turns an element count into a byte count for a
// buffer that will be allocated (plan scratch, problem tensors), so that a plan or spec can
// never make a size wrap around (2^62 floats * 4 bytes is 0 in 64 bits) and be allocated as
// a tiny buffer that kernels then write far past.
//
// Contract: CheckedBufferBytes(count, dtype) returns count * DTypeSize(dtype) when count >= 0
// and count * size + kBufferHeadroomBytes fits in int64 (the headroom covers the guard bands
// of guard_bands.h, 2 x 4 KiB, alignment and later sums, with room to spare); otherwise an
// InvalidArgumentError saying what overflowed or was negative (no position: callers prefix
// the expression's line:column). CheckedAddBytes is the same for a running total of
// several buffers. Nothing here allocates.
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "common/dtype.h"

namespace kjudge {

// What every checked size leaves unused below INT64_MAX: guards (8 KiB per buffer), alignment,
// and the sum over a plan's buffers all fit in it.
inline constexpr int64_t kBufferHeadroomBytes = int64_t{1} << 20;

absl::StatusOr<int64_t> CheckedBufferBytes(int64_t count, DType dtype);
// total + bytes, under the same bound (both must be >= 0).
absl::StatusOr<int64_t> CheckedAddBytes(int64_t total, int64_t bytes);

}  // namespace kjudge
