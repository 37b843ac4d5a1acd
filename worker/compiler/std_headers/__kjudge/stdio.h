// kjudge std_headers internals: the body of <cstdio> and <stdio.h>.
//
// Contract: device printf only (NVRTC declares it; also std::printf). Its output goes to the
// candidate's captured stdout, returned with the result as text and never parsed. There are no
// files, streams or scanf on the device; FILE-based functions are left undeclared on purpose,
// so using one fails to compile where it is called.
#ifndef KJUDGE_STD_HEADERS_STDIO_H
#define KJUDGE_STD_HEADERS_STDIO_H

#include "config.h"
#include <cuda/std/cstddef>

#ifndef NULL
#define NULL 0
#endif
#ifndef EOF
#define EOF (-1)
#endif

namespace std {
using ::printf;
}  // namespace std

#endif  // KJUDGE_STD_HEADERS_STDIO_H
