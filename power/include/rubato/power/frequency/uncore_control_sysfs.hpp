// UncoreControl on Intel's intel_uncore_frequency driver: one domain per
// package / die (or TPMI domain), its ladder the domain's initial (hardware)
// range in 100 MHz steps, each set a min = max write through UncoreFrequency
// — which saves the original limits before the first write and puts them
// back at restore(), at exit, at fatal signals, or by `rubato restore` after
// a kill -9.
#pragma once

#include <string>

#include "rubato/power/frequency/uncore_control.hpp"
#include "rubato/power/frequency/uncore_frequency.hpp"

namespace rubato {

class SysfsUncoreControl final : public UncoreControl {
 public:
  // `state_dir` "" = default_state_dir(); `clock` nullptr = a SteadyClock.
  SysfsUncoreControl(Topology topology, std::string state_dir, const Clock* clock, std::uint64_t min_interval_ns,
                     double step_hz = kIntelUncoreStepHz);

  std::string_view name() const noexcept override { return "intel_uncore_frequency"; }
  bool changes_speed() const noexcept override { return true; }
  RestoreOutcome restore() noexcept override { return driver_.restore(); }

  // The driver's domains are there and writable, state can be saved; else `why`.
  bool usable(std::string& why) { return driver_.usable(why); }
  // Saves the original limits now (the first set does it otherwise).
  bool save(std::string& why) { return driver_.save(why); }
  const std::string& state_file() const noexcept { return driver_.state_file(); }

 protected:
  double write(std::size_t d, double hz, std::string& why) override { return driver_.set_domain(d, hz, why); }

 private:
  UncoreFrequency driver_;
};

// The domains of `topology` as UncoreControl sees them (name, package, ladder).
std::vector<UncoreDomain> uncore_domains_of(const Topology& topology, double step_hz = kIntelUncoreStepHz);

}  // namespace rubato
