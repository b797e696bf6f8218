#include "calibrate/calibration_profile_uncore.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "calibrate/calibration_text.hpp"

namespace rubato {
namespace {

using calibration_text::mhz;
using calibration_text::num;

using json = nlohmann::json;

std::string levels_text(const std::vector<double>& hz) {
  std::string out;
  for (double f : hz) out += (out.empty() ? "" : ", ") + std::to_string(std::lround(f / 1e6));
  return out + " MHz";
}

double round_to(double v, double step) { return std::round(v / step) * step; }

// "uncore_power": per level the package power with every CPU idle.
void add_ladder(const CalibrationResult& r, const std::string& measured, json& j, json& sources) {
  json table = json::array();
  std::string per_level;
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& p : r.uncore_ladder) {
    table.push_back(
        {{"hz", p.hz}, {"w", round_to(std::max(0.0, p.idle_w), 1e-4)}, {"se_w", round_to(p.idle_se_w, 1e-5)}});
    per_level +=
        (per_level.empty() ? "" : ", ") + mhz(p.hz) + " " + num(p.idle_w, 4) + " ±" + num(p.idle_se_w, 2) + " W";
    lo = std::min(lo, p.per_busy_cpu_w);
    hi = std::max(hi, p.per_busy_cpu_w);
  }
  j["uncore_power"] = table;
  const double deviation = uncore_additivity_deviation(r.uncore_ladder);
  sources["uncore_power"] =
      measured + "RAPL package energy_uj (powercap, " + r.sysfs_root + "/class/powercap), " + num(r.seconds) +
      " s per point, at " + mhz(r.uncore_core_hz) +
      " core (the fastest), every intel_uncore_frequency domain pinned (min = max) at each level, every CPU idle and "
      "then all " +
      std::to_string(r.cpus.size()) +
      " measured CPUs in the compute loop: w is the level's power with every CPU idle, the x = 0 intercept of the "
      "line through its two points (as uncore_w is the intercept of the core lines); per level with its standard "
      "error: " +
      per_level + ". Additive-model check: loaded minus idle per busy CPU " + num(lo, 4) + ".." + num(hi, 4) +
      " W over the levels, at most " + num(100 * deviation, 2) +
      " % off their mean (the model P = uncore_w(fu) + sum busy_w assumes 0)";
}

// memory_bandwidth_knee_hz and, where counted, memory_transaction_rate_saturated_per_s.
void add_knee(const CalibrationResult& r, const std::string& name, const std::string& measured, json& j,
              json& sources) {
  const UncoreProbeResult& p = r.probe;
  const KneeFit& fit = p.fit;
  j["memory_bandwidth_knee_hz"] = round_to(fit.knee_hz, 1e6);
  std::string knee = measured + p.method + ", at " + mhz(r.uncore_core_hz) +
                     " core (the fastest), every uncore domain pinned at each of " + levels_text(r.uncore_hz) + ", " +
                     std::to_string(p.runs.size() / std::max<std::size_t>(1, r.uncore_hz.size())) +
                     " rounds (one warm-up run first; each round one level later), the least time per level; "
                     "t(fu) / t(" +
                     mhz(r.uncore_hz.front()) +
                     ") = 1 + b_u (g(fu) - 1) with g the time model's knee form, least squares over knees in 1 MHz "
                     "steps: b_u " +
                     num(fit.uncore_share, 4) +
                     (fit.uncore_share > 1 ? " (> 1: the probe slows faster below the knee than the form's f_k / fu)"
                                           : " (the probe's uncore share)") +
                     ", residual rms " + num(fit.residual_rms, 3) + " of the time ratio; the curve in " + name +
                     ".uncore-probe.csv";
  if (fit.knee_at_top)
    knee +=
        "; the best knee is the fastest level measured: the probe slowed as 1/fu at every level, no knee "
        "inside the range";
  sources["memory_bandwidth_knee_hz"] = knee;
  json probe = {{"uncore_sensitivity", round_to(fit.uncore_share, 1e-4)},
                {"residual_rms", round_to(fit.residual_rms, 1e-5)},
                {"largest_slowdown", round_to(fit.largest_slowdown, 1e-4)},
                {"method", p.method}};
  if (!p.rates_per_s.empty()) {
    const double rate = p.rate_per_s();
    probe["transaction_rate_per_s"] = rate;
    // A probe slowed beyond the form's share (b_u > 1) is wholly uncore-bound: its rate is the saturated one.
    const double share = std::min(1.0, fit.uncore_share);
    j["memory_transaction_rate_saturated_per_s"] = rate / share;
    sources["memory_transaction_rate_saturated_per_s"] =
        measured + "the probe's memory-transaction rate at the fastest uncore level (counters " + p.counters +
        ": the chip's memory accesses, else the probe threads' last-level cache misses, per second; median of " +
        std::to_string(p.rates_per_s.size()) + " runs: " + num(rate, 4) +
        "/s) divided by the probe's uncore share b_u " + num(share, 4) +
        " (memory_bandwidth_knee_hz's fit), so that min-energy's b_u = rate / this gives the probe its share" +
        (fit.uncore_share > 1 ? "; the fit's slope " + num(fit.uncore_share, 4) +
                                    " > 1: the probe slowed faster than the knee form allows, taken as wholly "
                                    "uncore-bound (share 1)"
                              : std::string());
  }
  j["memory_probe"] = probe;
  sources["memory_probe"] = "measured: informational (not read by the model): the fit behind memory_bandwidth_knee_hz";
}

}  // namespace

void add_uncore_fields(const CalibrationResult& r, const std::string& name, const std::string& measured, json& j,
                       json& sources) {
  if (!r.uncore_ladder.empty()) add_ladder(r, measured, j, sources);
  if (!r.uncore_hz.empty() && r.probe.failed.empty() && !r.probe.fit.flat && r.probe.fit.knee_hz > 0)
    add_knee(r, name, measured, j, sources);
}

std::string calibration_uncore_probe_csv(const CalibrationResult& r) {
  std::ostringstream out;
  out << "kind,uncore_hz,round,seconds,ratio,fitted_ratio\n";
  out.precision(10);
  const UncoreProbeResult& p = r.probe;
  for (const auto& run : p.runs) out << "run," << run.uncore_hz << ',' << run.round << ',' << run.seconds << ",,\n";
  for (std::size_t k = 0; k < p.best_s.size() && k < r.uncore_hz.size(); ++k) {
    out << "curve," << r.uncore_hz[k] << ",," << p.best_s[k] << ',' << p.best_s[k] / p.best_s.front() << ',';
    if (k < p.fit.fitted.size()) out << p.fit.fitted[k];
    out << '\n';
  }
  return out.str();
}

}  // namespace rubato
