#include "render/report_figures.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "render/compare_output.hpp"
#include "render/svg.hpp"

namespace rubato::cli {
namespace {

constexpr const char* kBlue = "#1f77b4";
constexpr const char* kRed = "#d62728";
const char* const kPolicyColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2"};

std::string ghz(double hz) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g GHz", hz / 1e9);
  return buf;
}

// The paper's last column: the plain mean of the groups' means.
void append_average(BarChart& chart) {
  bool any = false;
  for (auto& s : chart.series) {
    double sum = 0;
    int n = 0;
    for (const auto& v : s.values)
      if (v && std::isfinite(*v)) sum += *v, ++n;
    s.values.push_back(n ? std::optional<double>(sum / n) : std::nullopt);
    s.ci95.push_back(NAN);
    any |= n > 0;
  }
  if (any) chart.categories.push_back("average");
  else
    for (auto& s : chart.series) s.values.pop_back(), s.ci95.pop_back();
}

void push(BarSeries& s, const std::optional<Ratio>& r) {
  s.values.push_back(r && std::isfinite(r->value) ? std::optional<double>(r->value) : std::nullopt);
  s.ci95.push_back(r ? r->ci95 : NAN);
}

std::string energy_sources(const Comparison& c) {
  std::set<std::string> sources;
  for (const auto& w : c.workloads)
    for (const auto& p : w.policies)
      if (!p.energy_source.empty()) sources.insert(p.energy_source);
  std::string out;
  for (const auto& s : sources) out += (out.empty() ? "" : ", ") + s;
  return out.empty() ? "no energy figure" : out;
}

std::vector<std::string> compared_policies(const Comparison& c) {
  std::vector<std::string> order;
  for (const auto& w : c.workloads)
    for (const auto& p : w.policies)
      if (p.policy != c.baseline && std::find(order.begin(), order.end(), p.policy) == order.end())
        order.push_back(p.policy);
  // hermes first: it is what Figs. 6-9 show.
  std::stable_partition(order.begin(), order.end(), [](const std::string& p) { return p == "hermes"; });
  return order;
}

}  // namespace

std::string category_label(const WorkloadResult& w) {
  return display_workload(w.workload) + " · " + std::to_string(w.workers) + "w";
}

namespace {

// One policy's energy saving and time loss per workload ([HERMES] Figs. 6-7).
Figure energy_time_figure(const Comparison& c, const std::string& policy, const std::string& note) {
  BarChart chart;
  chart.title = "Energy saving and time loss of " + policy + " w.r.t. " + c.baseline;
  chart.y_label = "% of " + c.baseline;
  chart.footnote = note;
  BarSeries saving{"energy saving %", kBlue, {}, {}}, loss{"time loss %", kRed, {}, {}};
  for (const auto& w : c.workloads) {
    const PolicyResult* p = w.find(policy);
    chart.categories.push_back(category_label(w));
    push(saving, p ? p->energy_saving_pct() : std::nullopt);
    push(loss, p ? p->time_loss_pct() : std::nullopt);
  }
  chart.series = {saving, loss};
  append_average(chart);
  return {"energy-time-" + policy,
          "Energy saved (blue) and time lost (red) by " + policy + ", in % of " + c.baseline +
              " for the same workload and worker count ([HERMES] Figs. 6-7 style; higher blue and "
              "lower red are better).",
          render_bar_chart(chart)};
}

// Every policy's EDP over the baseline's ([HERMES] Figs. 8-9).
Figure edp_figure(const Comparison& c, const std::vector<std::string>& policies, const std::string& note) {
  BarChart chart;
  chart.title = "Normalised energy-delay product (EDP / " + c.baseline + ")";
  chart.y_label = "EDP / " + c.baseline;
  chart.reference = 1.0;
  chart.footnote = note;
  for (std::size_t i = 0; i < policies.size(); ++i) {
    BarSeries s{policies[i], kPolicyColors[i % 7], {}, {}};
    for (const auto& w : c.workloads) {
      const PolicyResult* p = w.find(policies[i]);
      push(s, p ? p->edp_ratio : std::nullopt);
    }
    chart.series.push_back(std::move(s));
  }
  for (const auto& w : c.workloads) chart.categories.push_back(category_label(w));
  append_average(chart);
  return {"edp",
          "Energy-delay product of each policy divided by " + c.baseline +
              "'s ([HERMES] Figs. 8-9 style; below the dashed line at 1 is better).",
          render_bar_chart(chart)};
}

// Waiting (rubato's own, beyond the papers): how much of each policy's waiting time was spent
// lowered to the slowest level (slack and eco; 0 for the papers' policies).
Figure waiting_figure(const Comparison& c, const std::vector<std::string>& policies) {
  BarChart chart;
  chart.title = "Waiting time spent at the slowest level";
  chart.y_label = "% of waiting time";
  chart.footnote = "ratio of the means over trials; waiting = out of work, in a barrier or between regions";
  std::vector<std::string> all = {c.baseline};
  all.insert(all.end(), policies.begin(), policies.end());
  for (std::size_t i = 0; i < all.size(); ++i) {
    BarSeries series{all[i], kPolicyColors[i % 7], {}, {}};
    for (const auto& w : c.workloads) {
      const PolicyResult* p = w.find(all[i]);
      if (p && p->wait_s.n && p->wait_s.mean > 0)
        series.values.push_back(100.0 * p->wait_slowed_s.mean / p->wait_s.mean);
      else series.values.push_back(std::nullopt);
      series.ci95.push_back(NAN);
    }
    chart.series.push_back(std::move(series));
  }
  for (const auto& w : c.workloads) chart.categories.push_back(category_label(w));
  return {"waiting",
          "Share of each policy's waiting time spent lowered to the slowest level (slack: "
          "workers that waited longer than the dwell; higher means more of the wait was "
          "slowed).",
          render_bar_chart(chart)};
}

// workpath and workload alone relative to hermes ([HERMES] Figs. 10-13).
Figure contribution_figure(const Comparison& c, bool energy) {
  BarChart chart;
  chart.title =
      std::string(energy ? "Energy saving" : "Time loss") + " of workpath and workload alone, relative to hermes";
  chart.y_label = energy ? "saving / hermes saving" : "loss / hermes loss";
  chart.reference = 1.0;
  chart.footnote = "ratios of means; n/a where hermes' own figure is unknown or not distinguishable from zero (95% CI)";
  BarSeries wp{"workpath", kBlue, {}, {}}, wl{"workload", kRed, {}, {}};
  for (const auto& w : c.workloads) {
    chart.categories.push_back(category_label(w));
    wp.values.push_back(contribution(w, "workpath", "hermes", energy));
    wl.values.push_back(contribution(w, "workload", "hermes", energy));
  }
  chart.series = {wp, wl};
  return {energy ? "contribution-energy" : "contribution-time",
          std::string(energy ? "Energy saving" : "Time loss") +
              " of each strategy alone divided by that of hermes (both strategies), as in [HERMES] " +
              (energy ? "Figs. 10 and 12" : "Figs. 11 and 13") + ".",
          render_bar_chart(chart)};
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

std::vector<Figure> comparison_figures(const Comparison& c) {
  std::vector<Figure> figures;
  const std::string note = "mean ± 95% CI; energy " + energy_sources(c) + "; first " + std::to_string(c.skip) +
                           " trials of each series dropped";
  const std::vector<std::string> policies = compared_policies(c);
  for (const std::string& policy : policies) figures.push_back(energy_time_figure(c, policy, note));
  if (!policies.empty()) figures.push_back(edp_figure(c, policies, note));
  bool any_slowed = false;
  for (const auto& w : c.workloads)
    for (const auto& p : w.policies) any_slowed |= p.wait_slowed_s.n && p.wait_slowed_s.mean > 0;
  if (any_slowed) figures.push_back(waiting_figure(c, policies));
  if (contains(policies, "hermes") && (contains(policies, "workpath") || contains(policies, "workload")))
    for (const bool energy : {true, false}) figures.push_back(contribution_figure(c, energy));
  return figures;
}

Figure timeline_figure(const Trace& trace, const std::string& name, const std::string& stem) {
  TimelineChart chart;
  chart.title = "Tempo of each worker over time — " + name;
  for (std::size_t l = 0; l < trace.header.level_hz.size(); ++l)
    chart.level_names.push_back("L" + std::to_string(l) + " " + ghz(trace.header.level_hz[l]));
  std::map<WorkerId, int> lane_of;
  std::uint64_t end_ns = 0;
  std::size_t segments = 0;
  for (const TraceTask& t : trace.tasks)
    for (const TraceSegment& s : t.segments) {
      lane_of.emplace(s.worker, 0);
      end_ns = std::max(end_ns, s.start_ns + s.duration_ns);
    }
  int lane = 0;
  for (auto& [worker, index] : lane_of) {
    index = lane++;
    chart.lanes.push_back("worker " + std::to_string(worker));
  }
  for (const TraceTask& t : trace.tasks)
    for (const TraceSegment& s : t.segments) {
      ++segments;
      chart.spans.push_back({lane_of[s.worker], static_cast<double>(s.start_ns) * 1e-9,
                             static_cast<double>(s.start_ns + s.duration_ns) * 1e-9, s.level});
    }
  chart.end_s = static_cast<double>(end_ns) * 1e-9;
  chart.footnote = std::to_string(segments) +
                   " task segments; each pixel column shows the level that ran longest "
                   "there; empty = idle";
  return {stem, "Which tempo level each worker ran its tasks at, over the run (" + name + ").", render_timeline(chart)};
}

}  // namespace rubato::cli
