// The core + uncore model (rubato/core/model/frequency_model.hpp) of a
// machine profile: core levels are the profile's frequencies_hz, uncore
// levels the uncore ladder of its uncore_power table (UncoreLadder::
// from_profile: the table's range in the hardware's 100 MHz steps), each
// level's power as the profile's power model interpolates it, and the
// profile's memory_bandwidth_knee_hz. core/ reads no profile; this is where
// one becomes the model's numbers.
#pragma once

#include "rubato/core/model/frequency_model.hpp"
#include "rubato/core/model/level_powers.hpp"
#include "rubato/core/model/work_sensitivity.hpp"
#include "rubato/power/machine/profile.hpp"

namespace rubato {

// No uncore_power table: no uncore ladder, uncore_fixed_w = the profile's uncore_w.
LevelPowers level_powers(const MachineProfile& profile);
// level_powers with the profile's knee (0 when it gives none). Throws
// std::invalid_argument when the profile's levels are unusable (a profile
// that parsed always has at least one core level).
FrequencyModel frequency_model(const MachineProfile& profile);
// What the profile says about work it knows nothing else of: b_c = its
// `beta`, b_u = 0 (the β-only model).
WorkSensitivity default_sensitivity(const MachineProfile& profile) noexcept;

}  // namespace rubato
