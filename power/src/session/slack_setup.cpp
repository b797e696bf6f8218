#include "rubato/power/session/slack_setup.hpp"

#include <algorithm>

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
  if (settings.beta >= 0) return {settings.beta, "RUBATO_BETA"};
  if (profile) return {profile->beta, "profile:" + profile->name};
  return {1.0, "default"};
}

CostModel cost_model_for(const MachineProfile& profile, const TempoLadder& ladder, double beta, double uncore_hz) {
  const PowerModel power(profile);
  CostModel m;
  for (double hz : ladder.frequencies_hz()) m.busy_w.push_back(power.busy_w(hz));
  m.uncore_w = power.uncore_w(uncore_hz);
  m.beta = beta;
  return m;
}

}  // namespace rubato
