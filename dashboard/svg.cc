#include "dashboard/svg.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "dashboard/html.h"

namespace kjudge::dashboard {
namespace {

constexpr int kLeft = 48, kRight = 12, kTop = 10, kBottom = 34;

std::string Num(double v) { return absl::StrFormat("%.1f", v); }

std::string Text(double x, double y, const std::string& text, const std::string& anchor = "middle") {
  return absl::StrCat("<text x=\"", Num(x), "\" y=\"", Num(y), "\" font-size=\"11\" text-anchor=\"", anchor, "\">",
                      Escape(text), "</text>");
}

std::string LineEl(double x1, double y1, double x2, double y2, const std::string& color, double w = 1) {
  return absl::StrCat("<line x1=\"", Num(x1), "\" y1=\"", Num(y1), "\" x2=\"", Num(x2), "\" y2=\"", Num(y2),
                      "\" stroke=\"", color, "\" stroke-width=\"", Num(w), "\"/>");
}

std::string Open(int width, int height) {
  return absl::StrCat("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"", width, "\" height=\"", height,
                      "\" viewBox=\"0 0 ", width, " ", height, "\">");
}

// Y axis with 4 gridlines from 0 to y_max, labelled with `decimals` decimals.
std::string YAxis(double y_max, int width, int height, int decimals) {
  std::string out;
  const double plot_h = height - kTop - kBottom;
  for (int i = 0; i <= 4; ++i) {
    const double y = kTop + plot_h - plot_h * i / 4.0;
    absl::StrAppend(&out, LineEl(kLeft, y, width - kRight, y, "#e4e7ec"),
                    Text(kLeft - 4, y + 4, absl::StrFormat("%.*f", decimals, y_max * i / 4.0), "end"));
  }
  return out;
}

}  // namespace

std::string VerdictColor(const std::string& verdict) {
  static const std::map<std::string, std::string> kColors = {
      {"CORRECT", "#2da44e"},      {"COMPILED", "#7ee2a8"},       {"COMPILE_ERROR", "#d4a72c"},
      {"WRONG_ANSWER", "#cf222e"}, {"RUNTIME_ERROR", "#a40e26"},  {"LAUNCH_ERROR", "#fb8f44"},
      {"TIMEOUT", "#8250df"},      {"SUSPICIOUS", "#bf3989"},     {"REJECTED", "#6e7781"},
      {"INTERNAL_ERROR", "#24292f"}, {"CANCELLED", "#afb8c1"},    {"UNWRITTEN_OUTPUT", "#e16f24"},
      {"INPUT_MODIFIED", "#953800"}, {"BASELINES_MEASURED", "#54aeff"}};
  auto it = kColors.find(verdict);
  return it == kColors.end() ? "#0969da" : it->second;
}

std::string StackedBars(const std::vector<std::string>& labels, const std::vector<Series>& series, int label_every,
                        int width, int height) {
  double y_max = 1;
  for (size_t i = 0; i < labels.size(); ++i) {
    double total = 0;
    for (const Series& s : series) total += i < s.values.size() ? s.values[i] : 0;
    y_max = std::max(y_max, total);
  }
  std::string out = Open(width, height) + YAxis(y_max, width, height, 0);
  const double plot_w = width - kLeft - kRight, plot_h = height - kTop - kBottom;
  const double bar_w = labels.empty() ? 0 : plot_w / static_cast<double>(labels.size());
  for (size_t i = 0; i < labels.size(); ++i) {
    double base = 0;
    const double x = kLeft + bar_w * static_cast<double>(i);
    for (const Series& s : series) {
      const double v = i < s.values.size() ? s.values[i] : 0;
      if (v <= 0) continue;
      const double h = plot_h * v / y_max, y = kTop + plot_h - plot_h * base / y_max - h;
      absl::StrAppend(&out, "<rect x=\"", Num(x + 1), "\" y=\"", Num(y), "\" width=\"", Num(std::max(1.0, bar_w - 2)),
                      "\" height=\"", Num(h), "\" fill=\"", s.color, "\"><title>", Escape(labels[i]), " ",
                      Escape(s.name), ": ", v, "</title></rect>");
      base += v;
    }
    if (label_every > 0 && i % static_cast<size_t>(label_every) == 0) {
      absl::StrAppend(&out, Text(x + bar_w / 2, height - kBottom + 14, labels[i]));
    }
  }
  // The legend wraps onto a second line (below the axis labels) when it is wider than the plot.
  double lx = kLeft, ly = height - 12;
  for (const Series& s : series) {
    const double w = 24 + 6.5 * static_cast<double>(s.name.size());
    if (lx + w > width && lx > kLeft) {
      lx = kLeft;
      ly += 13;
    }
    absl::StrAppend(&out, "<rect x=\"", Num(lx), "\" y=\"", Num(ly), "\" width=\"9\" height=\"9\" fill=\"", s.color,
                    "\"/>", Text(lx + 12, ly + 8, s.name, "start"));
    lx += w;
  }
  // Grow the picture to hold the wrapped legend.
  const std::string grown = absl::StrCat("height=\"", static_cast<int>(ly) + 14, "\" viewBox=\"0 0 ", width, " ",
                                         static_cast<int>(ly) + 14, "\"");
  const std::string original = absl::StrCat("height=\"", height, "\" viewBox=\"0 0 ", width, " ", height, "\"");
  if (ly > height - 12) out.replace(out.find(original), original.size(), grown);
  return out + "</svg>";
}

std::string Lines(const std::vector<double>& xs, const std::vector<Series>& series, double y_max,
                  const std::string& x_label, const std::string& y_label, int width, int height) {
  std::string out = Open(width, height) + YAxis(y_max, width, height, 2);
  const double plot_w = width - kLeft - kRight, plot_h = height - kTop - kBottom;
  const double x_min = xs.empty() ? 0 : xs.front(), x_max = xs.empty() ? 1 : std::max(xs.back(), x_min + 1e-9);
  auto px = [&](double x) { return kLeft + plot_w * (x - x_min) / (x_max - x_min); };
  auto py = [&](double y) { return kTop + plot_h - plot_h * std::min(y, y_max) / y_max; };
  for (int i = 0; i <= 4; ++i) {
    const double x = x_min + (x_max - x_min) * i / 4.0;
    absl::StrAppend(&out, Text(px(x), height - kBottom + 14, absl::StrFormat("%.1f", x)));
  }
  absl::StrAppend(&out, Text(kLeft + plot_w / 2, height - kBottom + 27, x_label),
                  Text(kLeft + 4, kTop + 10, y_label, "start"));
  double ly = kTop + 10;
  for (const Series& s : series) {
    std::string points;
    for (size_t i = 0; i < xs.size() && i < s.values.size(); ++i) {
      absl::StrAppend(&points, Num(px(xs[i])), ",", Num(py(s.values[i])), " ");
    }
    absl::StrAppend(&out, "<polyline fill=\"none\" stroke=\"", s.color, "\" stroke-width=\"2\" points=\"", points,
                    "\"/>", LineEl(width - kRight - 150, ly - 4, width - kRight - 135, ly - 4, s.color, 2),
                    Text(width - kRight - 130, ly, s.name, "start"));
    ly += 14;
  }
  return out + "</svg>";
}

std::string TimingPlot(const std::vector<TimingRow>& rows, int width) {
  constexpr int kRowH = 34, kLabelW = 150;
  const int height = kTop + kBottom + kRowH * static_cast<int>(rows.size());
  double x_max = 0;
  for (const TimingRow& r : rows) {
    x_max = std::max({x_max, r.max, r.p99, r.mean + r.std});
    for (const auto& [name, v] : r.markers) x_max = std::max(x_max, v);
  }
  x_max = x_max > 0 ? x_max * 1.05 : 1;
  const double plot_w = width - kLabelW - kRight;
  auto px = [&](double us) { return kLabelW + plot_w * us / x_max; };
  std::string out = Open(width, height);
  for (int i = 0; i <= 4; ++i) {
    const double us = x_max * i / 4.0;
    absl::StrAppend(&out, LineEl(px(us), kTop, px(us), height - kBottom, "#e4e7ec"),
                    Text(px(us), height - kBottom + 14, FormatUs(us)));
  }
  absl::StrAppend(&out, Text(kLabelW + plot_w / 2, height - 6, "time per run (us); box: median..p95, whiskers: min..max"));
  for (size_t i = 0; i < rows.size(); ++i) {
    const TimingRow& r = rows[i];
    const double y = kTop + kRowH * static_cast<double>(i) + kRowH / 2.0;
    absl::StrAppend(&out, Text(kLabelW - 6, y + 4, r.label, "end"), LineEl(px(r.min), y, px(r.max), y, "#57606a"),
                    LineEl(px(r.min), y - 6, px(r.min), y + 6, "#57606a"), LineEl(px(r.max), y - 6, px(r.max), y + 6, "#57606a"),
                    "<rect x=\"", Num(px(r.median)), "\" y=\"", Num(y - 8), "\" width=\"",
                    Num(std::max(1.0, px(r.p95) - px(r.median))), "\" height=\"16\" fill=\"#ddf4ff\" stroke=\"#0969da\"/>",
                    LineEl(px(r.median), y - 10, px(r.median), y + 10, "#0969da", 3),
                    LineEl(px(r.p99), y - 5, px(r.p99), y + 5, "#cf222e", 2),
                    LineEl(px(r.mean - r.std), y + 12, px(r.mean + r.std), y + 12, "#8250df"),
                    "<circle cx=\"", Num(px(r.mean)), "\" cy=\"", Num(y + 12), "\" r=\"3\" fill=\"#8250df\"><title>mean ",
                    FormatUs(r.mean), " +- ", FormatUs(r.std), "</title></circle>");
    for (const auto& [name, v] : r.markers) {
      absl::StrAppend(&out, LineEl(px(v), y - 14, px(v), y + 14, "#bf8700", 1.5),
                      Text(px(v) + 2, y - 6, name, "start"));
    }
  }
  return out + "</svg>";
}

namespace {

// Percentile p (0..100) of sorted values, nearest rank (plenty for a picture).
double Rank(const std::vector<double>& sorted, double p) {
  const auto i = static_cast<size_t>(std::lround(p / 100.0 * static_cast<double>(sorted.size() - 1)));
  return sorted[std::min(i, sorted.size() - 1)];
}

std::string Band(double x1, double x2, double y, double h, const std::string& color) {
  return absl::StrCat("<rect x=\"", Num(x1), "\" y=\"", Num(y), "\" width=\"", Num(std::max(1.0, x2 - x1)),
                      "\" height=\"", Num(h), "\" fill=\"", color, "\"/>");
}

}  // namespace

std::string SamplePlot(const std::vector<float>& samples, double median_us, int width) {
  constexpr int kHeight = 150, kRug = 14, kBins = 40;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  std::string out = absl::StrCat("<svg class=\"samples\" data-count=\"", sorted.size(), "\" data-median-us=\"",
                                 absl::StrFormat("%.6g", median_us), "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"",
                                 width, "\" height=\"", kHeight, "\" viewBox=\"0 0 ", width, " ", kHeight, "\">");
  if (sorted.empty()) return out + "</svg>";
  const double lo = std::min(sorted.front(), median_us > 0 ? median_us : sorted.front());
  const double hi = std::max({sorted.back(), median_us, lo * 1.0001 + 1e-9});
  const double plot_w = width - kLeft - kRight, bottom = kHeight - kBottom, hist_h = bottom - kTop - kRug - 4;
  auto x_of = [&](double us) { return kLeft + plot_w * (us - lo) / (hi - lo); };
  std::vector<int> bins(kBins, 0);
  for (double v : sorted) ++bins[std::min(kBins - 1, static_cast<int>((v - lo) / (hi - lo) * kBins))];
  const int tallest = *std::max_element(bins.begin(), bins.end());
  // Spread first, behind the bars: p5..p95 light, p25..p75 dark.
  absl::StrAppend(&out, Band(x_of(Rank(sorted, 5)), x_of(Rank(sorted, 95)), kTop, hist_h, "#dbeafe"),
                  Band(x_of(Rank(sorted, 25)), x_of(Rank(sorted, 75)), kTop, hist_h, "#93c5fd"));
  for (int b = 0; b < kBins; ++b) {
    if (bins[b] == 0) continue;
    const double h = hist_h * bins[b] / tallest;
    absl::StrAppend(&out, Band(kLeft + plot_w * b / kBins + 0.5, kLeft + plot_w * (b + 1) / kBins - 0.5,
                               kTop + hist_h - h, h, "#1f2937"));
  }
  // The rug: one tick per sample, as one path.
  std::string rug;
  for (double v : sorted) absl::StrAppend(&rug, "M", Num(x_of(v)), " ", Num(bottom - kRug), "v", kRug - 2);
  absl::StrAppend(&out, "<path d=\"", rug, "\" stroke=\"#1f2937\" stroke-opacity=\"0.35\" stroke-width=\"1\"/>");
  if (median_us > 0) {
    absl::StrAppend(&out, LineEl(x_of(median_us), kTop, x_of(median_us), bottom, "#dc2626", 2),
                    Text(x_of(median_us), kTop + 10, absl::StrFormat(" median %.4g us", median_us), "start"));
  }
  absl::StrAppend(&out, LineEl(kLeft, bottom, width - kRight, bottom, "#6b7280"));
  for (int i = 0; i <= 4; ++i) {
    const double us = lo + (hi - lo) * i / 4.0;
    absl::StrAppend(&out, Text(x_of(us), bottom + 14, absl::StrFormat("%.4g", us)));
  }
  absl::StrAppend(&out, Text(kLeft + plot_w / 2, kHeight - 4,
                             absl::StrCat("us per run (", sorted.size(), " samples; bands: p25-p75, p5-p95)")),
                  "</svg>");
  return out;
}

}  // namespace kjudge::dashboard
