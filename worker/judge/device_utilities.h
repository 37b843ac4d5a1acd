// DeviceUtilities: the runner's trusted device kernels (compiled once per runner by NVRTC
// from a string in this module, through the cubin cache), for input generation, poisoning and
// checksums. Inputs are generated on the GPU so host memory never holds a whole bench tensor.
//
// RNG: ChaCha12 keystream (secret_key.h) under the input set's own secret key, nonce
// KeyNonce(kInputs, t) for tensor t. Keystream block k gives, for f32, f16, bf16 and fp8
// (single precision, 24 bits a uniform), values 16k .. 16k + 15 from its 8 word pairs
// (w0, w1): u1 = ((w0 >> 8) + 1) * 2^-24 in (0, 1], u2 = (w1 >> 8) * 2^-24 in [0, 1);
// for f64 and integer dtypes (double precision, 53 bits a uniform) values 8k .. 8k + 7 from
// its 4 groups of 4 words (h1 = w1:w0, h2 = w3:w2): u1 = ((h1 >> 11) + 1) * 2^-53,
// u2 = (h2 >> 11) * 2^-53; then the pair of values
//   normal:  a + b * sqrt(-2 ln u1) * (cos, sin)(2 pi u2)   (Box-Muller; a = mean, b = std)
//   uniform: a + (b - a) * (u1 - 2^-p, u2)                  (a = low, b = high; p = 24 or 53)
// with (a, b) the tensor's init scaled by the current input scale for float dtypes
// (ScaledInit, problem_spec.h: a stress test shape's input_scale; 1 otherwise),
// converted to the tensor's dtype with round-to-nearest (cuda_fp16 / cuda_bf16 / cuda_fp8
// conversions; integers round to nearest and saturate). Same (key, tensor, index, regime)
// gives the same value on any GPU and any launch configuration.
// Input regime (common/input_regime.h, issue 26 point 2): for float dtypes whose init is
// scalable only (EffectiveRegime; integers and scalable = false are always drawn as declared),
// each drawn value v (input_scale included) is bent in the generator's arithmetic (float for
// the single-precision dtypes, double otherwise), in registers, before the conversion, with
// sigma the scaled init's std (normal: b; uniform: (b - a) / sqrt(12); computed in double on
// the host and rounded to the arithmetic type):
//   declared v; offset v + 32 sigma; large 100 v; ties q * rint(v / q), q = sigma / 2 (v when
//   q is 0); zeros 0 where the value's zero bit is 1, else v; positive |v|; negative -|v|.
// The zero bit is a keystream bit the uniform does not use: for single precision, value 2p
// (2p + 1) of a block takes bit 0 of w[2p] (w[2p + 1]); for double precision, value 2p
// (2p + 1) takes bit 0 of w[4p] (w[4p + 2]). The transform (below) applies after the regime.
// ApplyTransform(): the init's transform, in place after the draw (TensorSet::GenerateInputs
// does both): softmax along the last dim (in double, max-subtracted, a fixed 256-thread
// reduction tree per row, so the same on every run), tril / triu (zeros written), symmetric
// ((a_rc + a_cr) / 2 in double, written to both), sign (x >= 0 ? 1 : -1). Results rounded to
// the dtype as above.
// Poison(): fills `count` elements with the tensor's poison pattern (host_values.h: a secret
// drawn per output tensor and input set; a kernel per element size, a memset for 1-byte
// dtypes). Asynchronous on `stream`.
// Compare(): elementwise comparison of an output with a reference output of the same dtype,
// on the device (for bench shapes, too big to copy out): the same element rule as
// common/output_comparison.h (an element whose bytes equal the output's `poison` pattern is
// unwritten; NaN/Inf never pass;
// |out - ref| <= atol + rtol * |ref|), reduced to counts and sums, plus the summary statistics
// of the degenerate-output rule (DegenerateStats: min/max/max|.| of out and ref, ref's sum of
// squares) over the elements written and finite in both, so the caller applies
// ClassifyDegenerate() exactly as the host comparison does. Each block combines its warps in
// shared memory, then one thread per block publishes with atomics; min/max of doubles go
// through an order-preserving 64-bit key (sign bit set: all bits flipped; else the sign bit
// set), max|.| through the bits of the non-negative double. Waits for the stream.
// CheckGuards(): verifies guard regions (guard_bands.h) against the job's guard key in one launch
// (one block per region; one upload of the (address, length) table, one small download of the
// results): per region, the bytes that differ from the pattern and the first and last of them.
// Waits for the stream.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/dtype.h"
#include "common/input_regime.h"
#include "common/output_comparison.h"
#include "common/problem_spec.h"
#include "worker/judge/cubin_cache.h"
#include "worker/judge/host_values.h"
#include "worker/gpu/cuda_module.h"
#include "worker/gpu/device_buffer.h"
#include "worker/gpu/guard_bands.h"
#include "worker/gpu/secret_key.h"

namespace kjudge::runner {

// The regime FillRandom applies to a tensor of `dtype` with `init` when the input set's regime
// is `regime`: `regime` for float dtypes with a scalable init, else kDeclared.
InputRegime EffectiveRegime(InputRegime regime, DType dtype, const InitSpec& init);

struct DeviceComparison {
  int64_t mismatches = 0;  // non-finite included, unwritten excluded
  int64_t unwritten = 0;
  int64_t nonfinite = 0;
  int64_t first_bad = -1;  // smallest flat index that failed, or -1
  double max_abs_error = 0.0;
  double diff_sq = 0.0;
  double ref_sq = 0.0;
  // Over the elements written and finite in both (count = those elements; ref_sum_sq = ref_sq).
  DegenerateStats spread;
};

class DeviceUtilities {
 public:
  // The utility kernels' CUDA source, with the keystream's round count (kChaChaRounds) defined.
  static std::string Source();
  static std::vector<std::string> KernelNames();
  // Compiles (or fetches from the cache) and loads the utility kernels.
  static absl::StatusOr<DeviceUtilities> Create(std::string_view arch, const CubinCache& cache);

  // Fills with `init` scaled by input_scale() (float dtypes only; see ScaledInit), in
  // `regime` where EffectiveRegime says it applies (the RNG contract above).
  absl::Status FillRandom(void* ptr, DType dtype, int64_t count, const SecretKey& key,
                          uint32_t tensor_index, const InitSpec& init, cudaStream_t stream,
                          InputRegime regime = InputRegime::kDeclared);
  // Applies an input transform (InitSpec::Transform; kNone: nothing) in place to `count`
  // elements seen as matrices of rows x cols (the last two dims; softmax rows are the last
  // dim, cols). Call after FillRandom on the same stream; the transform is never rescaled
  // (input_scale applied to the draw). InternalError for a shape the parser rejects.
  absl::Status ApplyTransform(void* ptr, DType dtype, int64_t count, int64_t rows, int64_t cols,
                              InitSpec::Transform transform, cudaStream_t stream);
  // The multiplier FillRandom (hence TensorSet::GenerateInputs) applies to float inputs: the
  // Shape::input_scale of the shape whose inputs are being generated. 1 unless an
  // InputScaleScope is alive; set it only through one, so it cannot leak into other shapes.
  double input_scale() const { return input_scale_; }
  absl::Status Poison(void* ptr, const PoisonPattern& poison, int64_t count, cudaStream_t stream);
  absl::StatusOr<DeviceComparison> Compare(const void* out, const void* ref, DType dtype,
                                           int64_t count, double atol, double rtol,
                                           const PoisonPattern& poison, cudaStream_t stream);
  // How many of the `bytes` bytes at a and b differ (0: identical); waits for the answer.
  absl::StatusOr<uint64_t> DifferingBytes(const void* a, const void* b, size_t bytes,
                                          cudaStream_t stream);
  absl::StatusOr<std::vector<GuardDamage>> CheckGuards(const std::vector<GuardRegion>& regions,
                                                        const SecretKey& key, cudaStream_t stream);

 private:
  DeviceUtilities(CudaModule module, DeviceBuffer slot)
      : module_(std::move(module)), slot_(std::move(slot)) {}
  friend class InputScaleScope;
  CudaModule module_;
  double input_scale_ = 1.0;
  DeviceBuffer slot_;  // reduction results (checksum, comparison)
  DeviceBuffer guard_table_;  // CheckGuards' regions and results; grows on demand
};

// Sets `utilities`' input scale for its lifetime, then restores the previous one: wrap each
// TensorSet::GenerateInputs of a shape in one, e.g.
//   InputScaleScope scale(utils, shape.input_scale);
//   KJ_RETURN_IF_ERROR(set.GenerateInputs(utils, key, stream));
class InputScaleScope {
 public:
  InputScaleScope(DeviceUtilities& utilities, double scale)
      : utilities_(utilities), previous_(utilities.input_scale_) {
    utilities_.input_scale_ = scale;
  }
  ~InputScaleScope() { utilities_.input_scale_ = previous_; }
  InputScaleScope(const InputScaleScope&) = delete;
  InputScaleScope& operator=(const InputScaleScope&) = delete;

 private:
  DeviceUtilities& utilities_;
  double previous_;
};

}  // namespace kjudge::runner
