#include "rubato/power/session/min_energy_setup.hpp"

#include "rubato/power/energy/power_model.hpp"

namespace rubato {

FrequencyModel min_energy_model(const MachineProfile& profile, const TempoLadder& ladder,
                                const std::vector<double>& uncore_levels_hz, double fixed_uncore_hz) {
  const PowerModel power(profile);
  LevelPowers levels;
  levels.core_hz = ladder.frequencies_hz();
  for (double hz : levels.core_hz) {
    levels.busy_w.push_back(power.busy_w(hz));
    levels.idle_w.push_back(power.idle_w(hz));
  }
  levels.uncore_hz = uncore_levels_hz;
  for (double hz : levels.uncore_hz) levels.uncore_w.push_back(power.uncore_w(hz));
  levels.uncore_fixed_w = power.uncore_w(fixed_uncore_hz);
  return FrequencyModel(std::move(levels), profile.memory_bandwidth_knee_hz.value_or(0));
}

min_energy::SensitivityFallbacks sensitivity_fallbacks(const Settings& settings, const MachineProfile& profile) {
  min_energy::SensitivityFallbacks f;
  if (settings.core_sensitivity >= 0) f.settings_core = settings.core_sensitivity;
  else if (settings.beta >= 0) f.settings_core = settings.beta;
  if (settings.uncore_sensitivity >= 0) f.settings_uncore = settings.uncore_sensitivity;
  f.profile = {profile.beta, 0.0};
  return f;
}

min_energy::ControllerParams min_energy_params(const Settings& settings, const MachineProfile& profile,
                                               const TempoLadder& ladder, const std::vector<double>& uncore_levels_hz) {
  min_energy::ControllerParams p(min_energy_model(profile, ladder, uncore_levels_hz, settings.uncore_hz));
  p.max_time_loss = settings.max_time_loss;
  p.fallbacks = sensitivity_fallbacks(settings, profile);
  p.saturated_transaction_rate_per_s = profile.memory_transaction_rate_saturated_per_s.value_or(0);
  return p;
}

min_energy::LearnerParams learner_params(const min_energy::ControllerParams& params, double interval_s,
                                         double transition_latency_s, const std::string& measured_label,
                                         const std::string& model_label) {
  min_energy::LearnerParams p(params.model);
  p.max_time_loss = params.max_time_loss;
  p.fallbacks = params.fallbacks;
  p.saturated_transaction_rate_per_s = params.saturated_transaction_rate_per_s;
  p.interval_s = interval_s;
  p.transition_latency_s = transition_latency_s;
  p.measured_energy_label = measured_label;
  p.modelled_energy_label = model_label;
  return p;
}

namespace {

// "not measured: WHY" where the profile's calibration says so, else "not in the profile".
std::string absent_because(const MachineProfile& p, const std::string& field) {
  const auto it = p.not_measured.find(field);
  return it != p.not_measured.end() ? "not measured: " + it->second : "not in the profile";
}

}  // namespace

std::vector<std::string> min_energy_profile_gaps(const MachineProfile& profile, bool uncore_lever, bool closed_loop,
                                                 bool metered) {
  std::vector<std::string> out;
  if (!uncore_lever) return out;
  const std::string who = "min-energy: profile " + profile.name + " has no ";
  if (profile.uncore_power.empty()) {
    std::string what = who + "uncore_power ladder (" + absent_because(profile, "uncore_power") +
                       "): the model sees no power saved by a lower uncore; ";
    if (closed_loop && metered) what += "a lower uncore is kept only where the meter measures less energy";
    else if (closed_loop) what += "no meter reads energy here either, so the uncore stays at its fastest level";
    else what += "the open loop keeps the uncore where its model puts it";
    out.push_back(what + " (rubato calibrate measures the ladder where intel_uncore_frequency is settable)");
  }
  if (!profile.memory_bandwidth_knee_hz)
    out.push_back(who + "memory_bandwidth_knee_hz (" + absent_because(profile, "memory_bandwidth_knee_hz") +
                  "): the model's uncore time grows as 1 / f_u from the fastest level" +
                  (closed_loop ? "; the closed loop judges each level by the durations it measures" : ""));
  return out;
}

}  // namespace rubato
