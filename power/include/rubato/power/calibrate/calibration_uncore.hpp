// The uncore measurements of `rubato calibrate` (docs/calibrate.md), where
// intel_uncore_frequency lets rubato set it: the uncore as calibration moves
// it (every domain at min = max, its limits saved before the first write and
// put back at the end, at fatal signals and by `rubato restore`), the levels
// measured, the power ladder they give, and the probe that times uncore-bound
// work at each level (its knee and, where counters count memory
// transactions, its transaction rate).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "rubato/power/calibrate/knee_fit.hpp"
#include "rubato/power/frequency/frequency_control.hpp"
#include "rubato/power/machine/topology.hpp"

namespace rubato {

class UncoreFrequency;

class CalibrationUncore {
 public:
  CalibrationUncore(const Topology& t, std::string state_dir);
  ~CalibrationUncore();
  CalibrationUncore(const CalibrationUncore&) = delete;
  CalibrationUncore& operator=(const CalibrationUncore&) = delete;

  // Domains exist, their limits are writable, state can be saved; else `why`
  // (which, and how to get it). Changes nothing.
  bool usable(std::string& why);
  // The range every domain offers (Hz): the largest initial minimum, the smallest initial maximum.
  double slowest_hz() const noexcept { return slowest_hz_; }
  double fastest_hz() const noexcept { return fastest_hz_; }
  // Every domain at `hz` (min = max), saving every domain's limits first.
  bool set(double hz, std::string& why);
  // current_freq_khz of the first domain (Hz), 0 when unreadable.
  double current_hz() const;
  RestoreOutcome end() noexcept;

 private:
  std::unique_ptr<UncoreFrequency> driver_;
  double slowest_hz_ = 0, fastest_hz_ = 0;
};

// The default levels: `min_hz`..`max_hz` in 7 evenly spaced steps aligned to
// 100 MHz (Intel's uncore ratio unit, docs/uncore.md), fewer where the range
// has fewer 100 MHz steps; fastest first.
std::vector<double> default_uncore_levels(double min_hz, double max_hz);
// `asked` (--uncore-freqs; empty: the default) checked against the range:
// descending, at least two; false + `error` naming the option otherwise.
bool plan_uncore_levels(const std::vector<double>& asked, double min_hz, double max_hz, std::vector<double>& levels,
                        std::string& error);

// One timing of the probe.
struct UncoreProbeRun {
  double uncore_hz = 0;
  int round = 0;
  double seconds = 0;
};

// What the probe measured: its time at each level, the knee fitted to it, and
// the memory-transaction rate counted while it ran at the reference setting.
struct UncoreProbeResult {
  std::string method;                // what was timed, how
  std::vector<UncoreProbeRun> runs;  // every timing, in order (the warm-up left out)
  std::vector<double> best_s;        // per level (CalibrationResult::uncore_hz): the least time
  KneeFit fit;
  std::string failed;               // why the probe stopped, "" when it ran through
  std::string counters;             // the counter sources read ("none")
  std::vector<double> rates_per_s;  // the transaction rate of each reference run
  std::string no_rate;              // why there is no rate
  double rate_per_s() const;        // the median of rates_per_s, 0 without
};

// A probe timing: the seconds of one run, < 0 and `why` when it failed.
using ProbeTiming = std::function<double(std::string& why)>;

// One package-power point of the uncore ladder, from its two measurements.
struct UncoreLadderPoint {
  double hz = 0;
  double idle_w = 0, idle_se_w = 0;  // every CPU idle: the level's uncore_w (the x = 0 intercept)
  double loaded_w = 0;               // every measured CPU in the compute loop
  double busy_cpus = 0;              // the CPU time the loaded threads got per second
  double per_busy_cpu_w = 0;         // (loaded − idle) / busy_cpus
};

// The additive model's check: how far the loaded points' power above idle per
// busy CPU moves with the uncore level, as the largest deviation from their
// mean relative to it (0: the model's exact assumption).
double uncore_additivity_deviation(const std::vector<UncoreLadderPoint>& ladder);

}  // namespace rubato
