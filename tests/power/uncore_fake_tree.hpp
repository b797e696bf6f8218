// Fake intel_uncore_frequency trees (Documentation/admin-guide/pm/
// intel_uncore_frequency_scaling.rst): one directory per package and die
// (package_NN_die_NN) or, with TPMI, per domain (uncoreNN with package_id),
// holding initial_min/max_freq_khz (the hardware's range), min/max_freq_khz
// (the limits in force) and current_freq_khz.
#pragma once

#include <map>
#include <string>

#include "fake_sysfs.hpp"

namespace rubato::test {

struct FakeUncoreDomain {
  std::string name;  // "package_00_die_00" or "uncore00"
  long initial_min_khz = 800000, initial_max_khz = 2400000;
  long min_khz = 800000, max_khz = 2400000;
  int package_id = -1;  // written as package_id when >= 0 (TPMI layout)
};

inline std::string uncore_rel(const std::string& domain, const std::string& file = "") {
  return "devices/system/cpu/intel_uncore_frequency/" + domain + (file.empty() ? "" : "/" + file);
}

inline void add_uncore_domain(const FakeSysfs& fs, const FakeUncoreDomain& d) {
  auto put = [&](const char* f, long v) { fs.write(uncore_rel(d.name, f), std::to_string(v) + "\n"); };
  put("initial_min_freq_khz", d.initial_min_khz);
  put("initial_max_freq_khz", d.initial_max_khz);
  put("min_freq_khz", d.min_khz);
  put("max_freq_khz", d.max_khz);
  put("current_freq_khz", (d.min_khz + d.max_khz) / 2);
  if (d.package_id >= 0) fs.write(uncore_rel(d.name, "package_id"), std::to_string(d.package_id) + "\n");
}

// Two packages of two dies, every domain 0.8-2.4 GHz in hardware with the
// limits in force narrower (1.2-2.0 GHz): restore must bring back these, not
// the hardware's range nor the last setting.
inline void add_two_packages_two_dies(const FakeSysfs& fs) {
  fs.write("devices/system/cpu/online", "0-3\n");
  for (const char* name : {"package_00_die_00", "package_00_die_01", "package_01_die_00", "package_01_die_01"})
    add_uncore_domain(fs, {name, 800000, 2400000, 1200000, 2000000, -1});
}

inline long uncore_khz(const FakeSysfs& fs, const std::string& domain, const char* file) {
  return std::stol(fs.read(uncore_rel(domain, file)));
}

inline std::map<std::string, std::string> uncore_snapshot(const FakeSysfs& fs) {
  return fs.snapshot("devices/system/cpu/intel_uncore_frequency");
}

}  // namespace rubato::test
