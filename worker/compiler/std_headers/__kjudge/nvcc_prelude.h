// kjudge std_headers internals: nvcc's implicit prelude, pre-included (NVRTC --pre-include,
// worker/gpu/nvrtc_compiler.cc) into a compile that fails without it: a source that compiles
// as it is pays nothing for it.
//
// Contract: nvcc compiles every .cu file after an implicit <cuda_runtime.h>, which pulls in the
// host <math.h>, <stdlib.h> and with them the C math macros, the std:: math overloads and the
// glibc integer types; kernels written for nvcc (and load_inline code) use INFINITY, M_PI,
// int64_t or std::exp without an #include. This header makes the same names visible under
// NVRTC, from this folder only:
//   - <cmath>/<math.h>: INFINITY, NAN, HUGE_VALF, HUGE_VAL, M_PI... M_PIf..., FP_*, std::exp,
//     std::sqrt, std::fmax, std::abs, std::isnan, std::pow, std::tanh... (NVRTC already has the
//     global expf, fmaxf, isnan...);
//   - <cfloat>: FLT_MAX, FLT_MIN, FLT_EPSILON, DBL_MAX... (nvcc with a glibc host does not show
//     these without <cfloat>; every nvcc kernel that uses them and compiles includes it, and an
//     included header here is guarded, so offering them is harmless);
//   - <climits>, <cstdint>, <cstddef>, <cstdlib>, <cstring>: CHAR_BIT, INT_MAX, int8_t...uint64_t,
//     INT32_MAX, size_t, ptrdiff_t, device malloc/free/memcpy/memset;
//   - std::numeric_limits (libcu++'s, through the math macros).
// Not here, though nvcc shows them through libstdc++'s <cmath>: std::min, std::max, std::swap.
// They need libcu++'s <type_traits>, which would add about 1.4 s to every compile (measured
// with NVRTC 13.0 on 2 cores; this prelude costs about 80 ms); they come with <algorithm> /
// <utility> as standard C++ requires, and CUDA's global min/max/fminf/fmaxf need nothing.
// (The 80 ms are paid only by sources that need the prelude: everything else compiles first
// without it.)
// Only NVRTC compiles it (config.h stops any other compiler). Every header it includes is
// guarded, so a kernel that includes <cmath> or <cfloat> itself sees each name once.
#ifndef KJUDGE_STD_HEADERS_NVCC_PRELUDE_H
#define KJUDGE_STD_HEADERS_NVCC_PRELUDE_H

#include "config.h"
#include "math.h"
#include "float.h"
#include "limits_h.h"
#include "stdint.h"
#include "stdlib.h"
#include "string_h.h"
#include <cuda/std/cstddef>

#endif  // KJUDGE_STD_HEADERS_NVCC_PRELUDE_H
