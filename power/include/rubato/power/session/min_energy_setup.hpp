// What min-energy (rubato/core/min_energy/min_energy_controller.hpp) takes
// from a machine profile and the run's settings: the model it searches — the
// engine's tempo ladder as core levels, the uncore lever's levels, the
// profile's power at each and its memory-bandwidth knee — and the work's
// sensitivities after counters (RUBATO_CORE_SENSITIVITY / RUBATO_BETA,
// RUBATO_UNCORE_SENSITIVITY, else the profile's β and b_u 0). Shared by the
// live session and, where it wants, the simulator.
#pragma once

#include <vector>

#include "rubato/core/config/settings.hpp"
#include "rubato/core/min_energy/learner.hpp"
#include "rubato/core/min_energy/min_energy_controller.hpp"
#include "rubato/core/model/frequency_model.hpp"
#include "rubato/core/tempo/tempo_ladder.hpp"
#include "rubato/power/machine/profile.hpp"

namespace rubato {

// `uncore_levels_hz` empty: no uncore lever; the uncore then draws the
// profile's power at `fixed_uncore_hz` (RUBATO_UNCORE; 0: its constant).
// Throws std::invalid_argument for levels the model cannot use.
FrequencyModel min_energy_model(const MachineProfile& profile, const TempoLadder& ladder,
                                const std::vector<double>& uncore_levels_hz, double fixed_uncore_hz);

min_energy::SensitivityFallbacks sensitivity_fallbacks(const Settings& settings, const MachineProfile& profile);

// The controller's parameters: the model above, RUBATO_MAX_TIME_LOSS, the
// fallbacks, and the profile's counter relation (none: counters unused).
min_energy::ControllerParams min_energy_params(const Settings& settings, const MachineProfile& profile,
                                               const TempoLadder& ladder, const std::vector<double>& uncore_levels_hz);

// The closed loop's parameters from the open loop's (the same model, bound,
// seeds and counter relation), its control interval and the profile's core
// transition latency; probes' energies are labelled `measured_label` (the
// meter's) or `model_label`.
min_energy::LearnerParams learner_params(const min_energy::ControllerParams& params, double interval_s,
                                         double transition_latency_s, const std::string& measured_label,
                                         const std::string& model_label);

// What the profile lacks that min-energy would use with an uncore lever (the
// uncore power ladder, the memory-bandwidth knee), each with the profile's
// not_measured reason where it gives one, and what min-energy does instead
// (`closed_loop`, `metered`: its loop, a meter during the run). One report
// note each; empty where nothing is missing.
std::vector<std::string> min_energy_profile_gaps(const MachineProfile& profile, bool uncore_lever, bool closed_loop,
                                                 bool metered);

}  // namespace rubato
