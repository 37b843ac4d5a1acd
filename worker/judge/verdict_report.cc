// What the timing steps measured, as the plain facts VerdictDecision decides on
// (verdict_decision.h: flags, the speed verdict, speedups, the CORRECT message): timings as
// reported (floor, SOL%), sample counts, the clock monitor, the impossible floor.
#include "worker/judge/verdict_protocol.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "worker/gpu/runner_error.h"
#include "worker/gpu/str_util.h"
#include "worker/judge/result_proto.h"
#include "worker/judge/verdict_protocol_internal.h"

namespace kjudge::runner {
namespace verdict_detail {

void AddSamples(const std::vector<double>& samples, v1::Timing* timing) {
  const size_t n = samples.size();
  const size_t kept = std::min(n, kMaxReportedSamples);
  timing->mutable_samples_us()->Reserve(static_cast<int>(kept));
  for (size_t i = 0; i < kept; ++i) {
    // Evenly spaced over the run: sample i of `kept` is sample floor(i * n / kept) of n.
    timing->add_samples_us(static_cast<float>(samples[i * n / kept]));
  }
}

v1::Timing TimingToProto(const TimingResult& t, double floor_us) {
  v1::Timing p = ToTimingProto(t.summary);
  p.set_throttled_samples(static_cast<int32_t>(t.throttled));
  p.set_sm_clock_mhz(t.mean_sm_clock_mhz);
  p.set_input_sets(t.input_sets);
  p.set_checked_samples(static_cast<int32_t>(t.checked));
  p.set_event_overhead_us(t.event_overhead_us);
  AddSamples(t.samples, &p);
  if (floor_us > 0.0 && t.summary.median > 0.0) {
    p.set_floor_us(floor_us);
    p.set_sol_percent(100.0 * floor_us / t.summary.median);
  }
  return p;
}

}  // namespace verdict_detail

using namespace verdict_detail;  // the protocol's own constants and helpers

Ceilings VerdictProtocol::MeasuredCeilings() const {
  const v1::GpuInfo& info = env_.gpu->info;
  return Ceilings{info.copy_bandwidth_gbs(), info.sgemm_tflops(), info.tf32_tflops(),
                  info.fp16_tflops(), info.bf16_tflops()};
}

BenchFacts VerdictProtocol::MeasuredBenchFacts() const {
  const ClockMonitor* clock = env_.timing.clock;
  BenchFacts facts;
  facts.has_bench_shapes = !setup_.spec.bench_shapes.empty();
  facts.clock_monitored = clock != nullptr && clock->available();
  facts.clock_reason = clock == nullptr ? std::string("no NVML") : clock->reason();
  facts.uncalibrated_reason = env_.uncalibrated_reason;
  return facts;
}

SampleFacts VerdictProtocol::MeasuredSampleFacts(const std::string& who, const Shape& shape,
                                                 const TimingResult& t) const {
  SampleFacts facts;
  facts.who = who;
  facts.shape = shape.Label();
  facts.kept = t.summary.count;
  facts.throttled = t.throttled;
  facts.all_throttled = t.all_throttled;
  facts.busy_after_stop = t.busy_after_stop;
  facts.max_sm_clock_mhz =
      env_.timing.clock != nullptr ? env_.timing.clock->max_sm_clock_mhz() : 0;
  facts.throttle_threshold = env_.timing.throttle_threshold;
  return facts;
}

TimingFacts VerdictProtocol::MeasuredTimingFacts(const Shape& shape, const TimingResult& t,
                                                 double floor_us) const {
  TimingFacts facts;
  facts.samples = MeasuredSampleFacts("candidate", shape, t);
  facts.timing = TimingToProto(t, floor_us);
  facts.median_us = t.summary.median;
  facts.floor_us = floor_us;
  // SUSPICIOUS only for the physically impossible: under the memory floor, or under a compute
  // floor the problem declares a true lower bound (ceilings.h). SOL% keeps the full floor.
  const Ceilings c = MeasuredCeilings();
  const PhysicalFloor f = ImpossibleFloorOf(setup_.spec, shape, c);
  facts.impossible = ImpossibleFloor{f.us, f.memory_us, f.compute_us, f.rate.tflops, f.rate.name,
                                     c.copy_gbs};
  return facts;
}

std::vector<const v1::BaselineTiming*> VerdictProtocol::SpeedupBaselines() const {
  std::vector<const v1::BaselineTiming*> baselines;
  for (const v1::BaselineTiming& b : run_.cached_baselines()) {
    if (b.problem() == run_.problem()) baselines.push_back(&b);
  }
  for (const v1::BaselineTiming& b : out_.new_baselines()) baselines.push_back(&b);
  return baselines;
}

}  // namespace kjudge::runner
