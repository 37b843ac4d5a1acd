// kjudge std_headers internals: included first by every header of this folder.
//
// Contract: only ever compiled by NVRTC (kjudge-compiler adds this folder to the include path).
// Makes the libcu++ names reachable as std:: with ONE using-directive, so std::min,
// std::numeric_limits, std::is_same, std::exp... are libcu++'s __host__ __device__ versions
// (cuda::std::), and every libcu++ header included later is reachable too. Why a directive and
// not using-declarations: it covers every name without a list that drifts from libcu++, and a
// name really declared in namespace std (std::initializer_list, which libcu++ declares there
// under NVRTC) still wins in qualified lookup, so nothing is ambiguous.
#ifndef KJUDGE_STD_HEADERS_CONFIG_H
#define KJUDGE_STD_HEADERS_CONFIG_H

#if !defined(__CUDACC_RTC__)
#error "kjudge std_headers are NVRTC headers (kjudge-compiler); a host compiler has its own <cmath>, <cstdint>..."
#endif

// Bumped whenever a header of this folder changes what it declares (also in compiled cubins'
// cache key, through the folder's digest: worker/judge/cubin_cache.cc).
#define KJUDGE_STD_HEADERS 2

#include <cuda/std/version>

namespace cuda {
namespace std {}
}  // namespace cuda
namespace std {
using namespace ::cuda::std;
}  // namespace std

#include "math_macros.h"

#endif  // KJUDGE_STD_HEADERS_CONFIG_H
