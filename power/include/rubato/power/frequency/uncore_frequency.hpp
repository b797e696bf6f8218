// The uncore (ring / mesh, LLC, memory controller) frequency through Intel's
// intel_uncore_frequency driver (Documentation/admin-guide/pm/
// intel_uncore_frequency_scaling.rst): per package and die (or, with TPMI, per
// domain), min_freq_khz / max_freq_khz bound what the hardware picks; min =
// max sets it. Every domain's limits go to a state file before the first
// write (uncore-<pid>.state) and the ORIGINAL limits come back at exit, at
// fatal signals and by `rubato restore`, like cpufreq, however often the
// limits moved in between. A fixed setting (RUBATO_UNCORE) is pin(); a policy
// moves one domain at run time with set_domain(), through UncoreControl
// (rubato/power/frequency/uncore_control_sysfs.hpp), which adds the ladder and
// the rate limit. Not thread-safe: one thread sets; restore() may run on any.
#pragma once

#include <cstddef>
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
  // Saves every domain's limits and arms their restore (exit, fatal signals);
  // once — later calls return true. false + `why`: nothing saved or changed.
  bool save(std::string& why);
  bool saved() const noexcept { return plan_ != nullptr; }
  // Domain `i` at min = max = `hz` clamped into its initial (hardware) range,
  // saving first: when going up max is written first, when going down min, so
  // that min <= max holds after each write. Returns the frequency set (Hz);
  // 0 + `why`: the domain is as it was (a half-done change is undone), or the
  // machine was already given back (restore() began).
  double set_domain(std::size_t i, double hz, std::string& why);
  // Every domain at `hz` (set_domain). false + `why`: nothing was changed, or
  // what was changed is already put back.
  bool pin(double hz, std::string& why);
  // The frequency pinned on the first domain (Hz), 0 before pin().
  double pinned_hz() const noexcept { return pinned_hz_; }
  std::size_t domains() const noexcept { return topology_.uncore_domains.size(); }
  // As read at construction (the limits then in force are the ones restored).
  const UncoreDomainInfo& domain(std::size_t i) const { return topology_.uncore_domains.at(i); }
  RestoreOutcome restore() noexcept;
  // restore() ran here, or the plan was restored elsewhere (a fatal signal, exit).
  bool restored() const noexcept { return restored_ || (plan_ && plan_->restored()); }
  const std::string& state_file() const noexcept { return state_path_; }

 private:
  bool write_limits(const UncoreDomainInfo& u, long long khz, std::string& why);

  Topology topology_;
  std::string state_dir_;
  std::string state_path_;
  std::unique_ptr<CpufreqRestorePlan> plan_;
  double pinned_hz_ = 0;
  bool restored_ = false;
};

}  // namespace rubato
