// Machine profiles (power/profiles/*.json): what a machine's cores, clock
// domains, frequencies and power look like, each number with its source.
// The power model, the emulator and the simulator read them.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rubato {

// Power of one core at one frequency (W): running a task, and idle (not halted
// deeply: a worker spinning or yielding between tasks counts as idle here).
struct CorePowerPoint {
  double hz = 0;
  double busy_w = 0;
  double idle_w = 0;
};

// Uncore power at one uncore frequency (W), where the profile knows it
// (intel_uncore_frequency machines): the package part that does not belong
// to any core.
struct UncorePowerPoint {
  double hz = 0;
  double w = 0;
};

struct MachineProfile {
  std::string name;  // file stem, e.g. "opteron-6378"
  std::string description;
  // Substrings of /proc/cpuinfo's "model name" this profile describes (RUBATO_PROFILE=auto).
  std::vector<std::string> cpu_model_match;
  int cores = 1;
  int cores_per_domain = 1;                // cores sharing one clock domain
  std::vector<double> frequencies_hz;      // available, descending
  std::vector<CorePowerPoint> core_power;  // one per frequency, descending hz
  double uncore_w = 0;                     // constant package / system part
  // Optional: the uncore part at each uncore frequency, descending hz; used
  // when the uncore frequency is pinned (RUBATO_UNCORE, simulate --uncore).
  std::vector<UncorePowerPoint> uncore_power;
  double beta = 1.0;                // default frequency-sensitive fraction of work
  double transition_latency_s = 0;  // one DVFS change
  // Optional: one uncore frequency change, request to effect (s); the uncore
  // back-end changes a domain at most once per this interval. Absent: the
  // default below (uncore_transition_latency_s(profile)).
  std::optional<double> uncore_transition_latency_s;
  // Optional: the uncore frequency below which the uncore, not memory, limits
  // memory bandwidth (BW(fu) = min(BW_max, k fu), knee BW_max / k; the time
  // model in rubato/core/model/time_model.hpp). Absent: the uncore-sensitive
  // part of the work scales as 1/fu all the way.
  std::optional<double> memory_bandwidth_knee_hz;
  // [EFS] Eq. 13, Power(n) = Σ_{k=0..n} P_k: P0 is the system with no core
  // active, P_k (k ≥ 1) what the k-th active core adds. Empty if unknown.
  std::vector<double> active_cores_power_w;
  double memory_accesses_per_s = 0;  // [EFS] Eq. 17, µ; 0 if unknown
  // Optional: the machine's memory-transaction rate (last-level misses to
  // memory per second, all cores) at which work is wholly uncore-bound:
  // min-energy reads b_u = rate / this from counters
  // (rubato/core/min_energy/sensitivity_source.hpp). Absent: counters are not used for b_u.
  std::optional<double> memory_transaction_rate_saturated_per_s;
  std::map<std::string, std::string> sources;  // field -> where the number comes from
  // Why the numbers cannot be trusted ("unreliable": a calibration kept points
  // other processes polluted, `rubato calibrate --allow-noisy`); empty: no known reason.
  std::string unreliable;
  // What the calibration that wrote the profile could not measure here, each
  // field with why ("not_measured": {"uncore_power": "no intel_uncore_frequency
  // domain ..."}; docs/calibrate.md): a field named here is absent, or copied
  // from another profile and saying so in its source. Empty: nothing known missing.
  std::map<std::string, std::string> not_measured;
};

// The uncore transition latency when a profile gives none: 10 ms, the slower
// of the two published figures — [SKL] (abstract): Skylake-SP's uncore
// frequency controller reacts within about 10 ms; [Z2] §II-C, quoting [SKL]:
// uncore frequency changes can occur every 1.5 ms. Conservative: a policy
// that waits longer between changes loses only reaction time.
inline constexpr double kDefaultUncoreTransitionLatencyS = 0.010;
inline constexpr const char* kDefaultUncoreTransitionLatencySource =
    "default 10 ms: [SKL] abstract (uncore frequency controller reacts within ~10 ms); [Z2] §II-C quoting [SKL] "
    "(changes every 1.5 ms): the slower figure";
// The profile's uncore_transition_latency_s, else the default; and where that number comes from.
double uncore_transition_latency_s(const MachineProfile& profile) noexcept;
std::string uncore_transition_latency_source(const MachineProfile& profile);

// Directories searched for "<name>.json", in order: $RUBATO_PROFILE_DIR, the
// installed share/rubato/profiles, the source tree's power/profiles.
std::vector<std::string> profile_search_dirs();
// The same with `profile_dir` (RUBATO_PROFILE_DIR from the settings) first when not empty.
std::vector<std::string> profile_search_dirs(const std::string& profile_dir);

// `name_or_path`: a profile name, or a path to a JSON file (contains '/' or ends in .json).
// On failure: nullopt, `error` says which file and what is wrong.
std::optional<MachineProfile> load_profile(const std::string& name_or_path, std::string& error);
std::optional<MachineProfile> load_profile(const std::string& name_or_path, const std::vector<std::string>& dirs,
                                           std::string& error);
std::optional<MachineProfile> parse_profile(const std::string& json_text, const std::string& origin,
                                            std::string& error);
std::vector<std::string> list_profiles();
std::vector<std::string> list_profiles(const std::vector<std::string>& dirs);

// RUBATO_PROFILE=auto: the first profile whose cpu_model_match occurs in
// `cpu_model` (/proc/cpuinfo "model name"), else "generic".
std::string auto_profile_name(const std::string& cpu_model, const std::vector<std::string>& dirs);
// The same with the profile it parsed to decide (nullopt for "generic" when
// the scan did not read it), so that the caller need not read it again.
struct ChosenProfile {
  std::string name;
  std::optional<MachineProfile> profile;
};
ChosenProfile auto_profile(const std::string& cpu_model, const std::vector<std::string>& dirs);
// RUBATO_PROFILE's value (`setting`: a name, a path or "auto") resolved and
// loaded, each profile parsed once; on failure `profile` is nullopt and
// `error` says why.
ChosenProfile resolve_profile(const std::string& setting, const std::string& cpu_model,
                              const std::vector<std::string>& dirs, std::string& error);
// The same on this machine: /proc/cpuinfo is read only for "auto".
ChosenProfile resolve_profile(const std::string& setting, const std::vector<std::string>& dirs, std::string& error);

}  // namespace rubato
