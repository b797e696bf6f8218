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
  std::string type;          // Data | Instruction | Unified
  std::uint64_t size_bytes = 0;
  std::vector<int> cpus;     // shared_cpu_list
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
};

struct Topology {
  std::string sysfs_root;
  std::vector<int> cpus;                      // online
  std::vector<ClockDomainInfo> clock_domains; // empty without cpufreq
  std::vector<CacheInfo> caches;              // distinct (level, type, cpus)
  std::vector<std::string> problems;          // what could not be read, for `rubato info`

  // Index into clock_domains of `cpu`'s policy, or -1.
  int clock_domain_of(int cpu) const noexcept;
  // Frequencies the hardware offers (union over domains), descending; a domain
  // without a list contributes its max only. Empty when unknown.
  std::vector<double> available_hz() const;
};

Topology read_topology(const std::string& sysfs_root);

// "0-3,8,10-11" -> {0,1,2,3,8,10,11}. Returns false on malformed text.
bool parse_cpu_list(std::string_view text, std::vector<int>& out);
// The first non-empty line of a small file, trailing whitespace removed; false when unreadable.
bool read_sysfs_value(const std::string& path, std::string& out);
// /proc/cpuinfo's "model name" (first CPU), or "" when unknown.
std::string read_cpu_model(const std::string& cpuinfo_path = "/proc/cpuinfo");

}  // namespace rubato
