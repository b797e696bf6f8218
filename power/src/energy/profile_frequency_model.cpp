#include "rubato/power/energy/profile_frequency_model.hpp"

#include "rubato/power/energy/power_model.hpp"
#include "rubato/power/frequency/uncore_ladder.hpp"

namespace rubato {

LevelPowers level_powers(const MachineProfile& profile) {
  const PowerModel power(profile);
  LevelPowers levels;
  levels.core_hz = profile.frequencies_hz;  // descending, deduplicated when parsed
  for (double hz : levels.core_hz) {
    levels.busy_w.push_back(power.busy_w(hz));
    levels.idle_w.push_back(power.idle_w(hz));
  }
  levels.uncore_hz = UncoreLadder::from_profile(profile).levels_hz();
  for (double hz : levels.uncore_hz) levels.uncore_w.push_back(power.uncore_w(hz));
  levels.uncore_fixed_w = power.uncore_w(0);
  return levels;
}

FrequencyModel frequency_model(const MachineProfile& profile) {
  return FrequencyModel(level_powers(profile), profile.memory_bandwidth_knee_hz.value_or(0));
}

WorkSensitivity default_sensitivity(const MachineProfile& profile) noexcept { return {profile.beta, 0.0}; }

}  // namespace rubato
