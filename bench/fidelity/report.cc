#include "bench/fidelity/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>

namespace kjudge::bench {
namespace {

SampleSummary SummaryOf(const std::vector<double>& v) { return Summarize(v); }

std::string Us(double us) {
  if (us >= 1000.0) return fmt::format("{:.1f}", us);
  if (us >= 100.0) return fmt::format("{:.2f}", us);
  return fmt::format("{:.3f}", us);
}

std::string Pct(double p) { return fmt::format("{:+.2f}", p); }

std::string Samples(const Derived& d) {
  return d.min_samples == d.max_samples ? fmt::format("{}", d.min_samples)
                                        : fmt::format("{}-{}", d.min_samples, d.max_samples);
}

std::string Targets(const Derived& d) {
  std::string diff = d.has_cupti ? (d.diff_ok ? "diff ok" : "diff OVER 2%") : "diff n/a";
  std::string spread = !d.spread_applies ? "spread n/a (<20 us)"
                                         : (d.spread_ok ? "spread ok" : "spread OVER 1%");
  return diff + ", " + spread;
}

}  // namespace

Derived Derive(const WorkloadResult& r) {
  Derived d;
  std::vector<double> off_medians;
  std::vector<double> on_medians;
  std::vector<double> cupti_medians;
  std::vector<double> span_medians;
  std::vector<double> diffs;
  std::vector<double> diff_us;
  std::vector<double> gaps;
  d.min_samples = INT64_MAX;
  d.min_activities = INT32_MAX;
  bool flush_mismatch = false;
  bool uncorrelated = false;
  bool bad_ts = false;
  uint64_t dropped = 0;
  int64_t throttled = 0;
  int64_t busy_after_stop = 0;
  int min_sets = INT32_MAX;
  int max_sets = 0;
  auto count = [&](const JobMeasurement& m) {
    d.min_samples = std::min(d.min_samples, m.kjudge.count);
    d.max_samples = std::max(d.max_samples, m.kjudge.count);
    ++d.stop_reasons[std::string(StopReasonName(m.reason))];
    throttled += m.throttled;
    busy_after_stop += m.busy_after_stop;
    min_sets = std::min(min_sets, m.input_sets);
    max_sets = std::max(max_sets, m.input_sets);
  };
  for (const JobMeasurement& m : r.off) {
    off_medians.push_back(m.kjudge.median);
    count(m);
  }
  for (const JobMeasurement& m : r.on) {
    count(m);
    on_medians.push_back(m.kjudge.median);
    cupti_medians.push_back(m.busy.median);
    span_medians.push_back(m.span.median);
    if (m.busy.median > 0.0) diffs.push_back((m.kjudge.median - m.busy.median) / m.busy.median * 100.0);
    diff_us.push_back(m.kjudge.median - m.busy.median);
    gaps.push_back(m.span.median - m.busy.median);
    d.min_activities = std::min(d.min_activities, m.min_activities);
    d.max_activities = std::max(d.max_activities, m.max_activities);
    flush_mismatch = flush_mismatch || m.flush_memsets != m.cupti_samples;
    if (!m.hooks) uncorrelated = uncorrelated || m.other_uncorrelated > 0;
    bad_ts = bad_ts || m.bad_timestamps > 0;
    dropped += m.dropped_records;
  }
  if (d.min_samples == INT64_MAX) d.min_samples = 0;
  if (d.min_activities == INT32_MAX) d.min_activities = 0;

  const SampleSummary off = SummaryOf(off_medians);
  d.kjudge_off_us = off.median;
  if (off.median > 0.0) d.spread_pct = (off.max - off.min) / off.median * 100.0;
  if (off.mean > 0.0) d.cv_pct = off.std / off.mean * 100.0;
  d.spread_applies = off.median >= kSpreadFloorUs;
  d.spread_ok = d.spread_pct < kSpreadTargetPct;

  d.has_cupti = !r.on.empty() && !diffs.empty();
  if (d.has_cupti) {
    d.kjudge_us = SummaryOf(on_medians).median;
    d.cupti_us = SummaryOf(cupti_medians).median;
    d.cupti_span_us = SummaryOf(span_medians).median;
    d.diff_pct = SummaryOf(diffs).median;
    for (double x : diffs) d.diff_abs_max_pct = std::max(d.diff_abs_max_pct, std::fabs(x));
    d.diff_us = SummaryOf(diff_us).median;
    d.gap_us = SummaryOf(gaps).median;
    if (d.kjudge_off_us > 0.0) {
      d.cupti_effect_pct = (d.kjudge_us - d.kjudge_off_us) / d.kjudge_off_us * 100.0;
    }
    d.diff_ok = std::fabs(d.diff_pct) <= kDiffTargetPct;
  }

  if (r.bytes_moved > 0.0 && d.kjudge_off_us > 0.0) {
    d.notes.push_back(fmt::format(
        "{:.0f} GB/s by kjudge's median{} (bytes read + written)",
        r.bytes_moved / (d.kjudge_off_us * 1e3),
        d.has_cupti && d.cupti_us > 0.0
            ? fmt::format(", {:.0f} GB/s by CUPTI's", r.bytes_moved / (d.cupti_us * 1e3))
            : std::string()));
  }
  // Notes: say where the two clocks measure different things. kjudge's samples are the event
  // times minus the event overhead calibrated at start-up (the header says how much), so what
  // is left is a residual, a plan's gaps between launches, or (uncalibrated) the whole overhead.
  if (d.has_cupti && d.diff_us > 0.0) {
    std::string what = fmt::format(
        "kjudge's median is {} us above the summed device durations", Us(d.diff_us));
    if (d.gap_us > 0.05 * d.diff_us && d.max_activities > 1) {
      what += fmt::format(": {} us of it are gaps between the plan's {} launches (CUPTI span "
                          "{} us vs busy {} us), the rest is event/launch overhead left after "
                          "the calibrated correction",
                          Us(d.gap_us), d.max_activities, Us(d.cupti_span_us), Us(d.cupti_us));
    } else {
      what += ": event/launch overhead left after the calibrated correction";
    }
    if (d.kjudge_us < kSpreadFloorUs || !d.diff_ok) {
      what += fmt::format(" ({:.1f}% of this {} us measurement)", d.diff_pct, Us(d.kjudge_us));
    }
    d.notes.push_back(what);
  } else if (d.has_cupti && d.diff_us < 0.0) {
    d.notes.push_back(fmt::format("kjudge's median is {} us BELOW the summed device durations: "
                                  "the calibrated event overhead subtracted more than the events "
                                  "added here (or launches overlapped)",
                                  Us(-d.diff_us)));
  }
  if (d.has_cupti && std::fabs(d.cupti_effect_pct) > 0.5) {
    d.notes.push_back(fmt::format("CUPTI tracing itself moved kjudge's median by {}% ({} us "
                                  "with CUPTI vs {} us without)",
                                  Pct(d.cupti_effect_pct), Us(d.kjudge_us),
                                  Us(d.kjudge_off_us)));
  }
  if (d.has_cupti && d.min_activities != d.max_activities) {
    d.notes.push_back(fmt::format("device activities per timed run varied ({}-{})",
                                  d.min_activities, d.max_activities));
  }
  if (flush_mismatch) {
    d.notes.push_back("the number of L2-flush memsets CUPTI saw differs from the sample count "
                      "(attribution check)");
  }
  if (uncorrelated) {
    d.notes.push_back("CUPTI saw device work outside the timed runs besides the L2 flush");
  }
  if (max_sets > 1) {
    d.notes.push_back(min_sets == max_sets
                          ? fmt::format("{} input sets rotated across samples (as in a job)",
                                        max_sets)
                          : fmt::format("{}-{} input sets rotated across samples (as in a job)",
                                        min_sets, max_sets));
  }
  if (throttled > 0) {
    d.notes.push_back(fmt::format(
        "{} samples were taken under 75% of the max SM clock and discarded by kjudge (CUPTI's "
        "medians include them)",
        throttled));
  }
  if (busy_after_stop > 0) {
    d.notes.push_back(fmt::format("{} samples left the device busy after the stop event",
                                  busy_after_stop));
  }
  if (bad_ts) d.notes.push_back("some CUPTI records had no timestamps and were skipped");
  if (dropped > 0) d.notes.push_back(fmt::format("CUPTI dropped {} records", dropped));
  if (d.has_cupti && d.diff_abs_max_pct > kDiffTargetPct && d.diff_ok) {
    d.notes.push_back(fmt::format("one job's diff reached {:.2f}%", d.diff_abs_max_pct));
  }
  return d;
}

std::string ConsoleTable(const std::vector<WorkloadResult>& results) {
  std::string out = fmt::format(
      "{:<52} {:<18} {:>11} {:>11} {:>8} {:>11} {:>9} {:>7} {:>9}\n", "kernel", "size",
      "kjudge us", "CUPTI us", "diff %", "no-CUPTI us", "spread %", "CV %", "samples");
  for (const WorkloadResult& r : results) {
    if (!r.error.empty()) {
      out += fmt::format("{:<52} {:<18} ERROR: {}\n", r.kernel, r.size, r.error);
      continue;
    }
    const Derived d = Derive(r);
    out += fmt::format("{:<52} {:<18} {:>11} {:>11} {:>8} {:>11} {:>9.2f} {:>7.2f} {:>9}\n",
                       r.kernel, r.size, d.has_cupti ? Us(d.kjudge_us) : "n/a",
                       d.has_cupti ? Us(d.cupti_us) : "n/a",
                       d.has_cupti ? Pct(d.diff_pct) : "n/a", Us(d.kjudge_off_us), d.spread_pct,
                       d.cv_pct, Samples(d));
    for (const std::string& n : d.notes) out += fmt::format("    note: {}\n", n);
  }
  return out;
}

std::string Markdown(const ReportHeader& header, const std::vector<WorkloadResult>& results) {
  std::string out = "# kjudge timing fidelity\n\n";
  for (const auto& [k, v] : header.facts) out += fmt::format("- {}: {}\n", k, v);
  out += fmt::format("- CUPTI: {}\n\n",
                     header.cupti_status.empty() ? "available (Activity API)"
                                                 : header.cupti_status);
  out +=
      "Targets: |diff| <= 2% against the CUPTI kernel durations; run-to-run spread "
      "(max - min) / median < 1% for kernels above 20 us. Method: docs/fidelity.md.\n\n"
      "## Summary\n\n"
      "| kernel | size | kjudge median (us) | CUPTI median (us) | diff % | kjudge median, "
      "CUPTI off (us) | run-to-run spread % | CV % | samples per job | targets |\n"
      "|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (const WorkloadResult& r : results) {
    if (!r.error.empty()) {
      out += fmt::format("| {} | {} | error | | | | | | | {} |\n", r.kernel, r.size, r.error);
      continue;
    }
    const Derived d = Derive(r);
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {:.2f} | {:.2f} | {} | {} |\n", r.kernel,
                       r.size, d.has_cupti ? Us(d.kjudge_us) : "n/a",
                       d.has_cupti ? Us(d.cupti_us) : "n/a",
                       d.has_cupti ? Pct(d.diff_pct) : "n/a", Us(d.kjudge_off_us),
                       d.spread_pct, d.cv_pct, Samples(d), Targets(d));
  }
  out +=
      "\n## Details\n\n"
      "| kernel | size | CUPTI busy (us) | CUPTI span (us) | kjudge - CUPTI (us) | max "
      "per-job abs(diff) % | CUPTI effect on kjudge % | device activities per run | stop "
      "reasons |\n|---|---|---:|---:|---:|---:|---:|---:|---|\n";
  for (const WorkloadResult& r : results) {
    if (!r.error.empty()) continue;
    const Derived d = Derive(r);
    std::string reasons;
    for (const auto& [name, n] : d.stop_reasons) {
      reasons += fmt::format("{}{} x{}", reasons.empty() ? "" : ", ", name, n);
    }
    const std::string acts = d.min_activities == d.max_activities
                                 ? fmt::format("{}", d.max_activities)
                                 : fmt::format("{}-{}", d.min_activities, d.max_activities);
    if (!d.has_cupti) {
      out += fmt::format("| {} | {} | n/a | n/a | n/a | n/a | n/a | n/a | {} |\n", r.kernel,
                         r.size, reasons);
      continue;
    }
    out += fmt::format("| {} | {} | {} | {} | {} | {:.2f} | {} | {} | {} |\n", r.kernel, r.size,
                       Us(d.cupti_us), Us(d.cupti_span_us), Us(d.diff_us), d.diff_abs_max_pct,
                       Pct(d.cupti_effect_pct), acts, reasons);
  }
  out += "\n## Notes\n\n";
  bool any = false;
  for (const WorkloadResult& r : results) {
    const Derived d = r.error.empty() ? Derive(r) : Derived{};
    std::vector<std::string> notes = d.notes;
    if (!r.error.empty()) notes.push_back("not measured: " + r.error);
    if (!r.kernel_names.empty()) {
      std::string names;
      for (const std::string& n : r.kernel_names) {
        names += fmt::format("{}`{}`", names.empty() ? "" : ", ",
                             n.size() > 90 ? n.substr(0, 87) + "..." : n);
      }
      notes.push_back("kernels CUPTI saw in the runs: " + names);
    }
    if (notes.empty()) continue;
    any = true;
    out += fmt::format("- **{} ({})**\n", r.kernel, r.size);
    for (const std::string& n : notes) out += fmt::format("  - {}\n", n);
  }
  if (!any) out += "None.\n";
  return out;
}

}  // namespace kjudge::bench
