// kjudge std_headers internals: the body of <cstdint> and <stdint.h>.
//
// Contract: libcu++'s <cuda/std/cstdint> declares int8_t...uint64_t, intptr_t, intmax_t and the
// INT*_MAX / UINT*_MAX macros in the global namespace under NVRTC; config.h makes them std::
// too. Adds the SIZE_MAX / PTRDIFF_* / *_C() macros libcu++ leaves out.
#ifndef KJUDGE_STD_HEADERS_STDINT_H
#define KJUDGE_STD_HEADERS_STDINT_H

#include "config.h"
#include <cuda/std/climits>
#include <cuda/std/cstdint>

#ifndef SIZE_MAX
#define SIZE_MAX 0xffffffffffffffffUL
#endif
#ifndef PTRDIFF_MAX
#define PTRDIFF_MIN (-0x7fffffffffffffffL - 1)
#define PTRDIFF_MAX 0x7fffffffffffffffL
#endif
#ifndef INT8_C
#define INT8_C(c) c
#define INT16_C(c) c
#define INT32_C(c) c
#define INT64_C(c) c##LL
#define UINT8_C(c) c
#define UINT16_C(c) c
#define UINT32_C(c) c##U
#define UINT64_C(c) c##ULL
#define INTMAX_C(c) c##LL
#define UINTMAX_C(c) c##ULL
#endif

#endif  // KJUDGE_STD_HEADERS_STDINT_H
