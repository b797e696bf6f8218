// The power side of the core + uncore model: the levels a policy may choose
// (core and uncore ladders, fastest first) and what each draws. Built from a
// machine profile by power/ (rubato/power/energy/profile_frequency_model.hpp),
// by hand in tests: core/ reads no profile.
#pragma once

#include <string>
#include <vector>

namespace rubato {

struct LevelPowers {
  std::vector<double> core_hz;  // core levels, strictly descending (level 0: the fastest)
  std::vector<double> busy_w;   // per core level: one core running work (W)
  std::vector<double> idle_w;   // per core level: one core waiting, spinning or yielding (W)
  // Uncore levels, strictly descending; empty: no uncore ladder (the uncore
  // does not move, draws uncore_fixed_w and leaves time alone).
  std::vector<double> uncore_hz;
  std::vector<double> uncore_w;  // per uncore level: the package part no core owns (W)
  double uncore_fixed_w = 0;     // that part when uncore_hz is empty, or when no uncore frequency is given
};

// Empty when `powers` is usable: at least one core level, frequencies > 0 and
// strictly descending, one busy and idle power per core level and one uncore
// power per uncore level, powers finite and >= 0. Else what is wrong.
std::string level_powers_error(const LevelPowers& powers);

}  // namespace rubato
