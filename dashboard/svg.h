// Svg: the dashboard's plots, drawn on the server as inline SVG (no script, nothing fetched).
//
// Contract: pure functions that return one <svg> element sized width x height. Labels are
// escaped. Empty or all-zero data draws empty axes rather than failing.
#pragma once

#include <string>
#include <vector>

namespace kjudge::dashboard {

struct Series {
  std::string name;
  std::string color;            // CSS color
  std::vector<double> values;   // bars: one per label; lines: y per x
};

// Stacked bars, one per label, one segment per series (labels shown every `label_every`).
std::string StackedBars(const std::vector<std::string>& labels, const std::vector<Series>& series, int label_every,
                        int width, int height);

// Lines over shared x values (e.g. fast_p over p), y from 0 to y_max, with a legend.
std::string Lines(const std::vector<double>& xs, const std::vector<Series>& series, double y_max,
                  const std::string& x_label, const std::string& y_label, int width, int height);

// One timing distribution per row, on a shared log-free time axis: whiskers min..max, box
// median..p95, a tick at p99, a dot at the mean with a +-1 std bar, and reference markers
// (e.g. each baseline's median).
struct TimingRow {
  std::string label;
  double min = 0, median = 0, mean = 0, std = 0, p95 = 0, p99 = 0, max = 0;
  std::vector<std::pair<std::string, double>> markers;
};
std::string TimingPlot(const std::vector<TimingRow>& rows, int width);

// The raw samples of one bench shape: a histogram over time (us) with a rug of every sample
// under it, the median (`median_us`, the stored summary's, over all samples taken) as a line,
// and the spread of the plotted samples as bands: p25..p75 dark, p5..p95 light. The <svg>
// carries data-count (samples plotted) and data-median-us.
std::string SamplePlot(const std::vector<float>& samples, double median_us, int width);

// A colour for a verdict name, the same on every page.
std::string VerdictColor(const std::string& verdict);

}  // namespace kjudge::dashboard
