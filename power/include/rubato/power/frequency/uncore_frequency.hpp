// The uncore (ring / mesh, LLC, memory controller) frequency through Intel's
// intel_uncore_frequency driver (Documentation/admin-guide/pm/
// intel_uncore_frequency_scaling.rst): per package and die (or, with TPMI, per
// domain), min_freq_khz / max_freq_khz bound what the hardware picks. A fixed
// uncore setting (RUBATO_UNCORE) pins both to one frequency on every domain,
// so experiments can sweep it. Saved to a state file before the first write
// (uncore-<pid>.state) and put back at exit, at fatal signals and by
// `rubato restore`, like cpufreq.
#pragma once

#include <memory>
#include <string>

#include "rubato/power/state/cpufreq_restore.hpp"
#include "rubato/power/frequency/frequency_control.hpp"
#include "rubato/power/machine/topology.hpp"

namespace rubato {

class UncoreFrequency {
 public:
  // `state_dir` "" = default_state_dir().
  UncoreFrequency(Topology topology, std::string state_dir);
  ~UncoreFrequency();
  UncoreFrequency(const UncoreFrequency&) = delete;
  UncoreFrequency& operator=(const UncoreFrequency&) = delete;

  // Domains exist, their limits are writable, state can be saved; else `why`.
  bool usable(std::string& why);
  // Saves every domain's limits, then sets min = max = `hz` clamped into the
  // domain's initial (hardware) range. false + `why`: nothing was changed, or
  // what was changed is already put back.
  bool pin(double hz, std::string& why);
  // The frequency pinned on the first domain (Hz), 0 before pin().
  double pinned_hz() const noexcept { return pinned_hz_; }
  RestoreOutcome restore() noexcept;
  const std::string& state_file() const noexcept { return state_path_; }

 private:
  Topology topology_;
  std::string state_dir_;
  std::string state_path_;
  std::unique_ptr<CpufreqRestorePlan> plan_;
  double pinned_hz_ = 0;
  bool restored_ = false;
};

}  // namespace rubato
