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

std::string render_bar_chart(const BarChart& chart, int width, int height) {
  const double left = 64, right = 16, top = 52;
  const double plot_w = width - left - right;
  const double slot = chart.categories.empty() ? plot_w : plot_w / static_cast<double>(chart.categories.size());
  std::vector<std::vector<std::string>> labels;
  std::size_t label_lines = 1;
  for (const auto& c : chart.categories) {
    labels.push_back(wrap_label(c, slot - 8));
    label_lines = std::max(label_lines, labels.back().size());
  }
  const double label_h = 13.0 * static_cast<double>(label_lines) + 8;
  const double bottom = label_h + (chart.footnote.empty() ? 10 : 28);
  const int total_h = height + static_cast<int>(label_h);
  const double plot_h = total_h - top - bottom;

  double lo = 0, hi = 0;
  bool any = false;
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
  const Ticks t = nice_ticks(lo, hi);
  auto y_of = [&](double v) { return top + plot_h * (t.hi - v) / (t.hi - t.lo); };

  std::string out = svg_open(width, total_h, chart.title);
  out += text(left, 20, chart.title, "font-weight=\"bold\"", 14);
  std::vector<std::pair<std::string, std::string>> entries;
  for (const auto& s : chart.series) entries.emplace_back(s.name, s.color);
  out += legend(left, 40, entries);
  // Grid and y axis.
  for (double v = t.lo; v <= t.hi + t.step * 1e-6; v += t.step) {
    const double y = y_of(v);
    out += "<line x1=\"" + num(left) + "\" x2=\"" + num(left + plot_w) + "\" y1=\"" + num(y) + "\" y2=\"" + num(y) +
           "\" stroke=\"#e3e3e3\"/>\n";
    out += text(left - 6, y + 4, tick_label(v, t.step), "text-anchor=\"end\" fill=\"#444\"");
  }
  out += "<text transform=\"translate(14," + num(top + plot_h / 2) +
         ") rotate(-90)\" font-size=\"11\" text-anchor=\"middle\">" + xml_escape(chart.y_label) + "</text>\n";
  const double zero_y = y_of(std::clamp(0.0, t.lo, t.hi));
  out += "<line x1=\"" + num(left) + "\" x2=\"" + num(left + plot_w) + "\" y1=\"" + num(zero_y) + "\" y2=\"" +
         num(zero_y) + "\" stroke=\"#333\"/>\n";
  if (!any) out += text(left + plot_w / 2, top + plot_h / 2, "no data", "text-anchor=\"middle\" fill=\"#888\"", 14);

  const std::size_t n_series = std::max<std::size_t>(1, chart.series.size());
  const double bar_w = slot * 0.8 / static_cast<double>(n_series);
  for (std::size_t c = 0; c < chart.categories.size(); ++c) {
    const double x0 = left + slot * static_cast<double>(c) + slot * 0.1;
    for (std::size_t s = 0; s < chart.series.size(); ++s) {
      const BarSeries& series = chart.series[s];
      const double x = x0 + bar_w * static_cast<double>(s);
      const std::optional<double> v = c < series.values.size() ? series.values[c] : std::nullopt;
      if (!v || !std::isfinite(*v)) {
        out += text(x + bar_w / 2, zero_y - 3, "n/a", "text-anchor=\"middle\" fill=\"#999\"", 8);
        continue;
      }
      const double y = y_of(*v);
      out += "<rect x=\"" + num(x + 1) + "\" y=\"" + num(std::min(y, zero_y)) + "\" width=\"" +
             num(std::max(1.0, bar_w - 2)) + "\" height=\"" + num(std::max(0.5, std::fabs(zero_y - y))) + "\" fill=\"" +
             series.color + "\"><title>" + xml_escape(chart.categories[c] + " — " + series.name + ": " + num(*v, 3)) +
             "</title></rect>\n";
      const double ci = c < series.ci95.size() ? series.ci95[c] : NAN;
      if (std::isfinite(ci) && ci > 0) {
        const double xm = x + bar_w / 2, y1 = y_of(*v - ci), y2 = y_of(*v + ci);
        out += "<path d=\"M" + num(xm) + " " + num(y1) + "V" + num(y2) + "M" + num(xm - 3) + " " + num(y1) + "h6M" +
               num(xm - 3) + " " + num(y2) + "h6\" stroke=\"#222\" fill=\"none\"/>\n";
      }
    }
    const double xc = left + slot * (static_cast<double>(c) + 0.5);
    for (std::size_t l = 0; l < labels[c].size(); ++l)
      out += text(xc, top + plot_h + 16 + 13.0 * static_cast<double>(l), labels[c][l], "text-anchor=\"middle\"");
  }
  if (chart.reference) {
    const double y = y_of(*chart.reference);
    out += "<line x1=\"" + num(left) + "\" x2=\"" + num(left + plot_w) + "\" y1=\"" + num(y) + "\" y2=\"" + num(y) +
           "\" stroke=\"#000\" stroke-dasharray=\"5,4\"/>\n";
  }
  if (!chart.footnote.empty()) out += text(left, total_h - 8, chart.footnote, "fill=\"#555\"", 10);
  return out + "</svg>\n";
}

std::string render_timeline(const TimelineChart& chart, int width) {
  static const char* palette[] = {"#08306b", "#4eb3d3", "#fdae61", "#d7191c",
                                  "#7b3294", "#c2a5cf", "#a6dba0", "#999999"};
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
        l < static_cast<int>(chart.level_names.size()) ? chart.level_names[l] : "L" + std::to_string(l), palette[l]);
  out += legend(left, 40, entries);

  // One column per pixel: the level that ran longest there (millions of tasks
  // would otherwise make a page no browser wants to draw), then runs of equal
  // columns become one rectangle.
  std::vector<double> grid(static_cast<std::size_t>(lanes) * bins * levels, 0.0);
  const double bin_s = end / bins;
  for (const TimelineSpan& s : chart.spans) {
    if (s.lane < 0 || s.lane >= lanes || !(s.t1_s > s.t0_s)) continue;
    const int level = std::clamp(s.level, 0, levels - 1);
    int b0 = std::clamp(static_cast<int>(s.t0_s / bin_s), 0, bins - 1);
    const int b1 = std::clamp(static_cast<int>(s.t1_s / bin_s), 0, bins - 1);
    for (int b = b0; b <= b1; ++b) {
      const double overlap = std::min(s.t1_s, (b + 1) * bin_s) - std::max(s.t0_s, b * bin_s);
      if (overlap > 0) grid[(static_cast<std::size_t>(s.lane) * bins + b) * levels + level] += overlap;
    }
  }
  for (int lane = 0; lane < lanes; ++lane) {
    const double y = top + lane * (lane_h + gap);
    out += text(left - 6, y + lane_h - 6, chart.lanes[static_cast<std::size_t>(lane)], "text-anchor=\"end\"");
    out += "<rect x=\"" + num(left) + "\" y=\"" + num(y) + "\" width=\"" + num(plot_w) + "\" height=\"" + num(lane_h) +
           "\" fill=\"#f7f7f7\"/>\n";
    int run_level = -1, run_start = 0;
    auto flush = [&](int b_end) {
      if (run_level < 0) return;
      out += "<rect x=\"" + num(left + run_start * plot_w / bins) + "\" y=\"" + num(y) + "\" width=\"" +
             num((b_end - run_start) * plot_w / bins) + "\" height=\"" + num(lane_h) + "\" fill=\"" +
             palette[std::min(run_level, 7)] + "\"/>\n";
    };
    for (int b = 0; b <= bins; ++b) {
      int level = -1;
      if (b < bins) {
        double best = bin_s * 0.05;  // mostly idle columns stay empty
        for (int l = 0; l < levels; ++l) {
          const double v = grid[(static_cast<std::size_t>(lane) * bins + b) * levels + l];
          if (v > best) best = v, level = l;
        }
      }
      if (level != run_level || b == bins) {
        flush(b);
        run_level = level;
        run_start = b;
      }
    }
  }
  const Ticks t = nice_ticks(0, end, 8);
  const double axis_y = top + plot_h + 4;
  for (double v = 0; v <= end + t.step * 1e-6; v += t.step) {
    const double x = left + plot_w * v / end;
    out += "<line x1=\"" + num(x) + "\" x2=\"" + num(x) + "\" y1=\"" + num(axis_y) + "\" y2=\"" + num(axis_y + 4) +
           "\" stroke=\"#333\"/>\n";
    out += text(x, axis_y + 16, tick_label(v, t.step), "text-anchor=\"middle\" fill=\"#444\"");
  }
  out += text(left + plot_w / 2, axis_y + 32, "time [s]", "text-anchor=\"middle\"");
  if (!chart.footnote.empty()) out += text(left, height - 6, chart.footnote, "fill=\"#555\"", 10);
  return out + "</svg>\n";
}

}  // namespace rubato::cli
