// Report: per-workload measurements of the fidelity benchmark, the figures derived from them
// and their rendering as a console table and as Markdown. Pure C++ (no CUDA).
//
// Per workload, R "jobs" are measured with CUPTI off and R with CUPTI on (interleaved). Derived:
//   kjudge_us     median over the CUPTI-on jobs of kjudge's job median (same runs as CUPTI)
//   cupti_us      median over the CUPTI-on jobs of the median, over the job's timed samples,
//                 of the sum of device durations of the run's own launches
//   diff_pct      median over the CUPTI-on jobs of (kjudge - CUPTI) / CUPTI, per job
//   kjudge_off_us median over the CUPTI-off jobs of kjudge's job median (production condition)
//   spread_pct    (max - min) / median of the CUPTI-off jobs' medians
//   cv_pct        std / mean of the CUPTI-off jobs' medians
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/sample_statistics.h"
#include "common/stopping_rule.h"

namespace kjudge::bench {

struct JobMeasurement {
  bool cupti = false;
  bool hooks = false;    // the job poisons/compares outputs around each sample (untimed work)
  SampleSummary kjudge;  // TimeRuns' summary (us)
  StopReason reason = StopReason::kNotYet;
  int64_t runs = 0;      // RunFn calls (warm-up + samples)
  int input_sets = 1;
  int64_t throttled = 0;        // samples kjudge discarded for a low SM clock
  int64_t busy_after_stop = 0;  // samples after which the device was still busy
  double sm_clock_mhz = 0.0;    // mean over kept samples; 0 when not monitored
  int64_t cupti_samples = 0;    // samples CUPTI's median is over (kept + throttled)
  // CUPTI-on jobs only, over the timed samples:
  SampleSummary busy;    // sum of the run's device activity durations (us)
  SampleSummary span;    // first start to last end of the run's device activities (us)
  int min_activities = 0;
  int max_activities = 0;
  int64_t flush_memsets = 0;
  int64_t other_uncorrelated = 0;
  int64_t bad_timestamps = 0;
  uint64_t dropped_records = 0;
  std::set<std::string> kernel_names;  // kernels CUPTI attributed to the runs
};

struct WorkloadResult {
  std::string kernel;
  std::string size;
  std::string error;    // non-empty: the workload failed or was skipped (with why)
  double bytes_moved = 0.0;  // copies: bytes read + written per run (0 = not a copy)
  std::vector<JobMeasurement> off;
  std::vector<JobMeasurement> on;
  std::set<std::string> kernel_names;
};

struct Derived {
  bool has_cupti = false;
  double kjudge_us = 0.0;
  double cupti_us = 0.0;
  double cupti_span_us = 0.0;
  double diff_pct = 0.0;
  double diff_abs_max_pct = 0.0;  // largest |per-job diff|
  double diff_us = 0.0;           // median over jobs of kjudge - CUPTI (us)
  double gap_us = 0.0;            // median over jobs of span - busy (gaps between launches)
  double kjudge_off_us = 0.0;
  double cupti_effect_pct = 0.0;  // (kjudge_us - kjudge_off_us) / kjudge_off_us
  double spread_pct = 0.0;
  double cv_pct = 0.0;
  int64_t min_samples = 0;
  int64_t max_samples = 0;
  int min_activities = 0;
  int max_activities = 0;
  std::map<std::string, int> stop_reasons;
  bool diff_ok = false;
  bool spread_applies = false;  // kjudge median >= 20 us
  bool spread_ok = false;
  std::vector<std::string> notes;
};

inline constexpr double kDiffTargetPct = 2.0;
inline constexpr double kSpreadTargetPct = 1.0;
inline constexpr double kSpreadFloorUs = 20.0;

Derived Derive(const WorkloadResult& r);

struct ReportHeader {
  std::vector<std::pair<std::string, std::string>> facts;  // "GPU" -> "NVIDIA H100 ..."
  std::string cupti_status;  // "" = available
};

std::string ConsoleTable(const std::vector<WorkloadResult>& results);
std::string Markdown(const ReportHeader& header, const std::vector<WorkloadResult>& results);

}  // namespace kjudge::bench
