// kjudge std_headers internals: INFINITY, NAN, HUGE_VALF, HUGE_VAL and M_PI and friends,
// included by config.h, so EVERY header of this folder brings them.
//
// Contract: why every header: nvcc's implicit <cuda_runtime.h> pulls in the host <math.h>, so
// kernels written for nvcc use -INFINITY or M_PI after only `#include <cfloat>` (or nothing);
// NVRTC has no such implicit header. INFINITY and NAN are constant expressions (`constexpr
// float kNegInf = -INFINITY;` works in device and host code alike).
#ifndef KJUDGE_STD_HEADERS_MATH_MACROS_H
#define KJUDGE_STD_HEADERS_MATH_MACROS_H

#include <cuda/std/limits>

// Token for token what libcu++'s <cuda/std/cmath> defines under NVRTC (cub includes it), so
// both may be seen in one program without a redefinition warning. Constant expressions.
#define INFINITY _CUDA_VSTD::numeric_limits<float>::infinity()
#define NAN _CUDA_VSTD::numeric_limits<float>::quiet_NaN()
#ifndef HUGE_VALF
#define HUGE_VALF INFINITY
#endif
#ifndef HUGE_VAL
#define HUGE_VAL (__builtin_bit_cast(double, 0x7ff0000000000000ull))
#endif

// POSIX / glibc constants (double), and the glibc float spellings (M_PIf).
#ifndef M_PI
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440
#endif
#ifndef M_PIf
#define M_Ef 2.7182818284590452354f
#define M_LOG2Ef 1.4426950408889634074f
#define M_LOG10Ef 0.43429448190325182765f
#define M_LN2f 0.69314718055994530942f
#define M_LN10f 2.30258509299404568402f
#define M_PIf 3.14159265358979323846f
#define M_PI_2f 1.57079632679489661923f
#define M_PI_4f 0.78539816339744830962f
#define M_1_PIf 0.31830988618379067154f
#define M_2_PIf 0.63661977236758134308f
#define M_2_SQRTPIf 1.12837916709551257390f
#define M_SQRT2f 1.41421356237309504880f
#define M_SQRT1_2f 0.70710678118654752440f
#endif

#endif  // KJUDGE_STD_HEADERS_MATH_MACROS_H
