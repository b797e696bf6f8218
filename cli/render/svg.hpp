// Charts as SVG text, written by rubato itself (no plotting library, no
// Python): grouped bars with 95% interval whiskers ([HERMES] Figs. 6-13) and a
// per-worker timeline of tempo levels. Every chart is a standalone <svg>
// element, usable as a file and inline in the HTML report.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace rubato::cli {

std::string xml_escape(const std::string& s);

// Axis ticks at 1, 2 or 5 x 10^k covering [lo, hi] with about `target` steps.
struct Ticks {
  double lo = 0, hi = 1, step = 1;
};
Ticks nice_ticks(double lo, double hi, int target = 6);

struct BarSeries {
  std::string name;
  std::string color;                          // CSS colour
  std::vector<std::optional<double>> values;  // one per category; nullopt = not available
  std::vector<double> ci95;                   // whisker half-widths (NaN or missing = none)
};

struct BarChart {
  std::string title;
  std::string y_label;
  std::vector<std::string> categories;
  std::vector<BarSeries> series;
  std::optional<double> reference;  // a dashed horizontal line (e.g. 1 for normalised EDP)
  std::string footnote;
};

std::string render_bar_chart(const BarChart& chart, int width = 900, int height = 380);

struct TimelineSpan {
  int lane = 0;
  double t0_s = 0, t1_s = 0;
  int level = 0;
};

struct TimelineChart {
  std::string title;
  std::vector<std::string> lanes;        // e.g. "worker 0"
  std::vector<std::string> level_names;  // e.g. "L0 2.4 GHz"; colour by level
  std::vector<TimelineSpan> spans;
  double end_s = 0;
  std::string footnote;
};

std::string render_timeline(const TimelineChart& chart, int width = 900);

}  // namespace rubato::cli
