// cpufreq through sysfs (docs/design.md "Platform"), two methods per policy:
//  - setspeed: the `userspace` governor and `scaling_setspeed` (acpi-cpufreq,
//    and the passive modes: intel_cpufreq, amd-pstate passive and guided);
//  - pin: scaling_min_freq = scaling_max_freq = the tempo's frequency, the
//    governor left as it is (intel_pstate and amd-pstate-epp in active mode,
//    which offer no userspace governor: Documentation/admin-guide/pm/
//    intel_pstate.rst "Active Mode", amd-pstate.rst "Active mode"; the
//    hardware (HWP / CPPC autonomous) then has one frequency to choose).
// Clock domains from related_cpus; the frequencies from
// scaling_available_frequencies, or any in [cpuinfo_min_freq, cpuinfo_max_freq]
// when the driver lists none (the pstate drivers). Files are in kHz; the
// interface is in Hz.
//
// The pin method leaves energy_performance_preference alone: with min = max
// the preference has no range left to bias (it only steers the hardware's
// choice inside [min, max]), and writing it fails with EBUSY under the
// performance governor in active mode, so touching it would add a failure
// and a file to restore for nothing.
//
// Before the first change every touched policy's governor/min/max/setspeed
// bytes go to a state file (state_file.hpp); restore puts them back, at
// finish, at exit, at fatal signals (restore_guard.hpp), or via `rubato restore`.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "rubato/power/state/cpufreq_restore.hpp"
#include "rubato/power/frequency/domain_records.hpp"
#include "rubato/power/frequency/frequency_control.hpp"
#include "rubato/power/frequency/rate_limited_applier.hpp"
#include "rubato/power/machine/topology.hpp"

namespace rubato {

// How the back-end drives a policy, from its governors and driver; none when
// neither method applies.
enum class CpufreqMethod { setspeed, pin, none };
CpufreqMethod cpufreq_method_of(const ClockDomainInfo& policy) noexcept;
const char* to_string(CpufreqMethod m) noexcept;  // "userspace setspeed" | "pin min=max" | "none"

// The frequency (kHz) to write for `hz` in a policy: the nearest listed one,
// else `hz` itself, clamped into [min_khz, max_khz].
long long cpufreq_target_khz(const ClockDomainInfo& policy, double hz, long long min_khz, long long max_khz);

class SysfsFrequency : public FrequencyControl {
 public:
  // `state_dir` "" = default_state_dir().
  SysfsFrequency(Topology topology, double min_dwell_s, std::string state_dir, std::string backend_name = "sysfs");
  ~SysfsFrequency() override;

  std::string_view name() const noexcept override { return name_; }
  bool usable(std::string& why) override;  // every policy has a method, writable files, a state dir
  std::vector<double> available_hz() const override { return topology_.available_hz(); }
  bool save(const DomainPlan& plan, std::string& why) override;
  RestoreOutcome restore() noexcept override;
  bool changes_speed() const noexcept override { return true; }
  std::uint64_t applied_transitions(DomainId d) const noexcept override { return records_.applied(d); }

  // A slack wake-up's raise: applied now, not at the applier's next poll.
  void raise_now(DomainId) noexcept override {
    if (applier_) applier_->apply_soon();
  }
  void domain_level_changed(DomainId domain, Level level, double hz, std::uint64_t) noexcept override {
    if (records_.valid(domain)) records_.request(domain, level, hz);
  }

  std::vector<std::string> run_notes() const override;

  const std::string& state_file() const noexcept { return state_path_; }
  // Writes the frequency now (the applier thread calls this); false on failure.
  // After the first failed write the back-end degrades to a dry run: it says
  // so once, records decisions, writes nothing more until restore.
  bool apply(DomainId domain, double hz);
  bool degraded() const noexcept { return degraded_.load(std::memory_order_acquire); }
  std::uint64_t failed_writes() const noexcept { return applier_ ? applier_->failed_writes() : 0; }

 protected:
  // Makes policy `p` follow our writes (the userspace governor, limits wide
  // enough for the ladder); the likwid back-end pins min = max instead.
  virtual bool take_control(std::size_t p, std::string& why);
  // Sets policy `p` to `khz` (scaling_setspeed here).
  virtual bool write_frequency(std::size_t p, long long khz);
  bool usable_state(std::string& why);                 // the state directory can be used
  bool widen_limits(std::size_t p, std::string& why);  // [min, max] covers the hardware range
  const Topology& topology() const noexcept { return topology_; }

 private:
  using Method = CpufreqMethod;
  // The method for policy `p`, or false + why none works.
  bool method_for(const ClockDomainInfo& p, Method& method, std::string& why) const;

  std::string name_;
  Topology topology_;
  double min_dwell_s_;
  std::string state_dir_;
  std::string state_path_;
  std::vector<int> policy_of_domain_;         // engine domain -> topology policy index, -1 none
  std::vector<long long> min_khz_, max_khz_;  // per policy, the limits in force while we control it
  std::vector<Method> method_;                // per policy
  DomainRecords records_;
  std::unique_ptr<CpufreqRestorePlan> plan_;
  std::unique_ptr<RateLimitedApplier> applier_;
  bool restored_ = false;
  std::string degraded_note_;  // written once, before degraded_ is set
  std::atomic<bool> degraded_{false};
};

}  // namespace rubato
