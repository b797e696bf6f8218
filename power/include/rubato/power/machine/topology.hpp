// What the machine looks like, read from sysfs under a root that tests point
// at a fake tree (RUBATO_SYSFS_ROOT): online CPUs, cpufreq clock domains
// (policies, grouped by related_cpus), caches. SI units: frequencies in Hz.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rubato {

struct CacheInfo {
  int level = 0;
  std::string type;  // Data | Instruction | Unified
  std::uint64_t size_bytes = 0;
  std::vector<int> cpus;  // shared_cpu_list
};

// One cpufreq policy: the CPUs that change frequency together.
struct ClockDomainInfo {
  std::string policy_dir;            // absolute path of .../cpufreq/policyN (or cpuN/cpufreq)
  std::vector<int> cpus;             // related_cpus
  std::vector<double> available_hz;  // descending; empty when the driver lists none
  double min_hz = 0;                 // cpuinfo_min_freq
  double max_hz = 0;                 // cpuinfo_max_freq
  std::string governor;
  std::vector<std::string> governors;  // scaling_available_governors
  std::string driver;                  // scaling_driver
  double base_hz = 0;                  // base_frequency (intel_pstate with HWP), 0 when absent
  std::string epp;                     // energy_performance_preference, "" when absent
};

// One intel_uncore_frequency domain (a package and die; with TPMI, a
// domain of a package): Documentation/admin-guide/pm/
// intel_uncore_frequency_scaling.rst. The limits are in kHz in sysfs.
struct UncoreDomainInfo {
  std::string dir;            // absolute path of .../intel_uncore_frequency/package_NN_die_NN or uncoreNN
  std::string name;           // its last component
  int package = -1;           // package_id file, or from the name
  double initial_min_hz = 0;  // the hardware's range (read-only files)
  double initial_max_hz = 0;
  double min_hz = 0;  // the limits in force now
  double max_hz = 0;
  double current_hz = 0;  // current_freq_khz (newer kernels), 0 when absent
};

struct Topology {
  std::string sysfs_root;
  std::vector<int> cpus;                         // online
  std::vector<ClockDomainInfo> clock_domains;    // empty without cpufreq
  std::vector<CacheInfo> caches;                 // distinct (level, type, cpus)
  std::vector<UncoreDomainInfo> uncore_domains;  // empty without the intel_uncore_frequency driver
  // devices/system/cpu/intel_pstate/status or amd_pstate/status ("active",
  // "passive", "guided", "off"), with the driver family; "" when neither exists.
  std::string pstate_driver;  // "intel_pstate" | "amd_pstate" | ""
  std::string pstate_status;
  std::vector<std::string> problems;  // what could not be read, for `rubato info`

  // Index into clock_domains of `cpu`'s policy, or -1.
  int clock_domain_of(int cpu) const noexcept;
  // Frequencies the hardware offers (union over domains), descending; a domain
  // without a list (intel_pstate, amd-pstate: any frequency in range) contributes
  // its max only, so that the default ladder's slow level is exactly 0.6 x max
  // (a base_frequency near max would otherwise be the nearest listed one). Empty when unknown.
  std::vector<double> available_hz() const;
};

Topology read_topology(const std::string& sysfs_root);

// "0-3,8,10-11" -> {0,1,2,3,8,10,11}. Returns false on malformed text.
bool parse_cpu_list(std::string_view text, std::vector<int>& out);
// /proc/cpuinfo's "model name" (first CPU), or "" when unknown.
std::string read_cpu_model(const std::string& cpuinfo_path = "/proc/cpuinfo");

}  // namespace rubato
