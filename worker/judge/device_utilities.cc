#include "worker/judge/device_utilities.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <string>

#include "worker/gpu/str_util.h"
#include "worker/judge/host_values.h"
#include "worker/gpu/runner_error.h"

namespace kjudge::runner {
namespace {

constexpr std::string_view kUtilitySource = R"CUDA(
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

// The key of one input set or of the guards: 8 words, passed by value (secret_key.h).
struct KjKey {
  unsigned int w[8];
};

__device__ __forceinline__ unsigned int kj_rotl(unsigned int v, int n) {
  return __funnelshift_l(v, v, n);
}

#define KJ_QR(a, b, c, d)                              \
  a += b; d = kj_rotl(d ^ a, 16); c += d; b = kj_rotl(b ^ c, 12); \
  a += b; d = kj_rotl(d ^ a, 8);  c += d; b = kj_rotl(b ^ c, 7);

// Block `counter` of ChaCha12 under (key, nonce): the twin of runner::ChaChaBlock
// (worker/gpu/secret_key.cc), same layout, same rounds (KJ_CHACHA_ROUNDS).
__device__ __forceinline__ void kj_chacha(const KjKey& key, unsigned long long counter,
                                          unsigned long long nonce, unsigned int out[16]) {
  const unsigned int s0 = 0x61707865u, s1 = 0x3320646eu, s2 = 0x79622d32u, s3 = 0x6b206574u;
  const unsigned int s12 = (unsigned int)counter, s13 = (unsigned int)(counter >> 32);
  const unsigned int s14 = (unsigned int)nonce, s15 = (unsigned int)(nonce >> 32);
  unsigned int x0 = s0, x1 = s1, x2 = s2, x3 = s3;
  unsigned int x4 = key.w[0], x5 = key.w[1], x6 = key.w[2], x7 = key.w[3];
  unsigned int x8 = key.w[4], x9 = key.w[5], x10 = key.w[6], x11 = key.w[7];
  unsigned int x12 = s12, x13 = s13, x14 = s14, x15 = s15;
#pragma unroll
  for (int r = 0; r < KJ_CHACHA_ROUNDS; r += 2) {
    KJ_QR(x0, x4, x8, x12) KJ_QR(x1, x5, x9, x13) KJ_QR(x2, x6, x10, x14) KJ_QR(x3, x7, x11, x15)
    KJ_QR(x0, x5, x10, x15) KJ_QR(x1, x6, x11, x12) KJ_QR(x2, x7, x8, x13) KJ_QR(x3, x4, x9, x14)
  }
  out[0] = x0 + s0; out[1] = x1 + s1; out[2] = x2 + s2; out[3] = x3 + s3;
  out[4] = x4 + key.w[0]; out[5] = x5 + key.w[1]; out[6] = x6 + key.w[2]; out[7] = x7 + key.w[3];
  out[8] = x8 + key.w[4]; out[9] = x9 + key.w[5]; out[10] = x10 + key.w[6]; out[11] = x11 + key.w[7];
  out[12] = x12 + s12; out[13] = x13 + s13; out[14] = x14 + s14; out[15] = x15 + s15;
}

template <typename T> __device__ __forceinline__ T kj_convert(double v);
template <> __device__ __forceinline__ float kj_convert<float>(double v) { return (float)v; }
template <> __device__ __forceinline__ double kj_convert<double>(double v) { return v; }
template <> __device__ __forceinline__ __half kj_convert<__half>(double v) { return __double2half(v); }
template <> __device__ __forceinline__ __nv_bfloat16 kj_convert<__nv_bfloat16>(double v) {
  return __double2bfloat16(v);
}
template <> __device__ __forceinline__ __nv_fp8_e4m3 kj_convert<__nv_fp8_e4m3>(double v) {
  return __nv_fp8_e4m3(v);
}
template <> __device__ __forceinline__ __nv_fp8_e5m2 kj_convert<__nv_fp8_e5m2>(double v) {
  return __nv_fp8_e5m2(v);
}
template <typename T>
__device__ __forceinline__ T kj_int(double v, double lo, double hi) {
  v = rint(v);
  v = v < lo ? lo : (v > hi ? hi : v);
  return (T)v;
}
template <> __device__ __forceinline__ int kj_convert<int>(double v) {
  return kj_int<int>(v, -2147483648.0, 2147483647.0);
}
template <> __device__ __forceinline__ long long kj_convert<long long>(double v) {
  return kj_int<long long>(v, -9.2233720368547748e18, 9.2233720368547748e18);
}
template <> __device__ __forceinline__ signed char kj_convert<signed char>(double v) {
  return kj_int<signed char>(v, -128.0, 127.0);
}
template <> __device__ __forceinline__ unsigned char kj_convert<unsigned char>(double v) {
  return kj_int<unsigned char>(v, 0.0, 255.0);
}

template <typename T> __device__ __forceinline__ T kj_convert_f(float v) { return (T)v; }
template <> __device__ __forceinline__ __half kj_convert_f<__half>(float v) {
  return __float2half_rn(v);
}
template <> __device__ __forceinline__ __nv_bfloat16 kj_convert_f<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}
template <> __device__ __forceinline__ __nv_fp8_e4m3 kj_convert_f<__nv_fp8_e4m3>(float v) {
  return __nv_fp8_e4m3(v);
}
template <> __device__ __forceinline__ __nv_fp8_e5m2 kj_convert_f<__nv_fp8_e5m2>(float v) {
  return __nv_fp8_e5m2(v);
}

// One keystream block per thread makes kKjPer<kFloatMath> values (a Box-Muller pair from two
// uniforms): float math takes 24 bits per uniform from one word (16 values a block), double
// math 53 bits from two words (8 values a block); element e is value e % per of block e / per,
// whatever the launch configuration. A block's values are staged in shared memory and stored
// coalesced.
__device__ __forceinline__ float kj_sqrt(float x) { return sqrtf(x); }
__device__ __forceinline__ double kj_sqrt(double x) { return sqrt(x); }
__device__ __forceinline__ float kj_log(float x) { return logf(x); }
__device__ __forceinline__ double kj_log(double x) { return log(x); }
__device__ __forceinline__ void kj_sincospi(float x, float* s, float* c) { sincospif(x, s, c); }
__device__ __forceinline__ void kj_sincospi(double x, double* s, double* c) { sincospi(x, s, c); }
__device__ __forceinline__ float kj_rint(float x) { return rintf(x); }
__device__ __forceinline__ double kj_rint(double x) { return rint(x); }
__device__ __forceinline__ float kj_abs(float x) { return fabsf(x); }
__device__ __forceinline__ double kj_abs(double x) { return fabs(x); }

// Two values from the uniforms u1 in (0, 1] and u2 in [0, 1) (`step` = their resolution):
// normal (dist 0): a + b * sqrt(-2 ln u1) * (cos, sin)(2 pi u2); uniform: a + (b - a) *
// (u1 - step, u2).
template <typename R>
__device__ __forceinline__ void kj_pair(R u1, R u2, R step, int dist, R a, R b, R* v0, R* v1) {
  if (dist == 0) {
    const R r = kj_sqrt(R(-2) * kj_log(u1));
    R sn, cs;
    kj_sincospi(R(2) * u2, &sn, &cs);
    *v0 = a + b * r * cs;
    *v1 = a + b * r * sn;
  } else {
    *v0 = a + (b - a) * (u1 - step);
    *v1 = a + (b - a) * u2;
  }
}

// The input regime (common/input_regime.h; the numbering is InputRegime's), applied in
// registers to a drawn value v after the draw and before the conversion: 0 declared v,
// 1 offset v + 32 sigma, 2 large 100 v, 3 ties q rint(v / q) with q = sigma / 2 (v when q is
// 0), 4 zeros 0 when `zero_bit` is set else v, 5 positive |v|, 6 negative -|v|. The regime is
// the same for the whole launch, so the switch never diverges.
template <typename R>
__device__ __forceinline__ R kj_regime(R v, int regime, R sigma, unsigned int zero_bit) {
  switch (regime) {
    case 1: return v + R(32) * sigma;
    case 2: return v * R(100);
    case 3: {
      const R q = sigma * R(0.5);
      return q > R(0) ? q * kj_rint(v / q) : v;
    }
    case 4: return zero_bit ? R(0) : v;
    case 5: return kj_abs(v);
    case 6: return -kj_abs(v);
    default: return v;
  }
}

template <bool kFloatMath> struct KjPer { static constexpr int value = kFloatMath ? 16 : 8; };
// Integer element types never take a regime (EffectiveRegime): their kernels compile without it.
template <typename T> struct KjIsInt { static constexpr bool value = false; };
template <> struct KjIsInt<int> { static constexpr bool value = true; };
template <> struct KjIsInt<long long> { static constexpr bool value = true; };
template <> struct KjIsInt<signed char> { static constexpr bool value = true; };
template <> struct KjIsInt<unsigned char> { static constexpr bool value = true; };
constexpr int kKjFillThreads = 256;

// `regime` and `sigma` (the init's std, scaled) as kj_regime takes them; the zero bit of
// float-math value 2p (2p + 1) is bit 0 of w[2p] (w[2p + 1]), whose uniform uses only w >> 8;
// of double-math value 2p (2p + 1), bit 0 of w[4p] (w[4p + 2]), whose uniform uses only
// h >> 11.
template <typename T, bool kFloatMath>
__device__ void kj_fill(T* out, long long n, KjKey key, unsigned int tensor, int dist, double a,
                        double b, int regime_arg, double sigma) {
  constexpr int per = KjPer<kFloatMath>::value;
  const int regime = KjIsInt<T>::value ? 0 : regime_arg;
  // Raw bytes: __shared__ arrays of class types (half, bf16, fp8) are not allowed an initialiser.
  __shared__ __align__(16) unsigned char raw[kKjFillThreads * per * sizeof(T)];
  T* tile = reinterpret_cast<T*>(raw);
  const unsigned long long nonce = (1ull << 32) | tensor;  // KeyNonce(kInputs, tensor)
  const long long tile_elems = (long long)kKjFillThreads * per;
  const long long tiles = (n + tile_elems - 1) / tile_elems;
  const float af = (float)a, bf = (float)b, sf = (float)sigma;
  for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
    const long long block_index = t * kKjFillThreads + threadIdx.x;
    unsigned int w[16];
    kj_chacha(key, (unsigned long long)block_index, nonce, w);
    T* mine = tile + threadIdx.x * per;
    if (kFloatMath) {
#pragma unroll
      for (int p = 0; p < 8; ++p) {
        float v0, v1;
        kj_pair<float>((float)((w[2 * p] >> 8) + 1u) * (1.0f / 16777216.0f),  // (0, 1]
                       (float)(w[2 * p + 1] >> 8) * (1.0f / 16777216.0f),     // [0, 1)
                       1.0f / 16777216.0f, dist, af, bf, &v0, &v1);
        mine[2 * p] = kj_convert_f<T>(kj_regime<float>(v0, regime, sf, w[2 * p] & 1u));
        mine[2 * p + 1] = kj_convert_f<T>(kj_regime<float>(v1, regime, sf, w[2 * p + 1] & 1u));
      }
    } else {
#pragma unroll
      for (int p = 0; p < 4; ++p) {
        const unsigned long long h1 = ((unsigned long long)w[4 * p + 1] << 32) | w[4 * p];
        const unsigned long long h2 = ((unsigned long long)w[4 * p + 3] << 32) | w[4 * p + 2];
        double v0, v1;
        kj_pair<double>((double)((h1 >> 11) + 1ull) * (1.0 / 9007199254740992.0),  // (0, 1]
                        (double)(h2 >> 11) * (1.0 / 9007199254740992.0),           // [0, 1)
                        1.0 / 9007199254740992.0, dist, a, b, &v0, &v1);
        mine[2 * p] = kj_convert<T>(kj_regime<double>(v0, regime, sigma, w[4 * p] & 1u));
        mine[2 * p + 1] = kj_convert<T>(kj_regime<double>(v1, regime, sigma, w[4 * p + 2] & 1u));
      }
    }
    __syncthreads();
    const long long first = t * tile_elems;
    const long long count = min(tile_elems, n - first);
    for (long long j = threadIdx.x; j < count; j += kKjFillThreads) out[first + j] = tile[j];
    __syncthreads();
  }
}

// min_blocks (blocks of 256 threads an SM) bounds registers: float math 8 (32 registers, full
// occupancy), integers 6 (40), f64 5 (46): the register counts before regimes (f64: 40), no
// spills on sm_90 (nvcc -Xptxas -v; f64 at 6 spills; sm_100 float math spills 4 bytes).
#define KJ_FILL(suffix, T, float_math, min_blocks)                                            \
  extern "C" __global__ void __launch_bounds__(kKjFillThreads, min_blocks)                    \
      kj_fill_##suffix(T* out, long long n, KjKey key, unsigned int tensor, int dist, double a, \
                       double b, int regime, double sigma) {                                  \
    kj_fill<T, float_math>(out, n, key, tensor, dist, a, b, regime, sigma);                   \
  }
KJ_FILL(f32, float, true, 8)
KJ_FILL(f64, double, false, 5)
KJ_FILL(f16, __half, true, 8)
KJ_FILL(bf16, __nv_bfloat16, true, 8)
KJ_FILL(i32, int, false, 6)
KJ_FILL(i64, long long, false, 6)
KJ_FILL(i8, signed char, false, 6)
KJ_FILL(u8, unsigned char, false, 6)
KJ_FILL(fp8_e4m3, __nv_fp8_e4m3, true, 8)
KJ_FILL(fp8_e5m2, __nv_fp8_e5m2, true, 8)

// Counts the bytes where a and b differ (the judge's byte-for-byte input check): 16 bytes per
// load when both are 16-byte aligned (__vcmpne4 sets 0xFF in each differing byte), then bytes.
extern "C" __global__ void kj_bytes_differ(const unsigned char* a, const unsigned char* b,
                                           unsigned long long bytes, unsigned long long* out) {
  const unsigned long long first = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  unsigned long long differ = 0, head = 0;
  if (((reinterpret_cast<unsigned long long>(a) | reinterpret_cast<unsigned long long>(b)) &
       15ull) == 0ull) {
    const uint4* a4 = reinterpret_cast<const uint4*>(a);
    const uint4* b4 = reinterpret_cast<const uint4*>(b);
    const unsigned long long nv = bytes / 16ull;
    unsigned long long bits = 0;
    for (unsigned long long v = first; v < nv; v += stride) {
      const uint4 x = a4[v], y = b4[v];
      bits += __popc(__vcmpne4(x.x, y.x)) + __popc(__vcmpne4(x.y, y.y)) +
              __popc(__vcmpne4(x.z, y.z)) + __popc(__vcmpne4(x.w, y.w));
    }
    differ = bits / 8ull;
    head = nv * 16ull;
  }
  for (unsigned long long j = head + first; j < bytes; j += stride) {
    differ += a[j] != b[j] ? 1ull : 0ull;
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    differ += __shfl_down_sync(0xffffffffu, differ, offset);
  }
  if ((threadIdx.x & 31u) == 0u && differ != 0ull) atomicAdd(out, differ);
}

// Guard bands (guard_bands.h): one block per region, regions[2r] = address, regions[2r + 1] =
// length; the byte at address a must be byte a % 64 of keystream block a / 64 under the guard
// key (nonce KeyNonce(kGuards, 0)). Each thread takes whole 64-byte blocks.
// out[3r .. 3r + 2]: modified bytes, first and last modified offset from the region's start
// (the host reads those only when count > 0).
extern "C" __global__ void kj_guard_check(const unsigned long long* regions, KjKey key,
                                          unsigned long long* out) {
  const unsigned long long base = regions[2ull * blockIdx.x];
  const unsigned long long len = regions[2ull * blockIdx.x + 1ull];
  const unsigned char* p = reinterpret_cast<const unsigned char*>(base);
  const unsigned long long nonce = 2ull << 32;  // KeyNonce(kGuards, 0)
  unsigned long long count = 0, first = ~0ull, last = 0;
  const unsigned long long first_block = base / 64ull, end_block = (base + len + 63ull) / 64ull;
  for (unsigned long long blk = first_block + threadIdx.x; blk < end_block; blk += blockDim.x) {
    unsigned int w[16];
    kj_chacha(key, blk, nonce, w);
    for (unsigned int k = 0; k < 64u; ++k) {
      const unsigned long long a = blk * 64ull + k;
      if (a < base || a >= base + len) continue;
      const unsigned long long j = a - base;
      if (p[j] != (unsigned char)(w[k / 4u] >> (8u * (k % 4u)))) {
        ++count; first = min(first, j); last = max(last, j);
      }
    }
  }
  for (int o = 16; o > 0; o /= 2) {
    count += __shfl_down_sync(0xffffffffu, count, o);
    first = min(first, __shfl_down_sync(0xffffffffu, first, o));
    last = max(last, __shfl_down_sync(0xffffffffu, last, o));
  }
  if ((threadIdx.x & 31u) == 0u && count > 0ull) {
    unsigned long long* r = out + 3ull * blockIdx.x;
    atomicAdd(&r[0], count);
    atomicMin(&r[1], first);
    atomicMax(&r[2], last);
  }
}
template <typename T> __device__ __forceinline__ double kj_to_double(T v) { return (double)v; }
template <> __device__ __forceinline__ double kj_to_double<__half>(__half v) { return (double)__half2float(v); }
template <> __device__ __forceinline__ double kj_to_double<__nv_bfloat16>(__nv_bfloat16 v) {
  return (double)__bfloat162float(v);
}
template <> __device__ __forceinline__ double kj_to_double<__nv_fp8_e4m3>(__nv_fp8_e4m3 v) {
  return (double)(float)v;
}
template <> __device__ __forceinline__ double kj_to_double<__nv_fp8_e5m2>(__nv_fp8_e5m2 v) {
  return (double)(float)v;
}

// stats: [0] mismatches, [1] unwritten, [2] non-finite (sums); [3] first bad index (min);
// [4] max |diff| as the bits of a non-negative double (max); over written elements finite in
// both: [5]/[6] min/max of out and [7]/[8] min/max of ref as order-preserving keys
// (kj_order_key), [9]/[10] max |out| / max |ref| as bits (max). sums: [0] diff^2, [1] ref^2.
#define KJ_STATS 11
__device__ __forceinline__ unsigned long long kj_order_key(double v) {
  const unsigned long long b = (unsigned long long)__double_as_longlong(v);
  return (b >> 63) ? ~b : (b | 0x8000000000000000ull);
}
__device__ __forceinline__ int kj_stat_op(int s) {  // 0 sum, 1 min, 2 max
  return s < 3 ? 0 : ((s == 3 || s == 5 || s == 7) ? 1 : 2);
}
__device__ __forceinline__ unsigned long long kj_stat_combine(int s, unsigned long long a,
                                                              unsigned long long b) {
  const int op = kj_stat_op(s);
  return op == 0 ? a + b : (op == 1 ? (a < b ? a : b) : (a > b ? a : b));
}

// Warp shuffles, then the block's warps in shared memory, then one thread's atomics: one set of
// atomics per block, not per warp. Every thread of the block must call it.
__device__ void kj_publish(unsigned long long (&u)[KJ_STATS], double (&d)[2],
                           unsigned long long* stats, double* sums) {
  __shared__ unsigned long long su[32][KJ_STATS];
  __shared__ double sd[32][2];
  for (int o = 16; o > 0; o /= 2) {
#pragma unroll
    for (int s = 0; s < KJ_STATS; ++s) {
      u[s] = kj_stat_combine(s, u[s], __shfl_down_sync(0xffffffffu, u[s], o));
    }
    d[0] += __shfl_down_sync(0xffffffffu, d[0], o);
    d[1] += __shfl_down_sync(0xffffffffu, d[1], o);
  }
  const unsigned int warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
  if (lane == 0u) {
#pragma unroll
    for (int s = 0; s < KJ_STATS; ++s) su[warp][s] = u[s];
    sd[warp][0] = d[0];
    sd[warp][1] = d[1];
  }
  __syncthreads();
  if (threadIdx.x != 0u) return;
  const unsigned int warps = (blockDim.x + 31u) >> 5;
  for (unsigned int w = 1; w < warps; ++w) {
#pragma unroll
    for (int s = 0; s < KJ_STATS; ++s) u[s] = kj_stat_combine(s, u[s], su[w][s]);
    d[0] += sd[w][0];
    d[1] += sd[w][1];
  }
#pragma unroll
  for (int s = 0; s < KJ_STATS; ++s) {
    const int op = kj_stat_op(s);
    if (op == 0) atomicAdd(&stats[s], u[s]);
    else if (op == 1) atomicMin(&stats[s], u[s]);
    else atomicMax(&stats[s], u[s]);
  }
  atomicAdd(&sums[0], d[0]);
  atomicAdd(&sums[1], d[1]);
}

// `poison`: the output tensor's secret element pattern (host_values.h) in its low sizeof(T)
// bytes; an element whose bytes equal it is unwritten.
template <typename T>
__device__ __forceinline__ void kj_compare_one(T ov, T rv, unsigned long long i, double atol,
                                               double rtol, unsigned long long poison,
                                               unsigned long long (&u)[KJ_STATS],
                                               double (&d)[2]) {
  const unsigned char* bytes = reinterpret_cast<const unsigned char*>(&ov);
  unsigned long long bits = 0ull;
#pragma unroll
  for (int b = 0; b < (int)sizeof(T); ++b) bits |= (unsigned long long)bytes[b] << (8 * b);
  if (bits == poison) { ++u[1]; u[3] = min(u[3], i); return; }
  const double a = kj_to_double<T>(ov);
  const double e = kj_to_double<T>(rv);
  if (!isfinite(a) || !isfinite(e)) {
    ++u[2]; ++u[0]; u[3] = min(u[3], i); return;
  }
  const double diff = fabs(a - e);
  u[4] = max(u[4], (unsigned long long)__double_as_longlong(diff));
  d[0] += diff * diff;
  d[1] += e * e;
  if (!(diff <= atol + rtol * fabs(e))) { ++u[0]; u[3] = min(u[3], i); }
  const unsigned long long ka = kj_order_key(a), ke = kj_order_key(e);
  u[5] = min(u[5], ka);
  u[6] = max(u[6], ka);
  u[7] = min(u[7], ke);
  u[8] = max(u[8], ke);
  u[9] = max(u[9], (unsigned long long)__double_as_longlong(fabs(a)));
  u[10] = max(u[10], (unsigned long long)__double_as_longlong(fabs(e)));
}

// 16 bytes of each side per load when both are 16-byte aligned (the data pointers of guarded
// buffers are), so enough bytes are in flight to run near memory bandwidth; a scalar tail.
template <typename T>
__device__ void kj_compare(const T* out, const T* ref, long long n, double atol, double rtol,
                           unsigned long long poison, unsigned long long* stats, double* sums) {
  // Identities: 0 for sums and maxima (key 0 is below every double's key), ~0 for minima.
  unsigned long long u[KJ_STATS] = {0, 0, 0, ~0ull, 0, ~0ull, 0, ~0ull, 0, 0, 0};
  double d[2] = {0.0, 0.0};
  const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long stride = (long long)gridDim.x * blockDim.x;
  constexpr int kPer = 16 / (int)sizeof(T);
  long long head = 0;
  if (((reinterpret_cast<unsigned long long>(out) | reinterpret_cast<unsigned long long>(ref)) &
       15ull) == 0ull) {
    const uint4* o4 = reinterpret_cast<const uint4*>(out);
    const uint4* r4 = reinterpret_cast<const uint4*>(ref);
    const long long nv = n / kPer;
    for (long long v = first; v < nv; v += stride) {
      const uint4 ow = o4[v], rw = r4[v];
      const T* ot = reinterpret_cast<const T*>(&ow);
      const T* rt = reinterpret_cast<const T*>(&rw);
#pragma unroll
      for (int k = 0; k < kPer; ++k) {
        kj_compare_one<T>(ot[k], rt[k], (unsigned long long)(v * kPer + k), atol, rtol, poison,
                          u, d);
      }
    }
    head = nv * kPer;
  }
  for (long long i = head + first; i < n; i += stride) {
    kj_compare_one<T>(out[i], ref[i], (unsigned long long)i, atol, rtol, poison, u, d);
  }
  kj_publish(u, d, stats, sums);
}

#define KJ_COMPARE(suffix, T)                                                                 \
  extern "C" __global__ void kj_compare_##suffix(const T* out, const T* ref, long long n,     \
                                                 double atol, double rtol,                    \
                                                 unsigned long long poison,                   \
                                                 unsigned long long* stats, double* sums) {   \
    kj_compare<T>(out, ref, n, atol, rtol, poison, stats, sums);                              \
  }
KJ_COMPARE(f32, float)
KJ_COMPARE(f64, double)
KJ_COMPARE(f16, __half)
KJ_COMPARE(bf16, __nv_bfloat16)
KJ_COMPARE(i32, int)
KJ_COMPARE(i64, long long)
KJ_COMPARE(i8, signed char)
KJ_COMPARE(u8, unsigned char)
KJ_COMPARE(fp8_e4m3, __nv_fp8_e4m3)
KJ_COMPARE(fp8_e5m2, __nv_fp8_e5m2)

// Output poisoning: every element of `out` (n elements of 2, 4 or 8 bytes) set to `pattern`,
// the tensor's secret poison (host_values.h); 1-byte dtypes use a memset.
#define KJ_POISON(suffix, T)                                                                  \
  extern "C" __global__ void kj_poison_##suffix(T* out, long long n, T pattern) {            \
    const long long stride = (long long)gridDim.x * blockDim.x;                              \
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) \
      out[i] = pattern;                                                                       \
  }
KJ_POISON(u16, unsigned short)
KJ_POISON(u32, unsigned int)
KJ_POISON(u64, unsigned long long)

// Input transforms (InitSpec::Transform), run in place right after kj_fill on the same stream.
// Each is a deterministic function of the drawn values: softmax reduces with a fixed tree over
// a fixed block size (kj_softmax must be launched with 256 threads), the others are
// elementwise, so inputs stay a function of (seed, tensor, index).

// Softmax along the last dim (rows of `cols` elements), in double: one block per row
// (grid-stride over rows).
template <typename T>
__device__ void kj_softmax(T* x, long long rows, long long cols) {
  __shared__ double red[256];
  const unsigned int t = threadIdx.x;
  for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
    T* row = x + r * cols;
    double m = -__longlong_as_double(0x7ff0000000000000ll);  // -inf (no math.h in NVRTC)
    for (long long c = t; c < cols; c += blockDim.x) m = fmax(m, kj_to_double<T>(row[c]));
    red[t] = m;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s /= 2) {
      if (t < s) red[t] = fmax(red[t], red[t + s]);
      __syncthreads();
    }
    m = red[0];
    __syncthreads();
    double sum = 0.0;
    for (long long c = t; c < cols; c += blockDim.x) sum += exp(kj_to_double<T>(row[c]) - m);
    red[t] = sum;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s /= 2) {
      if (t < s) red[t] += red[t + s];
      __syncthreads();
    }
    sum = red[0];
    __syncthreads();  // every thread has read red[0] before the next row overwrites it
    for (long long c = t; c < cols; c += blockDim.x) {
      row[c] = kj_convert<T>(exp(kj_to_double<T>(row[c]) - m) / sum);
    }
  }
}

// tril (upper = 0): zero where col > row; triu (upper = 1): zero where col < row, over the
// last two dims (rows x cols matrices, n elements in all).
template <typename T>
__device__ void kj_triangle(T* x, long long n, long long rows, long long cols, int upper) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const long long c = i % cols, r = (i / cols) % rows;
    if (upper ? c < r : c > r) x[i] = kj_convert<T>(0.0);
  }
}

// (A + A^T) / 2 over the last two dims (square, side `side`): the thread of the element above
// the diagonal writes the pair, so each pair is written once and stays exactly equal.
template <typename T>
__device__ void kj_symmetric(T* x, long long n, long long side) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const long long c = i % side, r = (i / side) % side;
    if (c <= r) continue;
    const long long j = i + (c - r) * (side - 1);  // (r, c) -> (c, r), same matrix
    const T v = kj_convert<T>(0.5 * (kj_to_double<T>(x[i]) + kj_to_double<T>(x[j])));
    x[i] = v;
    x[j] = v;
  }
}

// sign: +1 where the value is >= 0, else -1 (a two-point input from a symmetric draw).
template <typename T>
__device__ void kj_sign(T* x, long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    x[i] = kj_convert<T>(kj_to_double<T>(x[i]) >= 0.0 ? 1.0 : -1.0);
  }
}

#define KJ_TRANSFORM(suffix, T)                                                                 \
  extern "C" __global__ void kj_softmax_##suffix(T* x, long long rows, long long cols) {        \
    kj_softmax<T>(x, rows, cols);                                                               \
  }                                                                                             \
  extern "C" __global__ void kj_triangle_##suffix(T* x, long long n, long long rows,             \
                                                  long long cols, int upper) {                  \
    kj_triangle<T>(x, n, rows, cols, upper);                                                    \
  }                                                                                             \
  extern "C" __global__ void kj_symmetric_##suffix(T* x, long long n, long long side) {         \
    kj_symmetric<T>(x, n, side);                                                                \
  }                                                                                             \
  extern "C" __global__ void kj_sign_##suffix(T* x, long long n) { kj_sign<T>(x, n); }
KJ_TRANSFORM(f32, float)
KJ_TRANSFORM(f64, double)
KJ_TRANSFORM(f16, __half)
KJ_TRANSFORM(bf16, __nv_bfloat16)
KJ_TRANSFORM(fp8_e4m3, __nv_fp8_e4m3)
KJ_TRANSFORM(fp8_e5m2, __nv_fp8_e5m2)
)CUDA";

std::string FillKernelName(DType dtype) { return Cat("kj_fill_", DTypeName(dtype)); }
std::string CompareKernelName(DType dtype) { return Cat("kj_compare_", DTypeName(dtype)); }
// The kernel that applies `transform` (not kNone) to a float tensor of `dtype`.
std::string TransformKernelName(InitSpec::Transform transform, DType dtype) {
  switch (transform) {
    case InitSpec::Transform::kSoftmax: return Cat("kj_softmax_", DTypeName(dtype));
    case InitSpec::Transform::kSymmetric: return Cat("kj_symmetric_", DTypeName(dtype));
    case InitSpec::Transform::kSign: return Cat("kj_sign_", DTypeName(dtype));
    default: return Cat("kj_triangle_", DTypeName(dtype));
  }
}

// The compare kernel's reduction slots, as laid out on the device (see kj_compare).
constexpr int kCompareStats = 11;
struct CompareSlots {
  uint64_t stats[kCompareStats];
  double sums[2];
};
static_assert(sizeof(CompareSlots) == 8 * (kCompareStats + 2));
constexpr size_t kSlotBytes = 256;  // the comparison's slots and the checksum's
static_assert(sizeof(CompareSlots) <= kSlotBytes);

CompareSlots InitialCompareSlots() {
  constexpr uint64_t kNone = ~uint64_t{0};  // identity of the minima
  return CompareSlots{{0, 0, 0, kNone, 0, kNone, 0, kNone, 0, 0, 0}, {0.0, 0.0}};
}

double FromBits(uint64_t bits) {
  double v = 0.0;
  std::memcpy(&v, &bits, sizeof(v));
  return v;
}

// Inverse of the kernel's kj_order_key.
double FromOrderKey(uint64_t key) {
  constexpr uint64_t kSign = uint64_t{1} << 63U;
  return FromBits((key & kSign) != 0 ? key & ~kSign : ~key);
}

DeviceComparison DecodeCompareSlots(const CompareSlots& s, int64_t count) {
  DeviceComparison c;
  c.mismatches = static_cast<int64_t>(s.stats[0]);
  c.unwritten = static_cast<int64_t>(s.stats[1]);
  c.nonfinite = static_cast<int64_t>(s.stats[2]);
  c.first_bad = s.stats[3] == ~uint64_t{0} ? -1 : static_cast<int64_t>(s.stats[3]);
  c.max_abs_error = FromBits(s.stats[4]);
  c.diff_sq = s.sums[0];
  c.ref_sq = s.sums[1];
  // Every element is exactly one of unwritten, non-finite (in either) or compared.
  c.spread.count = count - c.unwritten - c.nonfinite;
  if (c.spread.count > 0) {
    c.spread.out_min = FromOrderKey(s.stats[5]);
    c.spread.out_max = FromOrderKey(s.stats[6]);
    c.spread.ref_min = FromOrderKey(s.stats[7]);
    c.spread.ref_max = FromOrderKey(s.stats[8]);
    c.spread.out_max_abs = FromBits(s.stats[9]);
    c.spread.ref_max_abs = FromBits(s.stats[10]);
    c.spread.ref_sum_sq = c.ref_sq;
  }
  return c;
}

// The fill kernels' element type does its arithmetic in float (kj_fill's kFloatMath).
bool UsesFloatMath(DType dtype) {
  switch (dtype) {
    case DType::kF32: case DType::kF16: case DType::kBF16: case DType::kFP8E4M3:
    case DType::kFP8E5M2:
      return true;
    default:
      return false;
  }
}

// The std of a (scaled) init: b for normal, (b - a) / sqrt(12) for uniform; kj_fill's sigma.
double InitStd(const InitSpec& init) {
  return init.dist == InitSpec::Dist::kNormal ? init.b : (init.b - init.a) / std::sqrt(12.0);
}

unsigned int BlocksFor(int64_t work, unsigned int threads) {
  const int64_t blocks = (work + threads - 1) / threads;
  return static_cast<unsigned int>(std::clamp<int64_t>(blocks, 1, 8192));
}

}  // namespace

InputRegime EffectiveRegime(InputRegime regime, DType dtype, const InitSpec& init) {
  return DTypeIsFloat(dtype) && init.scalable ? regime : InputRegime::kDeclared;
}

std::string DeviceUtilities::Source() {
  return Cat("#define KJ_CHACHA_ROUNDS ", kChaChaRounds, "\n", kUtilitySource);
}

std::vector<std::string> DeviceUtilities::KernelNames() {
  std::vector<std::string> names = {"kj_guard_check", "kj_bytes_differ", "kj_poison_u16",
                                     "kj_poison_u32", "kj_poison_u64"};
  for (DType d : {DType::kF32, DType::kF16, DType::kBF16, DType::kF64, DType::kI32, DType::kI64,
                  DType::kU8, DType::kI8, DType::kFP8E4M3, DType::kFP8E5M2}) {
    names.push_back(FillKernelName(d));
    names.push_back(CompareKernelName(d));
    if (!DTypeIsFloat(d)) continue;
    for (InitSpec::Transform t : {InitSpec::Transform::kSoftmax, InitSpec::Transform::kTril,
                                  InitSpec::Transform::kSymmetric, InitSpec::Transform::kSign}) {
      names.push_back(TransformKernelName(t, d));  // kTril and kTriu share kj_triangle
    }
  }
  return names;
}

absl::StatusOr<DeviceUtilities> DeviceUtilities::Create(std::string_view arch,
                                                        const CubinCache& cache) {
  CompileRequest request;
  request.source = Source();
  request.program_name = "kjudge_utilities.cu";
  request.arch = std::string(arch);
  request.name_expressions = KernelNames();
  KJ_ASSIGN_OR_RETURN(CompileOutcome outcome, CompileCached(request, cache));
  if (!outcome.success) {
    return MakeRunnerError(v1::INTERNAL_ERROR,
                           Cat("utility kernels failed to compile: ", outcome.log));
  }
  KJ_ASSIGN_OR_RETURN(CudaModule module, CudaModule::Load(outcome.program));
  KJ_ASSIGN_OR_RETURN(DeviceBuffer slot, DeviceBuffer::Allocate(kSlotBytes, "reduction slots"));
  return DeviceUtilities(std::move(module), std::move(slot));
}

absl::Status DeviceUtilities::FillRandom(void* ptr, DType dtype, int64_t count,
                                         const SecretKey& key, uint32_t tensor_index,
                                         const InitSpec& init, cudaStream_t stream,
                                         InputRegime regime) {
  KJ_ASSIGN_OR_RETURN(cudaKernel_t kernel, module_.Kernel(FillKernelName(dtype)));
  long long n = count;
  std::array<uint32_t, 8> k = key.words;  // the kernel's KjKey, by value
  unsigned int t = tensor_index;
  const InitSpec scaled = ScaledInit(init, dtype, input_scale_);
  int dist = scaled.dist == InitSpec::Dist::kNormal ? 0 : 1;
  double a = scaled.a;
  double b = scaled.b;
  int regime_arg = static_cast<int>(EffectiveRegime(regime, dtype, init));
  double sigma = InitStd(scaled);
  void* args[] = {&ptr, &n, k.data(), &t, &dist, &a, &b, &regime_arg, &sigma};
  // kj_fill: kFillThreads threads, each one keystream block of 16 (float math) or 8 values.
  constexpr unsigned int kFillThreads = 256;
  const int64_t per_block = kFillThreads * (UsesFloatMath(dtype) ? 16 : 8);
  const int64_t tiles = (count + per_block - 1) / per_block;
  KJ_RETURN_IF_ERROR(CudaStatus(cudaLaunchKernel(KernelFunc(kernel),
                                                 dim3(BlocksFor(tiles * kFillThreads, kFillThreads)),
                                                 dim3(kFillThreads), args, 0, stream),
                                "input generation launch"));
  return CudaStatus(cudaGetLastError(), "input generation launch");
}

absl::Status DeviceUtilities::ApplyTransform(void* ptr, DType dtype, int64_t count,
                                             int64_t rows, int64_t cols,
                                             InitSpec::Transform transform,
                                             cudaStream_t stream) {
  if (transform == InitSpec::Transform::kNone || count == 0) return absl::OkStatus();
  if (!DTypeIsFloat(dtype) || rows < 1 || cols < 1 ||
      (transform == InitSpec::Transform::kSymmetric && rows != cols)) {
    return MakeRunnerError(v1::INTERNAL_ERROR,
                           Cat("input transform '", TransformName(transform), "' on a ",
                               DTypeName(dtype), " tensor of ", rows, " x ", cols,
                               " matrices: the spec parser should have rejected it"));
  }
  KJ_ASSIGN_OR_RETURN(cudaKernel_t kernel, module_.Kernel(TransformKernelName(transform, dtype)));
  long long n = count;
  long long r = rows;
  long long c = cols;
  int upper = transform == InitSpec::Transform::kTriu ? 1 : 0;
  constexpr unsigned int kThreads = 256;  // kj_softmax's reduction assumes exactly this
  // Softmax runs over every row of the tensor (count / cols of them, all leading dims), not
  // only the `rows` of one matrix: a [batch, heads, dim] input has batch * heads rows.
  long long softmax_rows = count / cols;
  void* softmax_args[] = {&ptr, &softmax_rows, &c};
  void* triangle_args[] = {&ptr, &n, &r, &c, &upper};
  void* symmetric_args[] = {&ptr, &n, &c};
  void* sign_args[] = {&ptr, &n};
  void** args = transform == InitSpec::Transform::kSoftmax     ? softmax_args
                : transform == InitSpec::Transform::kSymmetric ? symmetric_args
                : transform == InitSpec::Transform::kSign      ? sign_args
                                                               : triangle_args;
  // Softmax: one block per row (count / cols rows); the others: one thread per element.
  const int64_t work = transform == InitSpec::Transform::kSoftmax ? (count / cols) * kThreads
                                                                  : count;
  KJ_RETURN_IF_ERROR(CudaStatus(cudaLaunchKernel(KernelFunc(kernel),
                                                 dim3(BlocksFor(work, kThreads)), dim3(kThreads),
                                                 args, 0, stream),
                                "input transform launch"));
  return CudaStatus(cudaGetLastError(), "input transform launch");
}

absl::Status DeviceUtilities::Poison(void* ptr, const PoisonPattern& poison, int64_t count,
                                     cudaStream_t stream) {
  const size_t size = DTypeSize(poison.dtype);
  if (size == 1) {
    return CudaStatus(cudaMemsetAsync(ptr, static_cast<int>(poison.bits & 0xFFU),
                                      static_cast<size_t>(count), stream),
                      "poison memset");
  }
  const char* kernel_name = size == 2   ? "kj_poison_u16"
                            : size == 4 ? "kj_poison_u32"
                                        : "kj_poison_u64";
  KJ_ASSIGN_OR_RETURN(cudaKernel_t kernel, module_.Kernel(kernel_name));
  if (count == 0) return absl::OkStatus();
  // The pattern as the kernel's T parameter: its low `size` bytes (little-endian).
  unsigned char pattern[8] = {};
  std::memcpy(pattern, &poison.bits, sizeof(pattern));
  void* out = ptr;
  long long n = count;
  void* args[] = {&out, &n, pattern};
  constexpr unsigned int kThreads = 256;
  KJ_RETURN_IF_ERROR(CudaStatus(cudaLaunchKernel(KernelFunc(kernel),
                                                 dim3(BlocksFor(count, kThreads)), dim3(kThreads),
                                                 args, 0, stream),
                                "poison launch"));
  return CudaStatus(cudaGetLastError(), "poison launch");
}

absl::StatusOr<uint64_t> DeviceUtilities::DifferingBytes(const void* a, const void* b,
                                                         size_t bytes, cudaStream_t stream) {
  KJ_ASSIGN_OR_RETURN(cudaKernel_t kernel, module_.Kernel("kj_bytes_differ"));
  KJ_RETURN_IF_ERROR(CudaStatus(cudaMemsetAsync(slot_.get(), 0, 8, stream), "compare reset"));
  unsigned long long n = bytes;
  void* out = slot_.get();
  void* args[] = {&a, &b, &n, &out};
  constexpr unsigned int kThreads = 256;
  KJ_RETURN_IF_ERROR(CudaStatus(
      cudaLaunchKernel(KernelFunc(kernel), dim3(BlocksFor(static_cast<int64_t>(bytes), kThreads)),
                       dim3(kThreads), args, 0, stream),
      "byte compare launch"));
  uint64_t differ = 0;
  KJ_RETURN_IF_ERROR(CudaStatus(
      cudaMemcpyAsync(&differ, slot_.get(), 8, cudaMemcpyDeviceToHost, stream), "compare copy"));
  KJ_RETURN_IF_ERROR(CudaStatus(cudaStreamSynchronize(stream), "compare synchronize"));
  return differ;
}

absl::StatusOr<std::vector<GuardDamage>> DeviceUtilities::CheckGuards(
    const std::vector<GuardRegion>& regions, const SecretKey& key, cudaStream_t stream) {
  std::vector<GuardDamage> damage(regions.size());
  if (regions.empty()) return damage;
  KJ_ASSIGN_OR_RETURN(cudaKernel_t kernel, module_.Kernel("kj_guard_check"));
  // One upload: (address, length) per region, then the result triples (count, first, last).
  const size_t r = regions.size();
  std::vector<uint64_t> table(5 * r, 0);
  for (size_t i = 0; i < r; ++i) {
    table[2 * i] = reinterpret_cast<uintptr_t>(regions[i].ptr);
    table[2 * i + 1] = regions[i].bytes;
    table[2 * r + 3 * i + 1] = ~uint64_t{0};
  }
  const size_t table_bytes = table.size() * sizeof(uint64_t);
  if (guard_table_.size() < table_bytes) {
    KJ_ASSIGN_OR_RETURN(guard_table_, DeviceBuffer::Allocate(table_bytes, "guard check table"));
  }
  auto* base = static_cast<unsigned char*>(guard_table_.get());
  KJ_RETURN_IF_ERROR(CudaStatus(
      cudaMemcpyAsync(base, table.data(), table_bytes, cudaMemcpyHostToDevice, stream),
      "guard check upload"));
  const void* regions_ptr = base;
  std::array<uint32_t, 8> k = key.words;  // the kernel's KjKey, by value
  void* out_ptr = base + 2 * r * sizeof(uint64_t);
  void* args[] = {&regions_ptr, k.data(), &out_ptr};
  KJ_RETURN_IF_ERROR(CudaStatus(cudaLaunchKernel(KernelFunc(kernel),
                                                 dim3(static_cast<unsigned int>(r)), dim3(256),
                                                 args, 0, stream),
                                "guard check launch"));
  KJ_RETURN_IF_ERROR(CudaStatus(cudaMemcpyAsync(table.data() + 2 * r, out_ptr,
                                                3 * r * sizeof(uint64_t),
                                                cudaMemcpyDeviceToHost, stream),
                                "guard check copy"));
  KJ_RETURN_IF_ERROR(SyncStatus(cudaStreamSynchronize(stream), "guard check"));
  for (size_t i = 0; i < r; ++i) {
    const uint64_t* res = &table[2 * r + 3 * i];
    if (res[0] == 0) continue;
    damage[i] = {static_cast<int64_t>(res[0]), static_cast<int64_t>(res[1]),
                 static_cast<int64_t>(res[2])};
  }
  return damage;
}

absl::StatusOr<DeviceComparison> DeviceUtilities::Compare(const void* out, const void* ref,
                                                          DType dtype, int64_t count, double atol,
                                                          double rtol, const PoisonPattern& poison,
                                                          cudaStream_t stream) {
  KJ_ASSIGN_OR_RETURN(cudaKernel_t kernel, module_.Kernel(CompareKernelName(dtype)));
  CompareSlots slots = InitialCompareSlots();
  void* stats_ptr = slot_.get();
  void* sums_ptr = static_cast<unsigned char*>(slot_.get()) + offsetof(CompareSlots, sums);
  KJ_RETURN_IF_ERROR(CudaStatus(
      cudaMemcpyAsync(stats_ptr, &slots, sizeof(slots), cudaMemcpyHostToDevice, stream),
      "compare"));
  const void* o = out;
  const void* r = ref;
  long long n = count;
  unsigned long long pattern = poison.bits;  // the tensor's secret pattern (host_values.h)
  void* args[] = {&o, &r, &n, &atol, &rtol, &pattern, &stats_ptr, &sums_ptr};
  constexpr unsigned int kThreads = 256;
  KJ_RETURN_IF_ERROR(CudaStatus(cudaLaunchKernel(KernelFunc(kernel),
                                                 dim3(BlocksFor(count, kThreads)), dim3(kThreads),
                                                 args, 0, stream),
                                "compare launch"));
  KJ_RETURN_IF_ERROR(CudaStatus(
      cudaMemcpyAsync(&slots, stats_ptr, sizeof(slots), cudaMemcpyDeviceToHost, stream),
      "compare"));
  KJ_RETURN_IF_ERROR(SyncStatus(cudaStreamSynchronize(stream), "compare"));
  return DecodeCompareSlots(slots, count);
}

}  // namespace kjudge::runner
