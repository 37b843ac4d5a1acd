// kjudge std_headers internals: the body of <cstdlib> and <stdlib.h>.
//
// Contract: what device code can use of the C standard library: malloc/free (the device heap;
// NVRTC declares them), abs/labs/llabs/div (libcu++'s <cuda/std/cstdlib>, also std::),
// EXIT_SUCCESS/EXIT_FAILURE, NULL. No exit/getenv/system/rand: nothing on the device runs them
// (use curand from <curand_kernel.h> for random numbers).
#ifndef KJUDGE_STD_HEADERS_STDLIB_H
#define KJUDGE_STD_HEADERS_STDLIB_H

#include "config.h"
#include <cuda/std/cstddef>
#include <cuda/std/cstdlib>

#ifndef EXIT_SUCCESS
#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
#endif
#ifndef NULL
#define NULL 0
#endif

namespace std {
using ::free;
using ::malloc;
}  // namespace std

#endif  // KJUDGE_STD_HEADERS_STDLIB_H
