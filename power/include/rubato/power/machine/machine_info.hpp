// What this machine allows (for `rubato info`): cores, clock domains, caches,
// each frequency back-end and energy meter usable or not and why, the machine
// profile RUBATO_PROFILE selects, and the profiles available.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "rubato/core/config/settings.hpp"
#include "rubato/power/frequency/uncore_platform.hpp"
#include "rubato/power/machine/topology.hpp"

namespace rubato {

struct CapabilityStatus {
  std::string name;
  std::string summary;
  bool usable = false;
  std::string why_not;
};

struct MachineInfo {
  std::string host;
  std::string cpu_model;
  Topology topology;
  std::vector<CapabilityStatus> frequency_backends;         // registry order
  std::string chosen_backend_note;                          // what RUBATO_BACKEND would pick
  bool real_frequency_control = false;                      // ... and whether that changes real frequencies
  std::vector<CapabilityStatus> energy_meters;              // rapl, likwid, model
  CapabilityStatus uncore;                                  // RUBATO_UNCORE: intel_uncore_frequency control
  CpuIdentity cpu;                                          // vendor, family, model of /proc/cpuinfo
  UncorePlatform uncore_platform;                           // what can and cannot move the uncore here, and why
  std::string profile;                                      // what RUBATO_PROFILE selects
  std::string profile_error;                                // when it cannot be loaded
  std::string profile_unreliable;                           // its `unreliable` (calibrate --allow-noisy): why
  std::map<std::string, std::string> profile_not_measured;  // its `not_measured`: field -> why
  std::vector<std::string> profiles;                        // available names
  std::vector<std::string> profile_dirs;
  std::string state_dir;
};

// Where gather_machine_info reads what is not under the settings' sysfs root;
// tests point them at fake files.
struct MachineInfoPaths {
  std::string cpuinfo = "/proc/cpuinfo";
  std::string dev_root = "/dev";
};

MachineInfo gather_machine_info(const Settings& settings);
MachineInfo gather_machine_info(const Settings& settings, const MachineInfoPaths& paths);

}  // namespace rubato
