// kjudge std_headers internals: the body of <climits> and <limits.h>: libcu++'s
// <cuda/std/climits> defines CHAR_BIT, INT_MAX, LLONG_MAX... under NVRTC.
#ifndef KJUDGE_STD_HEADERS_LIMITS_H_H
#define KJUDGE_STD_HEADERS_LIMITS_H_H

#include "config.h"
#include <cuda/std/climits>

#endif  // KJUDGE_STD_HEADERS_LIMITS_H_H
