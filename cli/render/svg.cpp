#include "render/svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace rubato::cli {
namespace {

constexpr const char* kFont = "font-family=\"DejaVu Sans, Liberation Sans, Arial, sans-serif\"";

std::string num(double v, int decimals = 1) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// Tick labels: as many decimals as the step needs.
std::string tick_label(double v, double step) {
  const int decimals = step >= 1 ? 0 : std::min(6, static_cast<int>(std::ceil(-std::log10(step) - 1e-9)));
  if (std::fabs(v) < step * 1e-6) v = 0;
  return num(v, decimals);
}

// Roughly how wide a label is at font size 11 (no font metrics here).
double text_width(const std::string& s, double size = 11) {
  std::size_t glyphs = 0;
  for (char c : s) glyphs += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return static_cast<double>(glyphs) * size * 0.58;
}

// A category label in lines that fit `width` pixels (split at spaces, at most
// four lines, the last cut with "…").
std::vector<std::string> wrap_label(const std::string& label, double width) {
  const std::size_t max_chars = std::max<std::size_t>(4, static_cast<std::size_t>(width / (11 * 0.58)));
  std::vector<std::string> lines{""};
  std::size_t start = 0;
  while (start < label.size()) {
    std::size_t end = label.find(' ', start);
    if (end == std::string::npos) end = label.size();
    std::string word = label.substr(start, end - start);
    start = end + 1;
    while (text_width(word) / (11 * 0.58) > static_cast<double>(max_chars)) {  // a word longer than a line
      if (!lines.back().empty()) lines.emplace_back();
      lines.back() = word.substr(0, max_chars);
      word = word.substr(max_chars);
      lines.emplace_back();
    }
    const std::string joined = lines.back().empty() ? word : lines.back() + " " + word;
    if (text_width(joined) / (11 * 0.58) <= static_cast<double>(max_chars)) lines.back() = joined;
    else lines.push_back(word);
  }
  if (lines.size() > 4) {
    lines.resize(4);
    lines.back() = lines.back().substr(0, max_chars > 1 ? max_chars - 1 : 0) + "…";
  }
  return lines;
}

std::string text(double x, double y, const std::string& s, const std::string& extra = "", int size = 11) {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" font-size=\"" + std::to_string(size) + "\" " + extra + ">" +
         xml_escape(s) + "</text>\n";
}

std::string svg_open(int width, int height, const std::string& title) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) + "\" height=\"" +
         std::to_string(height) + "\" viewBox=\"0 0 " + std::to_string(width) + " " + std::to_string(height) + "\" " +
         kFont + " role=\"img\">\n<title>" + xml_escape(title) +
         "</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
}

// Legend entries left to right from (x, y).
std::string legend(double x, double y, const std::vector<std::pair<std::string, std::string>>& entries) {
  std::string out;
  for (const auto& [name, color] : entries) {
    out += "<rect x=\"" + num(x) + "\" y=\"" + num(y - 9) + "\" width=\"10\" height=\"10\" fill=\"" + color + "\"/>\n";
    out += text(x + 14, y, name);
    x += 14 + text_width(name) + 16;
  }
  return out;
}

}  // namespace

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

Ticks nice_ticks(double lo, double hi, int target) {
  if (!(hi > lo)) hi = lo + 1;
  const double raw = (hi - lo) / std::max(1, target);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * mag * (1 + 1e-9)) {
      step = m * mag;
      break;
    }
  return {std::floor(lo / step + 1e-9) * step, std::ceil(hi / step - 1e-9) * step, step};
}

namespace {

// Where a bar chart's plot area lies and how values map to y.
struct BarPlot {
  double left = 64, right = 16, top = 52;
  double plot_w = 0, plot_h = 0, slot = 0;
  Ticks t;
  double y_of(double v) const { return top + plot_h * (t.hi - v) / (t.hi - t.lo); }
};

// The values' range, whiskers and the reference line included; `any`: some value is finite.
Ticks bar_ticks(const BarChart& chart, bool& any) {
  double lo = 0, hi = 0;
  any = false;
  for (const auto& s : chart.series)
    for (std::size_t i = 0; i < s.values.size(); ++i) {
      if (!s.values[i] || !std::isfinite(*s.values[i])) continue;
      const double ci = i < s.ci95.size() && std::isfinite(s.ci95[i]) ? s.ci95[i] : 0;
      lo = std::min(lo, *s.values[i] - ci);
      hi = std::max(hi, *s.values[i] + ci);
      any = true;
    }
  if (chart.reference) {
    lo = std::min(lo, *chart.reference);
    hi = std::max(hi, *chart.reference);
  }
  if (hi - lo < 1e-12) hi = lo + 1;
  return nice_ticks(lo, hi);
}

// Horizontal grid lines with their labels, the y axis' title and the zero line.
std::string bar_grid(const BarChart& chart, const BarPlot& p, double zero_y) {
  std::string out;
  for (double v = p.t.lo; v <= p.t.hi + p.t.step * 1e-6; v += p.t.step) {
    const double y = p.y_of(v);
    out += "<line x1=\"" + num(p.left) + "\" x2=\"" + num(p.left + p.plot_w) + "\" y1=\"" + num(y) + "\" y2=\"" +
           num(y) + "\" stroke=\"#e3e3e3\"/>\n";
    out += text(p.left - 6, y + 4, tick_label(v, p.t.step), "text-anchor=\"end\" fill=\"#444\"");
  }
  out += "<text transform=\"translate(14," + num(p.top + p.plot_h / 2) +
         ") rotate(-90)\" font-size=\"11\" text-anchor=\"middle\">" + xml_escape(chart.y_label) + "</text>\n";
  out += "<line x1=\"" + num(p.left) + "\" x2=\"" + num(p.left + p.plot_w) + "\" y1=\"" + num(zero_y) + "\" y2=\"" +
         num(zero_y) + "\" stroke=\"#333\"/>\n";
  return out;
}

// One category's bars (n/a where a value is missing), each with its 95% whisker.
std::string category_bars(const BarChart& chart, const BarPlot& p, std::size_t c, double zero_y) {
  std::string out;
  const std::size_t n_series = std::max<std::size_t>(1, chart.series.size());
  const double bar_w = p.slot * 0.8 / static_cast<double>(n_series);
  const double x0 = p.left + p.slot * static_cast<double>(c) + p.slot * 0.1;
  for (std::size_t s = 0; s < chart.series.size(); ++s) {
    const BarSeries& series = chart.series[s];
    const double x = x0 + bar_w * static_cast<double>(s);
    const std::optional<double> v = c < series.values.size() ? series.values[c] : std::nullopt;
    if (!v || !std::isfinite(*v)) {
      out += text(x + bar_w / 2, zero_y - 3, "n/a", "text-anchor=\"middle\" fill=\"#999\"", 8);
      continue;
    }
    const double y = p.y_of(*v);
    out += "<rect x=\"" + num(x + 1) + "\" y=\"" + num(std::min(y, zero_y)) + "\" width=\"" +
           num(std::max(1.0, bar_w - 2)) + "\" height=\"" + num(std::max(0.5, std::fabs(zero_y - y))) + "\" fill=\"" +
           series.color + "\"><title>" + xml_escape(chart.categories[c] + " — " + series.name + ": " + num(*v, 3)) +
           "</title></rect>\n";
    const double ci = c < series.ci95.size() ? series.ci95[c] : NAN;
    if (std::isfinite(ci) && ci > 0) {
      const double xm = x + bar_w / 2, y1 = p.y_of(*v - ci), y2 = p.y_of(*v + ci);
      out += "<path d=\"M" + num(xm) + " " + num(y1) + "V" + num(y2) + "M" + num(xm - 3) + " " + num(y1) + "h6M" +
             num(xm - 3) + " " + num(y2) + "h6\" stroke=\"#222\" fill=\"none\"/>\n";
    }
  }
  return out;
}

}  // namespace

std::string render_bar_chart(const BarChart& chart, int width, int height) {
  BarPlot p;
  p.plot_w = width - p.left - p.right;
  p.slot = chart.categories.empty() ? p.plot_w : p.plot_w / static_cast<double>(chart.categories.size());
  std::vector<std::vector<std::string>> labels;
  std::size_t label_lines = 1;
  for (const auto& c : chart.categories) {
    labels.push_back(wrap_label(c, p.slot - 8));
    label_lines = std::max(label_lines, labels.back().size());
  }
  const double label_h = 13.0 * static_cast<double>(label_lines) + 8;
  const double bottom = label_h + (chart.footnote.empty() ? 10 : 28);
  const int total_h = height + static_cast<int>(label_h);
  p.plot_h = total_h - p.top - bottom;
  bool any = false;
  p.t = bar_ticks(chart, any);

  std::string out = svg_open(width, total_h, chart.title);
  out += text(p.left, 20, chart.title, "font-weight=\"bold\"", 14);
  std::vector<std::pair<std::string, std::string>> entries;
  for (const auto& s : chart.series) entries.emplace_back(s.name, s.color);
  out += legend(p.left, 40, entries);
  const double zero_y = p.y_of(std::clamp(0.0, p.t.lo, p.t.hi));
  out += bar_grid(chart, p, zero_y);
  if (!any)
    out += text(p.left + p.plot_w / 2, p.top + p.plot_h / 2, "no data", "text-anchor=\"middle\" fill=\"#888\"", 14);
  for (std::size_t c = 0; c < chart.categories.size(); ++c) {
    out += category_bars(chart, p, c, zero_y);
    const double xc = p.left + p.slot * (static_cast<double>(c) + 0.5);
    for (std::size_t l = 0; l < labels[c].size(); ++l)
      out += text(xc, p.top + p.plot_h + 16 + 13.0 * static_cast<double>(l), labels[c][l], "text-anchor=\"middle\"");
  }
  if (chart.reference) {
    const double y = p.y_of(*chart.reference);
    out += "<line x1=\"" + num(p.left) + "\" x2=\"" + num(p.left + p.plot_w) + "\" y1=\"" + num(y) + "\" y2=\"" +
           num(y) + "\" stroke=\"#000\" stroke-dasharray=\"5,4\"/>\n";
  }
  if (!chart.footnote.empty()) out += text(p.left, total_h - 8, chart.footnote, "fill=\"#555\"", 10);
  return out + "</svg>\n";
}

namespace {

const char* const kLevelPalette[] = {"#08306b", "#4eb3d3", "#fdae61", "#d7191c",
                                     "#7b3294", "#c2a5cf", "#a6dba0", "#999999"};

// A timeline's time binned by pixel column: the time each lane spent at each
// level in each column (lane-major, then column, then level).
struct LevelGrid {
  int lanes = 0, bins = 0, levels = 0;
  double bin_s = 0;
  std::vector<double> time;
  double& at(int lane, int bin, int level) {
    return time[(static_cast<std::size_t>(lane) * bins + bin) * levels + level];
  }
};

LevelGrid level_grid(const TimelineChart& chart, int bins, int levels, double end) {
  LevelGrid g{static_cast<int>(chart.lanes.size()), bins, levels, end / bins, {}};
  g.time.assign(static_cast<std::size_t>(g.lanes) * bins * levels, 0.0);
  for (const TimelineSpan& s : chart.spans) {
    if (s.lane < 0 || s.lane >= g.lanes || !(s.t1_s > s.t0_s)) continue;
    const int level = std::clamp(s.level, 0, levels - 1);
    int b0 = std::clamp(static_cast<int>(s.t0_s / g.bin_s), 0, bins - 1);
    const int b1 = std::clamp(static_cast<int>(s.t1_s / g.bin_s), 0, bins - 1);
    for (int b = b0; b <= b1; ++b) {
      const double overlap = std::min(s.t1_s, (b + 1) * g.bin_s) - std::max(s.t0_s, b * g.bin_s);
      if (overlap > 0) g.at(s.lane, b, level) += overlap;
    }
  }
  return g;
}

// One lane: its name, its background, and one rectangle per run of columns
// whose longest-running level is the same.
std::string timeline_lane(const TimelineChart& chart, LevelGrid& g, int lane, double left, double y, double plot_w,
                          double lane_h) {
  std::string out = text(left - 6, y + lane_h - 6, chart.lanes[static_cast<std::size_t>(lane)], "text-anchor=\"end\"");
  out += "<rect x=\"" + num(left) + "\" y=\"" + num(y) + "\" width=\"" + num(plot_w) + "\" height=\"" + num(lane_h) +
         "\" fill=\"#f7f7f7\"/>\n";
  const int bins = g.bins;
  int run_level = -1, run_start = 0;
  auto flush = [&](int b_end) {
    if (run_level < 0) return;
    out += "<rect x=\"" + num(left + run_start * plot_w / bins) + "\" y=\"" + num(y) + "\" width=\"" +
           num((b_end - run_start) * plot_w / bins) + "\" height=\"" + num(lane_h) + "\" fill=\"" +
           kLevelPalette[std::min(run_level, 7)] + "\"/>\n";
  };
  for (int b = 0; b <= bins; ++b) {
    int level = -1;
    if (b < bins) {
      double best = g.bin_s * 0.05;  // mostly idle columns stay empty
      for (int l = 0; l < g.levels; ++l) {
        const double v = g.at(lane, b, l);
        if (v > best) best = v, level = l;
      }
    }
    if (level != run_level || b == bins) {
      flush(b);
      run_level = level;
      run_start = b;
    }
  }
  return out;
}

// The time axis under the lanes: ticks, their labels and "time [s]".
std::string time_axis(double left, double plot_w, double axis_y, double end) {
  std::string out;
  const Ticks t = nice_ticks(0, end, 8);
  for (double v = 0; v <= end + t.step * 1e-6; v += t.step) {
    const double x = left + plot_w * v / end;
    out += "<line x1=\"" + num(x) + "\" x2=\"" + num(x) + "\" y1=\"" + num(axis_y) + "\" y2=\"" + num(axis_y + 4) +
           "\" stroke=\"#333\"/>\n";
    out += text(x, axis_y + 16, tick_label(v, t.step), "text-anchor=\"middle\" fill=\"#444\"");
  }
  out += text(left + plot_w / 2, axis_y + 32, "time [s]", "text-anchor=\"middle\"");
  return out;
}

}  // namespace

std::string render_timeline(const TimelineChart& chart, int width) {
  const double left = 80, right = 16, top = 52, lane_h = 20, gap = 4;
  const double plot_w = width - left - right;
  const int lanes = static_cast<int>(chart.lanes.size());
  const double plot_h = lanes * (lane_h + gap);
  const int height = static_cast<int>(top + plot_h + 40 + (chart.footnote.empty() ? 0 : 18));
  const double end = chart.end_s > 0 ? chart.end_s : 1;
  const int bins = std::max(1, static_cast<int>(plot_w));
  const int levels = std::max<int>(1, static_cast<int>(chart.level_names.size()));

  std::string out = svg_open(width, height, chart.title);
  out += text(left, 20, chart.title, "font-weight=\"bold\"", 14);
  std::vector<std::pair<std::string, std::string>> entries;
  for (int l = 0; l < levels && l < 8; ++l)
    entries.emplace_back(
        l < static_cast<int>(chart.level_names.size()) ? chart.level_names[l] : "L" + std::to_string(l),
        kLevelPalette[l]);
  out += legend(left, 40, entries);

  // One column per pixel: the level that ran longest there (millions of tasks
  // would otherwise make a page no browser wants to draw), then runs of equal
  // columns become one rectangle.
  LevelGrid grid = level_grid(chart, bins, levels, end);
  for (int lane = 0; lane < lanes; ++lane)
    out += timeline_lane(chart, grid, lane, left, top + lane * (lane_h + gap), plot_w, lane_h);
  out += time_axis(left, plot_w, top + plot_h + 4, end);
  if (!chart.footnote.empty()) out += text(left, height - 6, chart.footnote, "fill=\"#555\"", 10);
  return out + "</svg>\n";
}

}  // namespace rubato::cli
