// TensorSet: device buffers for every tensor of a problem at one shape, and the operations the
// verdict protocol performs on them (generate inputs, poison outputs, checksum inputs, copy
// outputs out, scrub).
//
// Contract: tensor t (its position in ProblemSpec::tensors) of a TensorSet generated with key
// k in regime r (an InputSecret) always holds the same values, so a reference and a
// candidate see identical inputs in different allocations. PoisonOutputs() fills each output
// with a pattern drawn afresh for it from the OS CSPRNG (host_values.h: a NaN with a secret
// payload, a secret negative integer); until the first PoisonOutputs an output's pattern is
// FixedPoison(). Outputs() and
// CopyOutputs() carry each output's current pattern, so the device and the host comparison
// count exactly the elements still holding it as unwritten. CopyOutputs() returns the raw
// bytes; Scrub() zeroes every buffer and waits. Buffers are freed on destruction.
// Every buffer (inputs and outputs, AllocateOutputs' too) has guard bands of the job's pattern
// right before its first and right after its last byte (guard_bands.h); Guards() lists them
// for DeviceUtilities::CheckGuards. BytesNeeded() / OutputBytes() include the guards.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/problem_spec.h"
#include "worker/gpu/device_buffer.h"
#include "worker/judge/host_values.h"
#include "worker/judge/device_utilities.h"
#include "worker/judge/regime_deck.h"
#include "worker/gpu/guard_bands.h"

namespace kjudge::runner {

struct HostTensor {
  std::string name;
  DType dtype = DType::kF32;
  int64_t count = 0;
  std::vector<std::byte> bytes;
  PoisonPattern poison;  // the output's pattern when it was copied (unwritten elements hold it)
};

class TensorSet {
 public:
  static absl::StatusOr<size_t> BytesNeeded(const ProblemSpec& spec, const Shape& shape);
  static absl::StatusOr<TensorSet> Allocate(const ProblemSpec& spec, const Shape& shape,
                                            const GuardPattern& guards);
  // Only the outputs (a second set of output buffers, e.g. for a reference run on a bench
  // shape); OutputBytes() is what that allocates.
  static absl::StatusOr<TensorSet> AllocateOutputs(const ProblemSpec& spec, const Shape& shape,
                                                   const GuardPattern& guards);
  // The same in memory another process can map (the PyTorch oracle writes expected outputs
  // there).
  static absl::StatusOr<TensorSet> AllocateOutputsShared(const ProblemSpec& spec,
                                                         const Shape& shape,
                                                         const GuardPattern& guards, int device);
  static absl::StatusOr<size_t> OutputBytes(const ProblemSpec& spec, const Shape& shape);
  // Only the inputs (the judge's private copy of a candidate's inputs).
  static absl::StatusOr<TensorSet> AllocateInputs(const ProblemSpec& spec, const Shape& shape,
                                                  const GuardPattern& guards);
  // Every tensor in memory a candidate process can map (DeviceBuffer::AllocateGuardedShared
  // on `device`): the judge's view of a candidate's tensors.
  static absl::StatusOr<TensorSet> AllocateShared(const ProblemSpec& spec, const Shape& shape,
                                                  const GuardPattern& guards, int device);

  // Every input drawn under `secret`'s key in its regime (DeviceUtilities::FillRandom: the
  // regime bends only float inputs with a scalable init), then the init's transform; waits.
  absl::Status GenerateInputs(DeviceUtilities& utils, const InputSecret& secret,
                              cudaStream_t stream);
  // The same in the declared regime: baselines' inputs and tools that time the declared init.
  absl::Status GenerateInputs(DeviceUtilities& utils, const SecretKey& key, cudaStream_t stream);
  absl::Status PoisonOutputs(DeviceUtilities& utils, cudaStream_t stream);
  absl::StatusOr<std::vector<HostTensor>> CopyOutputs(cudaStream_t stream) const;
  absl::Status Scrub(cudaStream_t stream);

  const std::map<std::string, void*>& pointers() const { return pointers_; }
  // These pointers with every output replaced by `outputs`' buffer of the same name.
  std::map<std::string, void*> PointersWithOutputsOf(const TensorSet& outputs) const;
  struct OutputView {
    std::string name;
    DType dtype;
    int64_t count;
    void* ptr;
    PoisonPattern poison;  // the output's current poison pattern
  };
  std::vector<OutputView> Outputs() const;
  // Every buffer with its name and whether the candidate may only read it (inputs).
  struct BufferView {
    std::string name;
    const DeviceBuffer* buffer;
    bool read_only;
  };
  std::vector<BufferView> Buffers() const;
  // The names of the inputs whose bytes differ from `pristine`'s (same spec and shape),
  // joined by ", "; "" when every input is identical byte for byte.
  absl::StatusOr<std::string> InputsDifferingFrom(const TensorSet& pristine,
                                                  DeviceUtilities& utils,
                                                  cudaStream_t stream) const;
  std::vector<std::string> InputNames() const;
  // Every buffer, labelled "output 'Y' (4096 x f32)", for a guard check.
  std::vector<GuardedBuffer> Guards() const;

 private:
  struct Entry {
    const TensorSpec* spec = nullptr;
    uint32_t index = 0;
    int64_t count = 0;
    // The last two dims (rows 1 for rank 1, both 1 for a scalar): input transforms' matrices.
    int64_t rows = 1;
    int64_t cols = 1;
    DeviceBuffer buffer;
    PoisonPattern poison;  // outputs: the pattern of the last PoisonOutputs (FixedPoison before)
  };
  static absl::StatusOr<TensorSet> AllocateRoles(const ProblemSpec& spec, const Shape& shape,
                                                 std::optional<TensorRole> only,
                                                 const GuardPattern& guards, int shared_device);
  std::vector<Entry> entries_;
  std::map<std::string, void*> pointers_;
};

}  // namespace kjudge::runner
