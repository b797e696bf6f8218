// Where min-energy takes the work's sensitivities from (docs/min-energy.md),
// in this order:
//   counters  b_u from the machine's memory-transaction rate R over the last
//             control interval: b_u = R / R_sat, R_sat the rate at which the
//             work is wholly uncore-bound, fitted through the origin over the
//             six programs of [Cuttlefish-data] (benchmarks/cuttlefish/
//             RESULTS.md, "counters"; the profile's
//             memory_transaction_rate_saturated_per_s). The time model's
//             uncore part is bytes / BW(fu) (time_model.hpp), so at the
//             reference setting its share of the time grows with the bytes
//             moved per second: proportional, through the origin.
//   settings  RUBATO_CORE_SENSITIVITY / RUBATO_UNCORE_SENSITIVITY (RUBATO_BETA):
//             a measurement the user made for this program
//   profile   the machine profile's β as b_c, b_u = 0 (the β-only model)
// Each share comes from the first source that has it; counters give only
// b_u (nothing in those counters tells how much of the rest scales with
// the core clock: RESULTS.md's heatIR), so b_c comes from the settings or
// the profile, capped at 1 − b_u. Pure arithmetic.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "rubato/core/counters/counter_sample.hpp"
#include "rubato/core/model/work_sensitivity.hpp"

namespace rubato::min_energy {

enum class SensitivitySource { counters, settings, profile };
std::string_view to_string(SensitivitySource source) noexcept;

// The shares the user and the profile give (the fallbacks after counters).
struct SensitivityFallbacks {
  std::optional<double> settings_core;    // RUBATO_CORE_SENSITIVITY (or RUBATO_BETA)
  std::optional<double> settings_uncore;  // RUBATO_UNCORE_SENSITIVITY
  WorkSensitivity profile{1.0, 0.0};      // the profile's β, b_u 0
};

struct SensitivityReading {
  WorkSensitivity value;
  SensitivitySource core_source = SensitivitySource::profile;
  SensitivitySource uncore_source = SensitivitySource::profile;
};

// The memory transactions per second over `sample`'s interval: the chip's
// memory accesses where counted, else the sum of the threads' last-level
// cache misses (each one line from memory; writebacks not counted, so a
// lower bound). nullopt + `why` when the sample has neither, or no interval.
std::optional<double> memory_transaction_rate(const counters::CounterSample& sample, std::string& why);

// b_u = rate / saturated_rate, clamped to [0, 1].
double uncore_share_from_rate(double rate_per_s, double saturated_rate_per_s) noexcept;

// The reading for one interval: b_u from `counter_uncore` where given, else
// the fallbacks in order; b_c likewise from the fallbacks, capped at 1 − b_u.
SensitivityReading read_sensitivity(std::optional<double> counter_uncore, const SensitivityFallbacks& fallbacks);

}  // namespace rubato::min_energy
