// Fake cpufreq trees as today's frequency drivers lay them out, with the files
// each really has and lacks, written from the kernel's documentation
// (Documentation/admin-guide/pm/cpufreq.rst, intel_pstate.rst, amd-pstate.rst,
// intel_uncore_frequency_scaling.rst) and drivers/cpufreq/{intel_pstate,
// amd-pstate}.c:
//  - acpi-cpufreq: every generic governor, scaling_available_frequencies,
//    scaling_setspeed under userspace;
//  - intel_pstate active (HWP): governors "performance powersave" only, no
//    frequency list, base_frequency and the EPP files; intel_pstate/ holds
//    status, no_turbo, max/min_perf_pct, num_pstates, turbo_pct,
//    hwp_dynamic_boost;
//  - intel_pstate passive (driver "intel_cpufreq"): the generic governors
//    (userspace among them), no frequency list, with HWP the same EPP and
//    base_frequency attributes (hwp_cpufreq_attrs serve both drivers);
//  - amd-pstate active (driver "amd-pstate-epp"): "performance powersave",
//    the amd_pstate_* files and EPP; amd_pstate/status "active";
//  - amd-pstate passive and guided (driver "amd-pstate"): the generic
//    governors, the amd_pstate_* files, no EPP; status "passive" / "guided";
//  - optionally the uncore driver: intel_uncore_frequency/package_NN_die_00
//    with initial_min/max_freq_khz, min/max_freq_khz, current_freq_khz.
// Frequencies are those of a plausible part (not any profile's): 0.8 GHz to a
// 3.7 GHz turbo, base 2.1 GHz (Intel); 0.4 to 3.5 GHz, nominal 2.45 GHz (AMD).
#pragma once

#include <string>
#include <vector>

#include "fake_sysfs.hpp"

namespace rubato::test {

enum class DriverLayout { acpi_cpufreq, intel_active, intel_passive, amd_active, amd_passive, amd_guided };

inline const char* layout_name(DriverLayout l) {
  switch (l) {
    case DriverLayout::acpi_cpufreq: return "acpi-cpufreq";
    case DriverLayout::intel_active: return "intel_pstate active";
    case DriverLayout::intel_passive: return "intel_pstate passive";
    case DriverLayout::amd_active: return "amd-pstate active";
    case DriverLayout::amd_passive: return "amd-pstate passive";
    case DriverLayout::amd_guided: return "amd-pstate guided";
  }
  return "?";
}

inline bool layout_pins(DriverLayout l) { return l == DriverLayout::intel_active || l == DriverLayout::amd_active; }

// `cpus` CPUs, one policy each (as these drivers do), in the given layout.
inline void add_driver_layout(FakeSysfs& fs, DriverLayout layout, int cpus, bool uncore) {
  const bool intel = layout == DriverLayout::intel_active || layout == DriverLayout::intel_passive;
  const bool amd =
      layout == DriverLayout::amd_active || layout == DriverLayout::amd_passive || layout == DriverLayout::amd_guided;
  const std::string generic = "conservative ondemand userspace powersave performance schedutil\n";
  const std::string khz_min = intel ? "800000\n" : amd ? "400000\n" : "1400000\n";
  const std::string khz_max = intel ? "3700000\n" : amd ? "3500000\n" : "2400000\n";
  fs.write("devices/system/cpu/online", cpus == 1 ? "0\n" : "0-" + std::to_string(cpus - 1) + "\n");
  for (int c = 0; c < cpus; ++c) {
    const std::string dir = "devices/system/cpu/cpufreq/policy" + std::to_string(c) + "/";
    auto put = [&](const std::string& name, const std::string& value) { fs.write(dir + name, value); };
    put("related_cpus", std::to_string(c) + "\n");
    put("affected_cpus", std::to_string(c) + "\n");
    put("cpuinfo_min_freq", khz_min);
    put("cpuinfo_max_freq", khz_max);
    put("cpuinfo_transition_latency", intel || amd ? "0\n" : "10000\n");
    put("scaling_min_freq", khz_min);
    put("scaling_max_freq", khz_max);
    put("scaling_cur_freq", intel ? "2100000\n" : amd ? "2450000\n" : "2400000\n");
    put("scaling_setspeed", "<unsupported>\n");
    switch (layout) {
      case DriverLayout::acpi_cpufreq:
        put("scaling_driver", "acpi-cpufreq\n");
        put("scaling_available_governors", generic);
        put("scaling_governor", "schedutil\n");
        put("scaling_available_frequencies", "2400000 2200000 1900000 1600000 1400000 \n");
        put("cpuinfo_cur_freq", "2400000\n");
        break;
      case DriverLayout::intel_active:
      case DriverLayout::intel_passive:
        put("scaling_driver", layout == DriverLayout::intel_active ? "intel_pstate\n" : "intel_cpufreq\n");
        put("scaling_available_governors", layout == DriverLayout::intel_active ? "performance powersave\n" : generic);
        put("scaling_governor", layout == DriverLayout::intel_active ? "powersave\n" : "schedutil\n");
        put("base_frequency", "2100000\n");
        put("energy_performance_preference", "balance_performance\n");
        put("energy_performance_available_preferences",
            "default performance balance_performance balance_power power \n");
        break;
      case DriverLayout::amd_active:
      case DriverLayout::amd_passive:
      case DriverLayout::amd_guided:
        put("scaling_driver", layout == DriverLayout::amd_active ? "amd-pstate-epp\n" : "amd-pstate\n");
        put("scaling_available_governors", layout == DriverLayout::amd_active ? "performance powersave\n" : generic);
        put("scaling_governor", layout == DriverLayout::amd_active ? "powersave\n" : "schedutil\n");
        put("amd_pstate_highest_perf", "166\n");
        put("amd_pstate_max_freq", "3500000\n");
        put("amd_pstate_lowest_nonlinear_freq", "1400000\n");
        if (layout == DriverLayout::amd_active) {
          put("energy_performance_preference", "balance_performance\n");
          put("energy_performance_available_preferences",
              "default performance balance_performance balance_power power \n");
        }
        break;
    }
  }
  if (intel) {
    const std::string g = "devices/system/cpu/intel_pstate/";
    fs.write(g + "status", layout == DriverLayout::intel_active ? "active\n" : "passive\n");
    fs.write(g + "no_turbo", "0\n");
    fs.write(g + "max_perf_pct", "100\n");
    fs.write(g + "min_perf_pct", "22\n");
    fs.write(g + "num_pstates", "30\n");
    fs.write(g + "turbo_pct", "43\n");
    fs.write(g + "hwp_dynamic_boost", "0\n");
  }
  if (amd) {
    fs.write("devices/system/cpu/amd_pstate/status", layout == DriverLayout::amd_active   ? "active\n"
                                                     : layout == DriverLayout::amd_guided ? "guided\n"
                                                                                          : "passive\n");
    fs.write("devices/system/cpu/amd_pstate/prefcore", "enabled\n");
  }
  if (uncore) {
    // One package, one die: 0.8 to 2.4 GHz.
    const std::string u = "devices/system/cpu/intel_uncore_frequency/package_00_die_00/";
    fs.write(u + "initial_min_freq_khz", "800000\n");
    fs.write(u + "initial_max_freq_khz", "2400000\n");
    fs.write(u + "min_freq_khz", "800000\n");
    fs.write(u + "max_freq_khz", "2400000\n");
    fs.write(u + "current_freq_khz", "1800000\n");
  }
}

inline std::vector<DriverLayout> all_driver_layouts() {
  return {DriverLayout::acpi_cpufreq, DriverLayout::intel_active, DriverLayout::intel_passive,
          DriverLayout::amd_active,   DriverLayout::amd_passive,  DriverLayout::amd_guided};
}

}  // namespace rubato::test
