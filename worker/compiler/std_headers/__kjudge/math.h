// kjudge std_headers internals: the body of <cmath> and <math.h>.
//
// Contract: NVRTC already declares the CUDA math library in the global namespace (expf, exp,
// fmaxf, isnan, ... for float and double, device side); this adds what a C/C++ math header
// adds on top: the FP_* macros (INFINITY, NAN, HUGE_VAL[F], M_PI... come with every header of
// this folder: math_macros.h), and the std::
// overloads (std::exp, std::fmax, std::abs, std::isinf, std::isnan, std::signbit...) from
// NVRTC's own global functions (using ::exp; ... as libstdc++ does, so `using namespace std;`
// then `exp(x)` is not ambiguous), std::lerp from libcu++, the float-suffixed std::expf...
// spellings, and fpclassify/isnormal/isgreater... (NVRTC lacks them) defined here.
// Not <cuda/std/cmath> nor its isnan/fpclassify pieces: their cuda::std::isnan(float) is a
// second function beside NVRTC's ::isnan(float), and with `using namespace std;` an unqualified
// call would be ambiguous. (cub includes <cuda/std/cmath>: README.md says what that means.)
#ifndef KJUDGE_STD_HEADERS_MATH_H
#define KJUDGE_STD_HEADERS_MATH_H

#include "config.h"
#include <cuda/std/__cmath/lerp.h>

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

// C++'s "additional overloads": an integer argument is a double (std::sqrt(n) with int n), and
// mixed float/double/integer arguments are doubles (std::pow(x, 2.0) with float x). NVRTC has
// only the float and double overloads, so these calls would otherwise be ambiguous. Templates
// lose to NVRTC's exact float/double matches, so they change nothing else.
namespace __kjudge {
template <bool B, typename T = void>
struct enable_if {};
template <typename T>
struct enable_if<true, T> {
  using type = T;
};
template <typename T> struct is_int { static constexpr bool value = false; };
template <> struct is_int<bool> { static constexpr bool value = true; };
template <> struct is_int<char> { static constexpr bool value = true; };
template <> struct is_int<signed char> { static constexpr bool value = true; };
template <> struct is_int<unsigned char> { static constexpr bool value = true; };
template <> struct is_int<short> { static constexpr bool value = true; };
template <> struct is_int<unsigned short> { static constexpr bool value = true; };
template <> struct is_int<int> { static constexpr bool value = true; };
template <> struct is_int<unsigned int> { static constexpr bool value = true; };
template <> struct is_int<long> { static constexpr bool value = true; };
template <> struct is_int<unsigned long> { static constexpr bool value = true; };
template <> struct is_int<long long> { static constexpr bool value = true; };
template <> struct is_int<unsigned long long> { static constexpr bool value = true; };
template <typename T> struct is_arith { static constexpr bool value = is_int<T>::value; };
template <> struct is_arith<float> { static constexpr bool value = true; };
template <> struct is_arith<double> { static constexpr bool value = true; };
// Two arguments of one floating type are NVRTC's own overload; anything else promotes.
template <typename A, typename B>
struct promotes {
  static constexpr bool value = is_arith<A>::value && is_arith<B>::value &&
                                !(!is_int<A>::value && !is_int<B>::value && sizeof(A) == sizeof(B));
};
}  // namespace __kjudge

#define KJUDGE_INT_OVERLOAD(F, R)                                                            \
  template <typename T, typename = typename ::__kjudge::enable_if<::__kjudge::is_int<T>::value>::type> \
  __host__ __device__ inline R F(T x) {                                                      \
    return ::F(static_cast<double>(x));                                                      \
  }
#define KJUDGE_MIXED_OVERLOAD(F)                                                                  \
  template <typename A, typename B,                                                                \
            typename = typename ::__kjudge::enable_if<::__kjudge::promotes<A, B>::value>::type>     \
  __host__ __device__ inline double F(A a, B b) {                                                 \
    return ::F(static_cast<double>(a), static_cast<double>(b));                                  \
  }
namespace std {
KJUDGE_INT_OVERLOAD(acos, double)
KJUDGE_INT_OVERLOAD(acosh, double)
KJUDGE_INT_OVERLOAD(asin, double)
KJUDGE_INT_OVERLOAD(asinh, double)
KJUDGE_INT_OVERLOAD(atan, double)
KJUDGE_INT_OVERLOAD(atanh, double)
KJUDGE_INT_OVERLOAD(cbrt, double)
KJUDGE_INT_OVERLOAD(ceil, double)
KJUDGE_INT_OVERLOAD(cos, double)
KJUDGE_INT_OVERLOAD(cosh, double)
KJUDGE_INT_OVERLOAD(erf, double)
KJUDGE_INT_OVERLOAD(erfc, double)
KJUDGE_INT_OVERLOAD(exp, double)
KJUDGE_INT_OVERLOAD(exp2, double)
KJUDGE_INT_OVERLOAD(expm1, double)
KJUDGE_INT_OVERLOAD(fabs, double)
KJUDGE_INT_OVERLOAD(floor, double)
KJUDGE_INT_OVERLOAD(lgamma, double)
KJUDGE_INT_OVERLOAD(log, double)
KJUDGE_INT_OVERLOAD(log10, double)
KJUDGE_INT_OVERLOAD(log1p, double)
KJUDGE_INT_OVERLOAD(log2, double)
KJUDGE_INT_OVERLOAD(logb, double)
KJUDGE_INT_OVERLOAD(nearbyint, double)
KJUDGE_INT_OVERLOAD(rint, double)
KJUDGE_INT_OVERLOAD(round, double)
KJUDGE_INT_OVERLOAD(sin, double)
KJUDGE_INT_OVERLOAD(sinh, double)
KJUDGE_INT_OVERLOAD(sqrt, double)
KJUDGE_INT_OVERLOAD(tan, double)
KJUDGE_INT_OVERLOAD(tanh, double)
KJUDGE_INT_OVERLOAD(tgamma, double)
KJUDGE_INT_OVERLOAD(trunc, double)
KJUDGE_INT_OVERLOAD(isfinite, bool)
KJUDGE_INT_OVERLOAD(isinf, bool)
KJUDGE_INT_OVERLOAD(isnan, bool)
KJUDGE_INT_OVERLOAD(signbit, bool)
KJUDGE_MIXED_OVERLOAD(atan2)
KJUDGE_MIXED_OVERLOAD(copysign)
KJUDGE_MIXED_OVERLOAD(fdim)
KJUDGE_MIXED_OVERLOAD(fmax)
KJUDGE_MIXED_OVERLOAD(fmin)
KJUDGE_MIXED_OVERLOAD(fmod)
KJUDGE_MIXED_OVERLOAD(hypot)
KJUDGE_MIXED_OVERLOAD(nextafter)
KJUDGE_MIXED_OVERLOAD(pow)
KJUDGE_MIXED_OVERLOAD(remainder)
}  // namespace std
#undef KJUDGE_INT_OVERLOAD
#undef KJUDGE_MIXED_OVERLOAD

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
template <typename T, typename = typename ::__kjudge::enable_if<::__kjudge::is_int<T>::value>::type>
__host__ __device__ inline int fpclassify(T x) {
  return fpclassify(static_cast<double>(x));
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
