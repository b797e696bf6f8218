// What slack and the cost guard (rubato's own, beyond the papers) take from a machine profile: the
// default dwell, and the energy model the guard weighs a slowing with. Shared
// by the live session and the simulator's command line.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rubato/core/model/work_sensitivity.hpp"
#include "rubato/core/tempo/cost_guard.hpp"
#include "rubato/core/config/settings.hpp"
#include "rubato/core/tempo/tempo_ladder.hpp"
#include "rubato/power/machine/profile.hpp"

namespace rubato {

// RUBATO_SLACK_DWELL=auto: 10 transition latencies, at least 1 ms.
//  - 10 latencies: a lowering costs a round trip (down, then up at the
//    wake-up), and the first work after the wake-up runs slowed until the
//    raise lands (one latency). Lowering only waits that already lasted ten
//    latencies keeps that cost under a tenth of any wait slack acts on; waits
//    shorter than a few transitions are never lowered.
//  - at least 1 ms: the lowering comes from a sweeper thread that wakes once
//    a dwell while no worker waits (power/src/session/session.cpp); on a machine
//    whose cores are all busy each wake-up preempts a worker (a context
//    switch and its cache misses, several µs), and waking more often than
//    every millisecond would cost a measurable share of a core. Today's
//    latencies (tens of µs on older parts) would give less than that.
inline constexpr double kSlackDwellLatencies = 10;
inline constexpr double kSlackDwellFloorS = 1e-3;
double slack_dwell_default_s(const MachineProfile* profile) noexcept;
double slack_dwell_s(const Settings& settings, const MachineProfile* profile) noexcept;

// β (b_c) for the models, and where it came from: RUBATO_CORE_SENSITIVITY
// or its older name RUBATO_BETA (a measurement the user made for this
// program, e.g. `rubato calibrate --beta`), or the profile's.
struct BetaChoice {
  double beta = 1.0;
  std::string source;  // "RUBATO_CORE_SENSITIVITY" | "RUBATO_BETA" | "profile:<name>" | "default"
};
BetaChoice beta_for(const Settings& settings, const MachineProfile* profile);

// The guard's model on `ladder`: the profile's busy power at each level, its
// uncore power (at `uncore_hz` where pinned and the profile has a table), β;
// for slack's cost test also the idle power at each level and the transition latency.
CostModel cost_model_for(const MachineProfile& profile, const TempoLadder& ladder, double beta, double uncore_hz);
// The same with the uncore side of the time model: the work's sensitivities,
// the uncore levels the run may set (`uncore_levels_hz`, fastest first; empty:
// none) with the profile's uncore power at each, its memory-bandwidth knee,
// and the level nearest `uncore_hz` (where pinned) to start at. With b_u = 0
// and no uncore level the guard decides as cost_model_for's.
CostModel cost_model_for(const MachineProfile& profile, const TempoLadder& ladder, const WorkSensitivity& work,
                         const std::vector<double>& uncore_levels_hz, double uncore_hz);

}  // namespace rubato
