#include "rubato/power/session/slack_setup.hpp"

#include <algorithm>
#include <cmath>

#include "rubato/power/energy/power_model.hpp"

namespace rubato {

double slack_dwell_default_s(const MachineProfile* profile) noexcept {
  const double latency = profile ? std::max(0.0, profile->transition_latency_s) : 0.0;
  return std::max(kSlackDwellFloorS, kSlackDwellLatencies * latency);
}

double slack_dwell_s(const Settings& settings, const MachineProfile* profile) noexcept {
  return settings.slack_dwell_s > 0 ? settings.slack_dwell_s : slack_dwell_default_s(profile);
}

BetaChoice beta_for(const Settings& settings, const MachineProfile* profile) {
  if (settings.core_sensitivity >= 0) return {settings.core_sensitivity, "RUBATO_CORE_SENSITIVITY"};
  if (settings.beta >= 0) return {settings.beta, "RUBATO_BETA"};
  if (profile) return {profile->beta, "profile:" + profile->name};
  return {1.0, "default"};
}

CostModel cost_model_for(const MachineProfile& profile, const TempoLadder& ladder, double beta, double uncore_hz) {
  const PowerModel power(profile);
  CostModel m;
  for (double hz : ladder.frequencies_hz()) m.busy_w.push_back(power.busy_w(hz));
  for (double hz : ladder.frequencies_hz()) m.idle_w.push_back(power.idle_w(hz));
  m.raise_latency_s = std::max(0.0, profile.transition_latency_s);
  m.uncore_w = power.uncore_w(uncore_hz);
  m.beta = beta;
  return m;
}

}  // namespace rubato

namespace rubato {

CostModel cost_model_for(const MachineProfile& profile, const TempoLadder& ladder, const WorkSensitivity& work,
                         const std::vector<double>& uncore_levels_hz, double uncore_hz) {
  CostModel m = cost_model_for(profile, ladder, work.core, uncore_hz);
  const PowerModel power(profile);
  m.uncore_sensitivity = work.uncore;
  m.uncore_hz = uncore_levels_hz;
  for (double hz : uncore_levels_hz) m.uncore_level_w.push_back(power.uncore_w(hz));
  m.memory_bandwidth_knee_hz = profile.memory_bandwidth_knee_hz.value_or(0);
  if (uncore_hz > 0 && !uncore_levels_hz.empty()) {
    std::size_t nearest = 0;
    for (std::size_t l = 1; l < uncore_levels_hz.size(); ++l)
      if (std::abs(uncore_levels_hz[l] - uncore_hz) < std::abs(uncore_levels_hz[nearest] - uncore_hz)) nearest = l;
    m.initial_uncore_level = static_cast<int>(nearest);
  }
  return m;
}

}  // namespace rubato
