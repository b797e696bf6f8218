// The model energy meter: per-core power by state (busy / idle) and frequency
// plus an uncore part (constant, or a function of the uncore frequency where
// the profile gives one), from a machine profile. Its figures are always
// labelled "modeled:<profile>" (or "simulated:<profile>" from the simulator).
#pragma once

#include <vector>

#include "rubato/power/machine/profile.hpp"

namespace rubato {

// What one core did during a run: seconds busy at each frequency, and how long
// the run lasted for it (the rest is idle at `idle_hz`).
struct CoreActivity {
  std::vector<std::pair<double, double>> busy_s_at_hz;  // (hz, seconds)
  double idle_hz = 0;                                   // frequency while idle
  // Idle time known to have been at another frequency (slack: waiting while
  // lowered); the rest of the idle time is at idle_hz.
  std::vector<std::pair<double, double>> idle_s_at_hz;  // (hz, seconds)
};

struct RunActivity {
  double wall_s = 0;
  std::vector<CoreActivity> cores;  // cores that hosted workers
  double uncore_hz = 0;             // pinned uncore frequency; 0: not pinned (the profile's uncore_w)
  // Time the uncore spent at each frequency it was set to (min-energy moves
  // it during the run), in seconds; the rest of wall_s is at uncore_hz. A
  // frequency of 0: at uncore_hz too (not set yet).
  std::vector<std::pair<double, double>> uncore_s_at_hz;
};

class PowerModel {
 public:
  explicit PowerModel(MachineProfile profile);
  const MachineProfile& profile() const noexcept { return profile_; }
  // Interpolated linearly between the profile's points; clamped at the ends.
  double busy_w(double hz) const noexcept;
  double idle_w(double hz) const noexcept;
  // The uncore part at uncore frequency `hz` (interpolated in the profile's
  // uncore_power); the constant uncore_w when `hz` is 0 or the profile has no table.
  double uncore_w(double hz = 0) const noexcept;
  // Cores in `a` plus the uncore part over wall_s.
  double energy_j(const RunActivity& a) const noexcept;
  // The uncore part alone: uncore_s_at_hz at their frequencies, the rest of wall_s at uncore_hz.
  double uncore_energy_j(const RunActivity& a) const noexcept;
  std::string source_label() const { return "modeled:" + profile_.name; }

 private:
  MachineProfile profile_;
};

}  // namespace rubato
