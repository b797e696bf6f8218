// `rubato calibrate` (docs/calibrate.md): measures this
// machine's profile with RAPL (powercap energy_uj) and cpufreq control —
// package power with every CPU idle and with k = 1..n CPUs running a compute
// loop and a spin-wait loop at each frequency, the frequency transition
// latency, DRAM power where RAPL has a dram zone — and, where
// intel_uncore_frequency lets it set the uncore, the package power at each
// uncore level (the uncore power ladder) and the time of uncore-bound work
// at each level (the memory-bandwidth knee; calibration_uncore.hpp). It
// writes a profile RUBATO_PROFILE accepts, each number with its method and
// spread, what it could not measure and why, and the raw samples beside it.
// Every cpufreq and uncore setting it changes is saved first and put back at
// the end, at a fatal signal, or by `rubato restore` (the state files and
// restore plans of the sysfs back-ends).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rubato/power/calibrate/calibration_fit.hpp"
#include "rubato/power/calibrate/calibration_load.hpp"
#include "rubato/power/calibrate/calibration_uncore.hpp"
#include "rubato/power/frequency/frequency_control.hpp"
#include "rubato/power/machine/profile.hpp"
#include "rubato/power/machine/topology.hpp"

namespace rubato {

class SysfsFrequency;

struct CalibrationOptions {
  std::string sysfs_root = "/sys";
  std::string state_dir;         // "" = default_state_dir()
  std::vector<int> cpus;         // CPUs to load; empty: every online CPU with a cpufreq policy
  std::vector<double> freqs_hz;  // frequencies to measure; empty: every available one
  double seconds = 5.0;          // per measurement
  double settle_s = -1;          // after a change of load or frequency; < 0: min(0.5 s, seconds / 4)
  int windows = 10;              // sub-windows per measurement (their spread is the point's spread)
  int latency_repeats = 5;       // per direction (fastest -> slowest, slowest -> fastest)
  // A point is polluted when other processes used more than `quiet_limit_cpus`
  // CPUs during it (the machine's busy time in /proc/stat less this process's
  // own CPU time): its power is then in the point. It is measured again once
  // the machine is quiet, waiting at most `quiet_wait_s` per point; a point
  // still polluted then ends the calibration with an error, or with
  // `allow_noisy` is kept and the profile marked unreliable.
  double quiet_limit_cpus = 0.1;
  double quiet_wait_s = 30;
  bool allow_noisy = false;
  std::function<void(const std::string&)> progress;  // one line per step; may be empty

  // The uncore, where intel_uncore_frequency lets it be set (else not measured, and why):
  std::vector<double> uncore_hz;  // levels to measure (--uncore-freqs); empty: default_uncore_levels
  bool uncore_asked = false;      // the command asked for the uncore (--uncore-freqs, --uncore-probe)
  int probe_rounds = 5;           // rounds of the probe, each timing every level once (rotated)
  std::size_t probe_bytes = 0;    // the built-in probe's arrays together; 0: memory_probe_bytes
  // A program to time instead of the built-in probe (--uncore-probe), and its
  // name for the sources; empty: the built-in streaming triad.
  ProbeTiming probe_program;
  std::string probe_program_name;
  std::string counters = "auto";  // RUBATO_COUNTERS: what counts the probe's memory transactions
  // Where RAPL cannot be read but the uncore can be timed: the profile whose
  // power figures the written profile copies, each saying so (RUBATO_PROFILE).
  std::optional<MachineProfile> power_from;
  std::string power_from_name;
  std::function<bool()> stop_requested;  // a forwarded SIGINT / SIGTERM: stop between measurements
};

// The machine's busy time comes from proc/stat beside the sysfs root:
// /proc/stat for /sys, DIR/proc/stat for a fake tree at DIR/root where the
// fake has one (else /proc/stat).
std::string calibration_proc_stat(const std::string& sysfs_root);

// This host's name, and the time now as UTC ISO 8601 (what sources cite).
std::string calibration_host();
std::string calibration_date();

// The measurement's wall time, s, for `cpus` CPUs and `freqs` frequencies ...
double calibration_duration_s(const CalibrationOptions& o, std::size_t cpus, std::size_t freqs);
// ... and for the uncore power ladder's `levels` (the probe's time is the probe's).
double calibration_uncore_duration_s(const CalibrationOptions& o, std::size_t levels);

// One sub-window of a measurement (the raw samples).
struct CalibrationWindow {
  double start_s = 0;  // since the calibration began
  double seconds = 0;
  double package_j = 0;      // sum over the RAPL package zones
  double dram_j = 0;         // sum over the dram zones (0 without)
  double load_cpu_s = 0;     // CPU time the loaded threads used
  double system_busy_s = 0;  // /proc/stat: busy time of every online CPU (anyone's)
  double own_cpu_s = 0;      // CPU time of this process (all its threads)
};

// One measurement: `k` CPUs running `loop` at `hz` (k = 0: all idle).
struct CalibrationSample {
  double hz = 0;
  LoadKind loop = LoadKind::idle;
  std::size_t k = 0;
  double cur_hz = 0;     // scaling_cur_freq of the first loaded CPU's policy at the end (0 unknown)
  double uncore_hz = 0;  // the uncore level pinned during it; 0: left as the machine had it
  std::vector<CalibrationWindow> windows;

  double seconds() const;
  double package_w() const;
  double package_sd_w() const;  // standard deviation of the windows' power
  double dram_w() const;
  double dram_sd_w() const;
  double busy_cpus() const;  // the loaded threads' CPU time per second (≈ k)
  double system_busy_cpus() const;
  double own_cpus() const;     // this process's CPU time per second
  double others_cpus() const;  // other processes' CPU time per second (system less own)
};

struct TransitionSample {
  double from_hz = 0, to_hz = 0;
  double seconds = -1;  // < 0: not seen
};

struct CalibrationResult {
  std::string host, date, cpu_model;  // date: UTC, ISO 8601
  std::string sysfs_root;
  int online_cpus = 0;
  int cpus_per_domain = 1;
  std::vector<int> cpus;
  std::vector<double> freqs_hz;            // measured, descending
  double seconds = 0;                      // per measurement
  std::vector<CalibrationSample> samples;  // the points fitted, one per point
  // Measurements set aside as polluted, each followed by a new one of its point.
  std::vector<CalibrationSample> set_aside;
  std::string proc_stat;  // where the machine's busy time was read
  // Why the profile cannot be trusted (points kept polluted with
  // allow_noisy); empty when every fitted point was quiet.
  std::string unreliable;
  bool has_dram = false;
  // Transition latency: how it was measured ("timing loop": until a compute
  // loop on the CPU ran at the new speed; "scaling_cur_freq readback": until
  // the driver reported the new frequency, when the loop saw no change of speed).
  std::string latency_method;
  std::vector<TransitionSample> transitions;
  double loop_rate_fast = 0, loop_rate_slow = 0;  // timing-loop iterations/s at the fastest / slowest
  // Groups of the fit: 2 per frequency (i = 2 * f + 0 compute, + 1 spin).
  SharedInterceptFit fit;
  std::vector<std::string> warnings;

  // Package power was measured (RAPL); false: the power figures are power_from's.
  bool measured_power = true;
  std::optional<MachineProfile> power_from;
  std::string power_from_name;
  // The uncore levels measured, descending (empty: the uncore was not
  // measured), at the core frequency uncore_core_hz.
  std::vector<double> uncore_hz;
  double uncore_core_hz = 0;
  // Per level, in uncore_hz's order: every CPU idle, then every measured CPU
  // in the compute loop (empty without RAPL); the set-aside ones beside.
  std::vector<CalibrationSample> uncore_samples, uncore_set_aside;
  std::vector<UncoreLadderPoint> uncore_ladder;  // from uncore_samples
  UncoreProbeResult probe;
  // What could not be measured, field -> why (the profile's "not_measured").
  std::map<std::string, std::string> not_measured;

  std::size_t group(std::size_t freq_index, LoadKind loop) const { return 2 * freq_index + (loop == LoadKind::spin); }
};

// Can calibration run here? false + one line saying what is missing (RAPL,
// frequency control, or both) and how to get it. Reads only. `need_rapl`
// false: frequency control alone (what --beta needs).
bool calibration_possible(const CalibrationOptions& o, std::string& why, bool need_rapl = true);
// The frequencies to measure, descending: the listed ones, or five steps
// from cpuinfo_max_freq to cpuinfo_min_freq where the driver lists none.
std::vector<double> calibration_frequencies(const Topology& t);

// Frequency control for calibration: the sysfs back-end over the policies
// of `cpus`, saved before the first write (state file, restore at exit and at
// fatal signals) and restored by end() or the destructor.
class CalibrationFrequency {
 public:
  CalibrationFrequency(std::string sysfs_root, std::string state_dir);
  ~CalibrationFrequency();
  CalibrationFrequency(const CalibrationFrequency&) = delete;
  CalibrationFrequency& operator=(const CalibrationFrequency&) = delete;

  // false + why (nothing changed) when the policies of `cpus` cannot be controlled.
  bool begin(const std::vector<int>& cpus, std::string& why);
  const Topology& topology() const noexcept { return topology_; }
  // Every controlled policy to `hz` (the nearest frequency it offers).
  bool set(double hz);
  // scaling_cur_freq of `cpu`'s policy in Hz, 0 when unreadable.
  double current_hz(int cpu) const;
  RestoreOutcome end() noexcept;
  const std::string& state_file() const;

 private:
  Topology topology_;
  std::string state_dir_;
  std::unique_ptr<SysfsFrequency> sysfs_;
  std::size_t domains_ = 0;
};

// Runs the whole calibration. nullopt + error when it cannot run or fails;
// the machine's settings are restored in every case.
std::optional<CalibrationResult> calibrate(const CalibrationOptions& o, std::string& error);

// The profile (power/profiles schema) for a result; `name` its name; its
// "unreliable" field says why when the result is.
std::string calibration_profile_json(const CalibrationResult& r, const std::string& name);
// The raw samples: one CSV row per measurement window, the set-aside ones
// with used = 0 (FILE.samples.csv) ...
std::string calibration_samples_csv(const CalibrationResult& r);
// ... and one per frequency transition timed (FILE.transitions.csv).
std::string calibration_transitions_csv(const CalibrationResult& r);
// The uncore probe (FILE.uncore-probe.csv): a row per timing, then the curve
// per level (the least time, its ratio to the fastest level's, the fit's).
std::string calibration_uncore_probe_csv(const CalibrationResult& r);

}  // namespace rubato
