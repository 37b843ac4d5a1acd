// kjudge std_headers internals: the body of <cstring> and <string.h>: memcpy and memset (NVRTC
// declares them for device code) and libcu++'s <cuda/std/cstring> (memcmp, memmove, memchr), std:: too.
#ifndef KJUDGE_STD_HEADERS_STRING_H_H
#define KJUDGE_STD_HEADERS_STRING_H_H

#include "config.h"
#include <cuda/std/cstddef>
#include <cuda/std/cstring>

namespace std {
using ::memcpy;
using ::memset;
}  // namespace std

#endif  // KJUDGE_STD_HEADERS_STRING_H_H
