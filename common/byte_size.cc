#include "common/byte_size.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "common/absl_compat.h"

namespace kjudge {
namespace {

constexpr int64_t kMaxBytes = std::numeric_limits<int64_t>::max() - kBufferHeadroomBytes;

}  // namespace

absl::StatusOr<int64_t> CheckedBufferBytes(int64_t count, DType dtype) {
  if (count < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("negative size: the element count is ", count, "; expected >= 0"));
  }
  const auto size = static_cast<int64_t>(DTypeSize(dtype));
  int64_t bytes = 0;
  if (__builtin_mul_overflow(count, size, &bytes) || bytes > kMaxBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "size overflow: ", count, " elements x ", size, " bytes (", ToAbsl(DTypeName(dtype)),
        ") does not fit in 64 bits with ", kBufferHeadroomBytes, " bytes of headroom"));
  }
  return bytes;
}

absl::StatusOr<int64_t> CheckedAddBytes(int64_t total, int64_t bytes) {
  int64_t sum = 0;
  if (total < 0 || bytes < 0) {
    return absl::InvalidArgumentError(absl::StrCat("negative size: ", total, " + ", bytes, " bytes"));
  }
  if (__builtin_add_overflow(total, bytes, &sum) || sum > kMaxBytes) {
    return absl::InvalidArgumentError(absl::StrCat("size overflow: ", total, " + ", bytes,
                                                   " bytes does not fit in 64 bits with ",
                                                   kBufferHeadroomBytes, " bytes of headroom"));
  }
  return sum;
}

}  // namespace kjudge
