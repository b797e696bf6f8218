#include "calibrate/calibration_probe.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <thread>

#include "rubato/core/min_energy/sensitivity_source.hpp"
#include "rubato/power/calibrate/memory_probe.hpp"
#include "rubato/power/counters/counter_source.hpp"
#include "calibrate/calibration_text.hpp"

namespace rubato {

namespace {

using calibration_text::mhz;

// A timing of the built-in probe lasts about this long at the fastest level:
// long against a scheduler tick, short enough for rounds x levels of them.
constexpr double kProbeTargetS = 0.2;
// After the uncore moved, before timing: the limits written take effect.
constexpr auto kUncoreSettle = std::chrono::milliseconds(50);

std::string mib(std::size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }
// "" when the counters can give the probe's memory-transaction rate — the
// chip's memory accesses, else (for the built-in probe, whose threads are
// tracked) the threads' last-level cache misses — else why not.
std::string counters_problem(const CounterSet& counters, const std::string& setting, bool threads_tracked) {
  using counters::Metric;
  const auto& a = counters.availability();
  if (a.has(Metric::mem_accesses) || (threads_tracked && a.has(Metric::llc_misses))) return "";
  if (a.has(Metric::llc_misses))
    return "the counters here count last-level cache misses per thread only, and a probe program's threads are "
           "not followed (the built-in probe's are)";
  return "no counter source counts memory transactions here (RUBATO_COUNTERS=" + setting +
         "; mem_accesses: " + a[Metric::mem_accesses].note + "; llc_misses: " + a[Metric::llc_misses].note + ")";
}

// The probe being timed, and the counters read while it runs at the reference level.
struct Probe {
  ProbeTiming time;
  std::unique_ptr<MemoryProbe> builtin;
  std::unique_ptr<CounterSet> counters;
  bool count = false;     // the counters can give a rate
  bool recorded = false;  // a replay: each sample is one recorded interval, so no reset before a run
};

// The built-in triad on the measured CPUs, timed in as many passes as take
// about kProbeTargetS at the level now set; `method` says what it is.
bool start_builtin(const CalibrationOptions& o, const Topology& t, const CalibrationResult& r, Probe& p,
                   std::string& method, std::string& why) {
  p.builtin = std::make_unique<MemoryProbe>();
  const std::size_t bytes = o.probe_bytes > 0 ? o.probe_bytes : memory_probe_bytes(t);
  if (!p.builtin->start(r.cpus, bytes, why)) return false;
  const double one = p.builtin->run(1);
  const int passes = std::clamp(static_cast<int>(std::ceil(kProbeTargetS / std::max(one, 1e-6))), 1, 10000);
  MemoryProbe* probe = p.builtin.get();
  p.time = [probe, passes](std::string&) { return probe->run(passes); };
  char text[256];
  std::snprintf(text, sizeof text,
                "the built-in streaming triad a = b + s*c over %s, %zu threads pinned one per measured CPU, %d "
                "passes per timing, the CPU time of the slowest thread",
                mib(p.builtin->bytes()).c_str(), r.cpus.size(), passes);
  method = text;
  return true;
}

void start_counters(const CalibrationOptions& o, Probe& p, UncoreProbeResult& out) {
  CounterSourceOptions options;
  options.want = {counters::Metric::mem_accesses, counters::Metric::llc_misses};
  options.auto_leaves_out = {"likwid"};  // its probe forks a child (min-energy's reason too)
  p.counters = std::make_unique<CounterSet>(o.counters, options);
  out.counters = p.counters->names();
  p.recorded = o.counters.rfind("replay:", 0) == 0;
  out.no_rate = counters_problem(*p.counters, o.counters, p.builtin != nullptr);
  p.count = out.no_rate.empty();
  if (!p.count || !p.builtin) return;
  for (std::size_t i = 0; i < p.builtin->tids().size(); ++i)
    p.counters->track({i, static_cast<int>(::getpid()), p.builtin->tids()[i], p.builtin->cpus()[i]});
}

// One timing at the level set; at the reference level the counters' rate too.
double timed(Probe& p, bool reference, UncoreProbeResult& out, std::string& why) {
  const bool count = reference && p.count;
  if (count && !p.recorded) p.counters->sample(0);  // from here
  const double s = p.time(why);
  if (!count || s < 0) return s;
  std::string no_rate;
  if (const auto rate = min_energy::memory_transaction_rate(p.counters->sample(s), no_rate))
    out.rates_per_s.push_back(*rate);
  else if (out.rates_per_s.empty())
    out.no_rate = "the counters (" + out.counters + ") gave no memory transactions during the probe: " + no_rate;
  return s;
}

// Per level the least time, the curve and its fit, said in two lines.
void fit_curve(CalibrationResult& r, const std::function<void(const std::string&)>& say) {
  UncoreProbeResult& out = r.probe;
  out.best_s.assign(r.uncore_hz.size(), -1);
  for (const auto& run : out.runs) {
    const auto k = static_cast<std::size_t>(std::find(r.uncore_hz.begin(), r.uncore_hz.end(), run.uncore_hz) -
                                            r.uncore_hz.begin());
    if (k < out.best_s.size() && (out.best_s[k] < 0 || run.seconds < out.best_s[k])) out.best_s[k] = run.seconds;
  }
  std::vector<KneePoint> points;
  std::string curve;
  for (std::size_t k = 0; k < r.uncore_hz.size(); ++k) {
    points.push_back({r.uncore_hz[k], out.best_s[k] / out.best_s[0]});
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s%.0f MHz %.3f", k ? ", " : "", r.uncore_hz[k] / 1e6, points.back().ratio);
    curve += buf;
  }
  out.fit = fit_memory_bandwidth_knee(points, r.uncore_hz.front());
  say("uncore probe, least time per level relative to the fastest: " + curve);
  if (out.fit.flat) return;
  char line[200];
  std::snprintf(line, sizeof line, "uncore probe fit: knee %.0f MHz%s, uncore share %.3f, residual rms %.4f",
                out.fit.knee_hz / 1e6, out.fit.knee_at_top ? " (the fastest level: no knee inside the range)" : "",
                out.fit.uncore_share, out.fit.residual_rms);
  say(line);
}

}  // namespace

bool measure_uncore_probe(const CalibrationOptions& o, const Topology& t, CalibrationUncore& uncore,
                          CalibrationResult& r, const std::function<void(const std::string&)>& say,
                          std::string& error) {
  UncoreProbeResult& out = r.probe;
  const std::vector<double>& levels = r.uncore_hz;
  if (!uncore.set(levels.front(), error)) return false;
  std::this_thread::sleep_for(kUncoreSettle);
  Probe p;
  std::string why;
  if (o.probe_program) {
    p.time = o.probe_program;
    out.method = "the program " + o.probe_program_name + ", the CPU time (user + system, all its threads) of one run";
  } else if (!start_builtin(o, t, r, p, out.method, why)) {
    out.failed = why;
    return true;
  }
  start_counters(o, p, out);
  say("uncore probe: " + out.method + "; " + std::to_string(o.probe_rounds) + " rounds of " +
      std::to_string(levels.size()) + " levels; counters: " + out.counters);
  auto stopped = [&] {
    if (!o.stop_requested || !o.stop_requested()) return false;
    error = "interrupted";
    return true;
  };
  if (p.time(why) < 0) {  // the warm-up, not counted
    out.failed = "the warm-up run at " + mhz(levels.front()) + ": " + why;
    return !stopped();
  }
  for (int round = 0; round < o.probe_rounds; ++round)
    for (std::size_t j = 0; j < levels.size(); ++j) {
      const std::size_t k = (static_cast<std::size_t>(round) + j) % levels.size();
      if (stopped() || !uncore.set(levels[k], error)) return false;
      std::this_thread::sleep_for(kUncoreSettle);
      const double s = timed(p, k == 0, out, why);
      if (s < 0) {
        out.failed = "at uncore " + mhz(levels[k]) + ", round " + std::to_string(round + 1) + ": " + why;
        return !stopped();
      }
      out.runs.push_back({levels[k], round, s});
    }
  std::string ignored;
  uncore.set(levels.front(), ignored);  // the fastest again for what follows
  fit_curve(r, say);
  return true;
}

}  // namespace rubato
