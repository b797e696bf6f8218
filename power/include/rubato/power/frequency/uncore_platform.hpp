// What this machine lets software do with the uncore (Intel: ring / mesh,
// LLC, memory controller) or the data fabric (AMD), for `rubato info`: what
// can be controlled and through what, what cannot and why, and which kernel
// module to load where one is missing. Detection only: rubato moves the
// uncore through intel_uncore_frequency alone (docs/uncore.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rubato/power/machine/topology.hpp"

namespace rubato {

// The first CPU's identity in /proc/cpuinfo (x86 fields).
struct CpuIdentity {
  std::string vendor;  // vendor_id: "GenuineIntel", "AuthenticAMD", "HygonGenuine", "" when absent
  int family = -1;     // "cpu family", -1 when absent
  int model = -1;      // "model"
  std::string model_name;
  bool hypervisor = false;  // "flags" has "hypervisor": a virtual machine
};
CpuIdentity parse_cpu_identity(std::string_view cpuinfo_text);
CpuIdentity read_cpu_identity(const std::string& cpuinfo_path = "/proc/cpuinfo");

struct UncorePlatform {
  // "intel_uncore_frequency", "amd_hsmp" (detected, not driven) or "none".
  std::string interface = "none";
  bool rubato_can_move = false;     // rubato's uncore back-end has domains to move here
  std::vector<std::string> can;     // what can be controlled, and through what
  std::vector<std::string> cannot;  // what cannot, and why; the module to load
};

// `topology` read under its sysfs_root (whose module/ directory says which
// drivers are loaded); `dev_root`: where /dev is (the HSMP device is
// <dev_root>/hsmp). In a virtual machine without uncore domains, one line
// says the uncore is the host's (no module advice).
UncorePlatform describe_uncore_platform(const CpuIdentity& cpu, const Topology& topology,
                                        const std::string& dev_root = "/dev");

}  // namespace rubato
