// What `rubato calibrate` writes: the profile (power/profiles schema, each
// number's source naming the host, date, method and spread) and the raw
// samples beside it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "rubato/power/calibrate/calibration.hpp"
#include "calibrate/calibration_profile_uncore.hpp"
#include "calibrate/calibration_text.hpp"
#include "calibrate/sample_median.hpp"

namespace rubato {
namespace {

using calibration_text::mhz;
using calibration_text::num;

using json = nlohmann::json;

double round_to(double v, double step) { return std::round(v / step) * step; }

// "core_power" per frequency (the fitted slopes), and each slope's standard
// error per frequency for the compute (busy) and spin (idle) loops.
json core_power(const CalibrationResult& r, std::string& busy_spread, std::string& idle_spread) {
  json power = json::array();
  for (std::size_t f = 0; f < r.freqs_hz.size(); ++f) {
    const std::size_t gb = r.group(f, LoadKind::compute), gi = r.group(f, LoadKind::spin);
    // Negative slopes are noise around zero (a spin that costs nothing measurable).
    power.push_back({{"hz", r.freqs_hz[f]},
                     {"busy_w", round_to(std::max(0.0, r.fit.slope[gb]), 1e-4)},
                     {"idle_w", round_to(std::max(0.0, r.fit.slope[gi]), 1e-4)}});
    busy_spread += (f ? ", " : "") + mhz(r.freqs_hz[f]) + " ±" + num(r.fit.slope_se[gb], 2) + " W";
    idle_spread += (f ? ", " : "") + mhz(r.freqs_hz[f]) + " ±" + num(r.fit.slope_se[gi], 2) + " W";
  }
  return power;
}

// Where transition_latency_s comes from; `seen`: the transitions measured, in order.
std::string latency_source(const CalibrationResult& r, const std::vector<double>& seen, const std::string& measured) {
  if (seen.empty())
    return "NOT MEASURED: rubato calibrate, " + r.host + ", " + r.date +
           ", no transition seen within the time limit by " + r.latency_method;
  return measured + r.latency_method + " (from just before the cpufreq write " +
         (r.latency_method == "timing loop" ? std::string("until a compute loop on that CPU ran at the new speed")
                                            : std::string("until scaling_cur_freq showed the new frequency")) +
         "), median of " + std::to_string(seen.size()) + " transitions between " + mhz(r.freqs_hz.front()) + " and " +
         mhz(r.freqs_hz.back()) + "; range " + num(seen.front()) + ".." + num(seen.back()) + " s";
}

// dram_w (informational) and its source, where RAPL has a dram zone.
void add_dram(const CalibrationResult& r, const std::string& measured, json& j, json& sources) {
  std::vector<double> d;
  for (const auto& s : r.samples) d.push_back(s.dram_w());
  double mean = 0, sd = 0;
  for (double v : d) mean += v / static_cast<double>(d.size());
  for (double v : d) sd += (v - mean) * (v - mean);
  sd = d.size() > 1 ? std::sqrt(sd / static_cast<double>(d.size() - 1)) : 0;
  j["dram_w"] = round_to(mean, 1e-4);
  sources["dram_w"] = measured + "RAPL dram zone energy_uj, mean over all " + std::to_string(d.size()) +
                      " points (idle, compute and spin loops; not memory-bound), sd " + num(sd, 2) +
                      " W; not part of the package figures (informational: the power model does not use it)";
}

// The sources of the core_power table: the fitted slopes and their errors.
void add_core_power_sources(const std::string& measured, const std::string& rapl, const std::string& over_k,
                            const std::string& busy_spread, const std::string& idle_spread, json& sources) {
  sources["core_power.busy_w"] = measured + rapl +
                                 ", a compute loop (integer and floating-point dependency chain) on " + over_k +
                                 ": per frequency the least-squares slope, W per busy CPU (x = the loop "
                                 "threads' CPU time per second); standard error " +
                                 busy_spread;
  sources["core_power.idle_w"] = measured + rapl +
                                 ", a spin-wait loop (pause instructions, as a waiting OpenMP / "
                                 "oneTBB worker) on " +
                                 over_k +
                                 ": per frequency the least-squares slope, W per "
                                 "spinning CPU; standard error " +
                                 idle_spread;
}

// Where RAPL could not be read: power_from's core_power and uncore_w, each
// source saying where they come from and why they were not measured.
void copy_power(const CalibrationResult& r, json& j, json& sources) {
  const MachineProfile& from = *r.power_from;
  json power = json::array();
  for (const auto& p : from.core_power) power.push_back({{"hz", p.hz}, {"busy_w", p.busy_w}, {"idle_w", p.idle_w}});
  j["core_power"] = power;
  j["uncore_w"] = from.uncore_w;
  for (const char* key : {"core_power.busy_w", "core_power.idle_w", "uncore_w"}) {
    const auto it = from.sources.find(key);
    const auto why = r.not_measured.find(key == std::string("uncore_w") ? "uncore_w" : "core_power");
    sources[key] = "NOT MEASURED here (" + (why != r.not_measured.end() ? why->second : std::string("no RAPL")) +
                   "); copied from profile " + r.power_from_name + ": " +
                   (it != from.sources.end() ? it->second : std::string("(no source given)"));
  }
}

}  // namespace

std::string calibration_profile_json(const CalibrationResult& r, const std::string& name) {
  const std::string measured = "measured: rubato calibrate, " + r.host + ", " + r.date + ", ";
  const std::string rapl =
      "RAPL package energy_uj (powercap, " + r.sysfs_root + "/class/powercap), " + num(r.seconds) + " s per point";
  const std::string over_k =
      "k = 0.." + std::to_string(r.cpus.size()) + " CPUs (" + std::to_string(r.cpus.size()) + " loaded, pinned)";
  json j;
  j["name"] = name;
  std::string missing;
  for (const auto& [field, why] : r.not_measured) missing += (missing.empty() ? "" : ", ") + field;
  j["description"] = std::string(r.unreliable.empty() ? "" : "UNRELIABLE (see 'unreliable'): ") +
                     "Measured by rubato calibrate on " + r.host + " (" +
                     (r.cpu_model.empty() ? std::string("unknown CPU") : r.cpu_model) + "), " + r.date +
                     (missing.empty() ? "" : "; not measured: " + missing + " (see 'not_measured')");
  if (!r.unreliable.empty()) j["unreliable"] = r.unreliable;
  if (!r.not_measured.empty()) j["not_measured"] = r.not_measured;
  j["cpu_model_match"] = json::array();
  j["cores"] = r.online_cpus;
  j["cores_per_domain"] = r.cpus_per_domain;
  j["frequencies_hz"] = r.freqs_hz;
  std::string busy_spread, idle_spread;
  json sources;
  if (r.measured_power) {
    j["core_power"] = core_power(r, busy_spread, idle_spread);
    j["uncore_w"] = round_to(std::max(0.0, r.fit.intercept), 1e-4);
  } else {
    copy_power(r, j, sources);
  }
  j["beta"] = 1.0;

  std::vector<double> seen;
  for (const auto& t : r.transitions)
    if (t.seconds >= 0) seen.push_back(t.seconds);
  j["transition_latency_s"] = std::min(1.0, median_of(seen));
  j["active_cores_power_w"] = json::array();
  j["memory_accesses_per_s"] = 0;

  sources["cores"] = measured + "online CPUs (" + r.sysfs_root +
                     "/devices/system/cpu/online); a core here is a CPU the kernel lists (an SMT thread counts as one)";
  sources["cores_per_domain"] = measured + "largest cpufreq related_cpus group";
  sources["frequencies_hz"] = measured + "the frequencies measured (cpufreq scaling_available_frequencies or --freqs)";
  if (r.measured_power) {
    sources["uncore_w"] = measured + rapl + ", every CPU idle and " + over_k +
                          " running a loop: the intercept shared by the least-squares lines of every frequency "
                          "and loop; ±" +
                          num(r.fit.intercept_se, 2) + " W (standard error), residual sd " + num(r.fit.residual_sd, 2) +
                          " W over " + std::to_string(r.fit.dof) + " degrees of freedom";
    add_core_power_sources(measured, rapl, over_k, busy_spread, idle_spread, sources);
  }
  sources["beta"] =
      "ASSUMPTION: 1 (all work scales with frequency); a machine has no single beta: measure a "
      "program's with `rubato calibrate --beta -- PROGRAM` and set RUBATO_BETA";
  sources["transition_latency_s"] = latency_source(r, seen, measured);
  if (r.has_dram && r.measured_power) add_dram(r, measured, j, sources);
  add_uncore_fields(r, name, measured, j, sources);
  j["sources"] = sources;
  return j.dump(2) + "\n";
}

namespace {

void sample_rows(std::ostringstream& out, const CalibrationSample& s, int used) {
  for (std::size_t i = 0; i < s.windows.size(); ++i) {
    const auto& w = s.windows[i];
    out << s.hz << ',' << to_string(s.loop) << ',' << s.k << ',' << i << ',' << w.start_s << ',' << w.seconds << ','
        << w.package_j << ',' << w.dram_j << ',' << w.load_cpu_s << ',' << w.system_busy_s << ',' << s.cur_hz << ','
        << w.own_cpu_s << ',' << s.uncore_hz << ',' << used << '\n';
  }
}

}  // namespace

std::string calibration_samples_csv(const CalibrationResult& r) {
  std::ostringstream out;
  out << "hz,loop,k,window,start_s,seconds,package_j,dram_j,load_cpu_s,system_busy_cpu_s,cur_hz,own_cpu_s,uncore_hz,"
         "used\n";
  out.precision(10);
  for (const auto& s : r.samples) sample_rows(out, s, 1);
  for (const auto& s : r.uncore_samples) sample_rows(out, s, 1);
  for (const auto& s : r.set_aside) sample_rows(out, s, 0);
  for (const auto& s : r.uncore_set_aside) sample_rows(out, s, 0);
  return out.str();
}

std::string calibration_transitions_csv(const CalibrationResult& r) {
  std::ostringstream out;
  out << "from_hz,to_hz,seconds,method\n";
  out.precision(10);
  for (const auto& t : r.transitions)
    out << t.from_hz << ',' << t.to_hz << ',' << t.seconds << ',' << r.latency_method << '\n';
  return out.str();
}

}  // namespace rubato
