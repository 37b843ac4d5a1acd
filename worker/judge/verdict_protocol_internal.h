// Helpers and constants shared by the verdict protocol's files (verdict_*.cc), not by anyone
// else: the limits the protocol judges by, and small conversions.
//
// Contract: only verdict_protocol.cc and the verdict_*.cc files include this header.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kjudge/v1/runner.pb.h"
#include "worker/gpu/guard_bands.h"
#include "worker/gpu/timing.h"
#include "worker/judge/candidate_process.h"
#include "worker/judge/device_tensors.h"

namespace kjudge::runner::verdict_detail {

// JobResult.input_keys holds at most this many keys (a result stays small); the rest are
// counted. Above kMaxReportedSamples: every reported sample's key fits.
inline constexpr size_t kMaxReportedInputKeys = 1100;
inline constexpr double kMiB = 1024.0 * 1024.0;
// Input sets rotated across timed samples. One: every sample draws fresh inputs and poisoned
// outputs and is checked, so a second set buys nothing against caching or replay (a replayed
// result is wrong for the new inputs), and it cost the judge a second allocation, mapping and
// byte-for-byte input check of every tensor (~100 ms a job at 6 GB shapes on an H100).
inline constexpr int kMaxInputSets = 1;

// Failures of trusted code are kjudge's fault: INTERNAL_ERROR, keeping CUDA error and
// stickiness.
absl::Status AsInternal(const absl::Status& status, std::string_view what);

// Every buffer the candidate's plan can reach: its tensors and its scratch.
std::vector<GuardedBuffer> CandidateBuffers(const TensorSet& tensors, const ScratchSet& scratch);

// Timing.samples_us holds at most this many samples per shape (the dashboard's plot; a result
// stays small): a run with more is thinned evenly.
inline constexpr size_t kMaxReportedSamples = 1000;

// Copies `samples` into timing->samples_us, thinned to kMaxReportedSamples evenly spaced ones
// (first sample kept, order kept).
void AddSamples(const std::vector<double>& samples, v1::Timing* timing);

// A TimingResult as reported, with the floor and SOL% when there is a floor, and its samples.
v1::Timing TimingToProto(const TimingResult& t, double floor_us);

// Timed samples of the candidate's plan, each run in the candidate process.
class CandidateSamples : public SampleSource {
 public:
  CandidateSamples(CandidateProcess& candidate, std::vector<int> sets)
      : candidate_(candidate), sets_(std::move(sets)) {}
  size_t sets() const override { return sets_.size(); }
  absl::Status WarmUp(size_t set) override { return candidate_.Run(sets_[set], false); }
  absl::StatusOr<RawSample> Sample(size_t set) override { return candidate_.Sample(sets_[set]); }

 private:
  CandidateProcess& candidate_;
  std::vector<int> sets_;
};

}  // namespace kjudge::runner::verdict_detail
