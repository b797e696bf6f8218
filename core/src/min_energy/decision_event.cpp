#include "rubato/core/min_energy/decision_event.hpp"

namespace rubato::min_energy {

FrequencyPairEvent to_report_event(const Decision& d, const std::string& model) {
  FrequencyPairEvent e;
  e.t_s = d.t_s;
  e.core_sensitivity = d.sensitivity.value.core;
  e.uncore_sensitivity = d.sensitivity.value.uncore;
  e.core_sensitivity_source = std::string(to_string(d.sensitivity.core_source));
  e.uncore_sensitivity_source = std::string(to_string(d.sensitivity.uncore_source));
  if (d.transaction_rate_per_s >= 0) e.transaction_rate_per_s = d.transaction_rate_per_s;
  e.working = d.working;
  e.waiting = d.waiting;
  e.core_level = static_cast<int>(d.pair.core_level);
  e.core_hz = d.pair.core_hz;
  e.uncore_level = static_cast<int>(d.pair.uncore_level);
  e.uncore_hz = d.pair.uncore_hz;
  e.time_factor = d.pair.time_factor;
  e.energy_ratio = d.pair.energy_ratio;
  e.model = model;
  e.reason = d.reason;
  return e;
}

FrequencyPairEvent to_report_event(const LearnerDecision& d, const FrequencyModel& levels, const std::string& model) {
  FrequencyPairEvent e;
  e.t_s = d.t_s;
  e.core_sensitivity = d.sensitivity.core;
  e.uncore_sensitivity = d.sensitivity.uncore;
  e.core_sensitivity_source = "durations";
  e.uncore_sensitivity_source = "durations";
  e.working = d.working;
  e.waiting = d.waiting;
  e.core_level = static_cast<int>(d.core_ceiling);
  e.core_hz = levels.core_hz(static_cast<std::size_t>(d.core_ceiling));
  e.uncore_level = static_cast<int>(d.uncore_level);
  e.uncore_hz = levels.uncore_hz(d.uncore_level);
  e.model = model;
  e.reason = d.stage + ": " + d.reason;
  if (!d.type_ceiling.empty()) {
    e.reason += " (ceilings per type:";
    for (std::size_t t = 0; t < d.type_ceiling.size(); ++t)
      if (t > 0) e.reason += " " + std::to_string(t) + "=" + std::to_string(d.type_ceiling[t]);
    e.reason += ")";
  }
  return e;
}

}  // namespace rubato::min_energy
