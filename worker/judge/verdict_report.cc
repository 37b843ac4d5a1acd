// Result assembly: timings as reported (floor, SOL%), flags (throttling, busy after stop, no
// clock monitor, uncalibrated event overhead, speedups over 10x), the speed verdict (SUSPICIOUS
// only for the physically impossible), speedups against every baseline, and the CORRECT
// message.
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

void VerdictProtocol::AddBenchFlags() {
  const auto& shapes = setup_.spec.bench_shapes;
  const ClockMonitor* clock = env_.timing.clock;
  if (!shapes.empty() && (clock == nullptr || !clock->available())) {
    out_.mutable_result()->add_flags(
        Cat("no_clock_monitor: throttling not detected (",
            clock == nullptr ? std::string("no NVML") : clock->reason(), ")"));
  }
  if (!shapes.empty() && !env_.uncalibrated_reason.empty()) {
    out_.mutable_result()->add_flags(
        Cat("event_overhead_uncalibrated: timings include the ~2.5 us that the CUDA events add (",
            env_.uncalibrated_reason, ")"));
  }
}

void VerdictProtocol::AddTimingFlags(const std::string& who, const Shape& shape,
                                     const TimingResult& t) {
  v1::JobResult* result = out_.mutable_result();
  const int max_mhz = env_.timing.clock != nullptr ? env_.timing.clock->max_sm_clock_mhz() : 0;
  if (t.throttled > 0) {
    result->add_flags(absl::StrFormat(
        "throttled: %s at %s: %d of %d samples taken under %.0f%% of the max SM clock (%d MHz) "
        "were %s",
        who, shape.Label(), t.throttled, t.throttled + t.summary.count * (t.all_throttled ? 0 : 1),
        100.0 * env_.timing.throttle_threshold, max_mhz,
        t.all_throttled ? "all that was measured: the timing is of a throttled GPU"
                        : "discarded"));
  }
  if (t.busy_after_stop > 0) {
    result->add_flags(absl::StrFormat(
        "busy_after_stop: %s at %s: the device was still busy after the plan's stop event in "
        "%d samples",
        who, shape.Label(), t.busy_after_stop));
  }
}

absl::Status VerdictProtocol::JudgeSpeed(const Shape& shape, const TimingResult& t,
                                         double floor_us) {
  v1::JobResult* result = out_.mutable_result();
  const int64_t samples = t.summary.count + (t.all_throttled ? 0 : t.throttled);
  if (t.busy_after_stop > 0 && 2 * t.busy_after_stop > samples) {
    result->set_verdict(v1::SUSPICIOUS);
    result->set_message(Cat("bench shape ", shape.Label(),
                            ": the device was still busy after the plan's stop event in ",
                            t.busy_after_stop, " of ", samples,
                            " timed samples: work outlived the timed region."));
    return absl::OkStatus();
  }
  // SUSPICIOUS only for the physically impossible: under the memory floor, or under a compute
  // floor the problem declares a true lower bound (ceilings.h). SOL% keeps the full floor.
  const Ceilings c = MeasuredCeilings();
  const PhysicalFloor f = ImpossibleFloorOf(setup_.spec, shape, c);
  if (f.us > 0.0 && t.summary.median < kFloorMargin * f.us) {
    const std::string compute =
        f.rate.tflops > 0.0
            ? absl::StrFormat("%.3f us of flops at %.1f TFLOP/s %s, the fastest legitimate rate "
                              "for its dtypes", f.compute_us, f.rate.tflops, f.rate.name)
            : absl::StrFormat("no compute bound (%s)", f.rate.name);
    result->set_verdict(v1::SUSPICIOUS);
    result->set_message(absl::StrFormat(
        "bench shape %s: median %.3f us is under %.0f%% of the physical floor %.3f us (cost "
        "model at this GPU's measured ceilings: %.3f us of bytes at %.1f GB/s device copy; %s): "
        "faster than the hardware allows, not a speedup (SOL %.0f%%).",
        shape.Label(), t.summary.median, 100.0 * kFloorMargin, f.us, f.memory_us, c.copy_gbs,
        compute, 100.0 * floor_us / std::max(t.summary.median, 1e-9)));
  }
  return absl::OkStatus();
}

void VerdictProtocol::AddSpeedups() {
  v1::JobResult* result = out_.mutable_result();
  auto add = [&](const v1::BaselineTiming& b) {
    auto it = candidate_median_.find(b.shape());
    if (it == candidate_median_.end() || it->second <= 0.0) return;
    v1::Speedup* s = result->add_speedups();
    s->set_shape(b.shape());
    s->set_baseline(b.name());
    s->set_speedup(b.timing().median_us() / it->second);
    // Over 10x a library baseline (the naive reference does not count) is worth a second look.
    if (b.name() != "reference" && s->speedup() > kLibrarySpeedupFlag) {
      result->add_flags(absl::StrFormat("speedup_over_10x: %s at %s: %.1fx", b.name(),
                                        b.shape(), s->speedup()));
    }
  };
  for (const v1::BaselineTiming& b : run_.cached_baselines()) {
    if (b.problem() == run_.problem()) add(b);
  }
  for (const v1::BaselineTiming& b : out_.new_baselines()) add(b);
}

std::string VerdictProtocol::CorrectMessage() const {
  const v1::JobResult& r = out_.result();
  std::string msg = Cat("correct on ", r.tests_size(), " test shapes");
  for (const v1::ShapeTiming& t : r.timings()) {
    Append(&msg, absl::StrFormat("; %s: median %.2f us", t.shape(), t.timing().median_us()));
    if (t.timing().sol_percent() > 0.0) {
      Append(&msg, absl::StrFormat(" (SOL %.0f%%)", t.timing().sol_percent()));
    }
    for (const v1::Speedup& s : r.speedups()) {
      if (s.shape() == t.shape()) {
        Append(&msg, absl::StrFormat(", %.2fx %s", s.speedup(), s.baseline()));
      }
    }
  }
  for (const std::string& flag : r.flags()) {
    if (flag.starts_with("speedup_over_10x")) Append(&msg, Cat("; flagged ", flag));
  }
  return msg;
}

}  // namespace kjudge::runner
