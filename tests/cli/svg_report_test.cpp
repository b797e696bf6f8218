#include <catch2/catch.hpp>

#include <cmath>

#include "cli_test_support.hpp"
#include "analysis/comparison.hpp"
#include "render/report_figures.hpp"
#include "render/report_page.hpp"
#include "render/svg.hpp"

using namespace rubato;
using namespace rubato::cli;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

Comparison small_comparison(bool with_parts) {
  test::ScratchDir d;
  std::vector<std::string> policies{"baseline", "hermes"};
  if (with_parts) policies.insert(policies.end(), {"workpath", "workload"});
  for (const auto& p : policies)
    for (int t = 0; t < 3; ++t) {
      const double slow = p == "baseline" ? 1.0 : 1.05;
      const double joules = p == "baseline" ? 10.0 : p == "hermes" ? 8.5 + 0.1 * t : 9.2 + 0.1 * t;
      test::write_file(d.path() / (p + std::to_string(t) + ".json"),
                       to_json(test::make_report("./knn_omp -n 5", p, 2, t, slow + 0.01 * t, joules)));
    }
  return compare_runs(load_run_records({d.str()}), {0, "baseline"});
}

}  // namespace

TEST_CASE("Cli.Svg.TicksAndEscaping", "[cli][svg]") {
  const Ticks t = nice_ticks(-13, 42);
  CHECK(t.step == 10);
  CHECK(t.lo == -20);
  CHECK(t.hi == 50);
  const Ticks small = nice_ticks(0, 0.93);
  CHECK(small.step == Approx(0.2));
  CHECK(small.hi == Approx(1.0));
  CHECK(xml_escape("a<b & \"c\"") == "a&lt;b &amp; &quot;c&quot;");
}

TEST_CASE("Cli.Svg.BarChartDrawsEveryValueAndMarksMissingOnes", "[cli][svg]") {
  BarChart chart;
  chart.title = "T <1>";
  chart.categories = {"a", "b", "c"};
  chart.series = {{"s1", "#111", {1.0, -2.0, std::nullopt}, {0.5, NAN, NAN}}, {"s2", "#222", {3.0, 4.0, 5.0}, {}}};
  chart.reference = 1.0;
  const std::string svg = render_bar_chart(chart);
  CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(svg.find("</svg>") != std::string::npos);
  CHECK(svg.find("T &lt;1&gt;") != std::string::npos);  // escaped title
  CHECK(count(svg, "fill=\"#111\"><title>") == 2);      // two bars of s1
  CHECK(count(svg, "fill=\"#222\"><title>") == 3);
  CHECK(count(svg, ">n/a</text>") == 1);       // the missing one is marked
  CHECK(count(svg, "stroke-dasharray") == 1);  // the reference line
  CHECK(count(svg, "<path d=\"M") == 1);       // one whisker (the only finite CI)
}

TEST_CASE("Cli.Svg.TimelineIsBoundedByPixelsNotSpans", "[cli][svg]") {
  TimelineChart chart;
  chart.lanes = {"worker 0", "worker 1"};
  chart.level_names = {"L0", "L1"};
  chart.end_s = 1.0;
  // 200000 alternating tiny spans on lane 0, one long L1 span on lane 1.
  for (int i = 0; i < 200000; ++i) chart.spans.push_back({0, i * 5e-6, i * 5e-6 + 4e-6, i % 2});
  chart.spans.push_back({1, 0.25, 0.75, 1});
  const std::string svg = render_timeline(chart, 600);
  CHECK(svg.size() < 200000);                  // not one element per span
  CHECK(count(svg, "fill=\"#4eb3d3\"") >= 2);  // L1: the legend and lane 1's span
  CHECK(svg.find("worker 1") != std::string::npos);
}

TEST_CASE("Cli.Report.FiguresFollowThePaper", "[cli][report]") {
  const Comparison full = small_comparison(true);
  const auto figures = comparison_figures(full);
  std::vector<std::string> stems;
  for (const auto& f : figures) stems.push_back(f.stem);
  CHECK(stems == std::vector<std::string>{"energy-time-hermes", "energy-time-workpath", "energy-time-workload", "edp",
                                          "contribution-energy", "contribution-time"});
  // hermes saves 14% (8.6 vs 10): the bar's tooltip carries the value.
  CHECK(figures[0].svg.find("energy saving %: 14.000") != std::string::npos);
  const auto only_hermes = comparison_figures(small_comparison(false));
  CHECK(only_hermes.size() == 2);  // no contribution figures without workpath / workload runs

  const std::string html = report_html(full, figures, {"results/x"});
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(count(html, "<svg") == figures.size());
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("src=") == std::string::npos);
  CHECK(html.find("knn_omp -n 5 — 2 workers") != std::string::npos);
  CHECK(html.find("modeled:test") != std::string::npos);
}

TEST_CASE("Cli.Report.ContributionNeedsADistinguishableHermesFigure", "[cli][report]") {
  const Comparison c = small_comparison(true);
  const auto& w = c.workloads.at(0);
  const auto e = contribution(w, "workpath", "hermes", true);
  REQUIRE(e);
  // workpath saves 1 - 9.3/10 = 7 %, hermes 14 %: half of it
  CHECK(*e == Approx(7.0 / 14.0));
  // Time loss: both lose exactly 5 % ± CI, fine; a reference of 0 gives nothing.
  CHECK_FALSE(contribution(w, "workpath", "baseline", true));
}
