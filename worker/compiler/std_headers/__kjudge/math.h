// kjudge std_headers internals: the body of <cmath> and <math.h>.
//
// Contract: NVRTC already declares the CUDA math library in the global namespace (expf, exp,
// fmaxf, isnan, ... for float and double, device side); this adds what a C/C++ math header
// adds on top: the macros (INFINITY, NAN, HUGE_VAL[F], M_PI and friends, FP_*), and the std::
// overloads (std::exp, std::fmax, std::abs, std::isinf, std::isnan, std::signbit...) from
// NVRTC's own global functions (using ::exp; ... as libstdc++ does, so `using namespace std;`
// then `exp(x)` is not ambiguous), std::lerp from libcu++, the float-suffixed std::expf...
// spellings, and fpclassify/isnormal/isgreater... (NVRTC lacks them) defined here.
// Not <cuda/std/cmath> nor its isnan/fpclassify pieces: their cuda::std::isnan(float) is a
// second function beside NVRTC's ::isnan(float), and with `using namespace std;` an unqualified
// call would be ambiguous. (cub includes <cuda/std/cmath>: README.md says what that means.)
// INFINITY and NAN are constant expressions, so `constexpr float
// kNegInf = -INFINITY;` works in device and host code alike.
#ifndef KJUDGE_STD_HEADERS_MATH_H
#define KJUDGE_STD_HEADERS_MATH_H

#include "config.h"
#include <cuda/std/__cmath/lerp.h>
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

#ifndef FP_NAN
#define FP_NAN 0
#define FP_INFINITE 1
#define FP_ZERO 2
#define FP_SUBNORMAL 3
#define FP_NORMAL 4
#endif
#ifndef FP_ILOGB0
#define FP_ILOGB0 (-2147483647 - 1)
#define FP_ILOGBNAN (-2147483647 - 1)
#endif
#ifndef MATH_ERRNO
#define MATH_ERRNO 1
#define MATH_ERREXCEPT 2
#define math_errhandling 0
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

// The C++ <cmath> overloads (float and double) are NVRTC's global functions.
namespace std {
using ::abs;
using ::acos;
using ::acosh;
using ::asin;
using ::asinh;
using ::atan;
using ::atan2;
using ::atanh;
using ::cbrt;
using ::ceil;
using ::copysign;
using ::cos;
using ::cosh;
using ::erf;
using ::erfc;
using ::exp;
using ::exp2;
using ::expm1;
using ::fabs;
using ::fdim;
using ::floor;
using ::fma;
using ::fmax;
using ::fmin;
using ::fmod;
using ::frexp;
using ::hypot;
using ::ilogb;
using ::isfinite;
using ::isinf;
using ::isnan;
using ::labs;
using ::ldexp;
using ::lgamma;
using ::llabs;
using ::llrint;
using ::llround;
using ::log;
using ::log10;
using ::log1p;
using ::log2;
using ::logb;
using ::lrint;
using ::lround;
using ::modf;
using ::nan;
using ::nanf;
using ::nearbyint;
using ::nextafter;
using ::pow;
using ::remainder;
using ::remquo;
using ::rint;
using ::round;
using ::scalbln;
using ::scalbn;
using ::signbit;
using ::sin;
using ::sinh;
using ::sqrt;
using ::tan;
using ::tanh;
using ::tgamma;
using ::trunc;
}  // namespace std

// C++17 <cmath> declares the float-suffixed names in std:: too; NVRTC has them globally.
namespace std {
using ::acosf;
using ::acoshf;
using ::asinf;
using ::asinhf;
using ::atan2f;
using ::atanf;
using ::atanhf;
using ::cbrtf;
using ::ceilf;
using ::copysignf;
using ::cosf;
using ::coshf;
using ::erfcf;
using ::erff;
using ::exp2f;
using ::expf;
using ::expm1f;
using ::fabsf;
using ::fdimf;
using ::floorf;
using ::fmaf;
using ::fmaxf;
using ::fminf;
using ::fmodf;
using ::frexpf;
using ::hypotf;
using ::ilogbf;
using ::ldexpf;
using ::lgammaf;
using ::llrintf;
using ::llroundf;
using ::log10f;
using ::log1pf;
using ::log2f;
using ::logbf;
using ::logf;
using ::lrintf;
using ::lroundf;
using ::modff;
using ::nearbyintf;
using ::nextafterf;
using ::powf;
using ::remainderf;
using ::remquof;
using ::rintf;
using ::roundf;
using ::scalblnf;
using ::scalbnf;
using ::sinf;
using ::sinhf;
using ::sqrtf;
using ::tanf;
using ::tanhf;
using ::tgammaf;
using ::truncf;
}  // namespace std

// The C99 classification and comparison macros, as C++ functions (NVRTC has none of them).
namespace std {
template <typename T>
__host__ __device__ inline int __kjudge_fpclassify(T x, T smallest_normal) {
  if (::isnan(x)) return FP_NAN;
  if (::isinf(x)) return FP_INFINITE;
  if (x == T(0)) return FP_ZERO;
  return ::fabs(x) < smallest_normal ? FP_SUBNORMAL : FP_NORMAL;
}
__host__ __device__ inline int fpclassify(float x) {
  return __kjudge_fpclassify(x, 1.17549435082228750796873653722224568e-38F);
}
__host__ __device__ inline int fpclassify(double x) {
  return __kjudge_fpclassify(x, 2.22507385850720138309023271733240406e-308);
}
__host__ __device__ inline bool isnormal(float x) { return fpclassify(x) == FP_NORMAL; }
__host__ __device__ inline bool isnormal(double x) { return fpclassify(x) == FP_NORMAL; }
template <typename T, typename U>
__host__ __device__ inline bool isunordered(T x, U y) { return ::isnan(x) || ::isnan(y); }
template <typename T, typename U>
__host__ __device__ inline bool isgreater(T x, U y) { return !isunordered(x, y) && x > y; }
template <typename T, typename U>
__host__ __device__ inline bool isgreaterequal(T x, U y) { return !isunordered(x, y) && x >= y; }
template <typename T, typename U>
__host__ __device__ inline bool isless(T x, U y) { return !isunordered(x, y) && x < y; }
template <typename T, typename U>
__host__ __device__ inline bool islessequal(T x, U y) { return !isunordered(x, y) && x <= y; }
template <typename T, typename U>
__host__ __device__ inline bool islessgreater(T x, U y) { return !isunordered(x, y) && x != y; }
}  // namespace std
using std::fpclassify;
using std::isgreater;
using std::isgreaterequal;
using std::isless;
using std::islessequal;
using std::islessgreater;
using std::isnormal;
using std::isunordered;

#endif  // KJUDGE_STD_HEADERS_MATH_H
