#include "rubato/power/frequency/uncore_control_sysfs.hpp"

namespace rubato {

std::vector<UncoreDomain> uncore_domains_of(const Topology& topology, double step_hz) {
  std::vector<UncoreDomain> out;
  for (const auto& u : topology.uncore_domains)
    out.push_back({u.name, u.package, UncoreLadder::from_range(u.initial_min_hz, u.initial_max_hz, step_hz)});
  return out;
}

SysfsUncoreControl::SysfsUncoreControl(Topology topology, std::string state_dir, const Clock* clock,
                                       std::uint64_t min_interval_ns, double step_hz)
    : UncoreControl(uncore_domains_of(topology, step_hz), clock, min_interval_ns),
      driver_(std::move(topology), std::move(state_dir)) {}

}  // namespace rubato
