#include "sim_min_energy.hpp"

#include <utility>

#include "rubato/power/session/min_energy_setup.hpp"

namespace rubato::sim::detail {
namespace {

min_energy::ControllerParams params_for(const SimOptions& o, const TempoLadder& ladder, const UncoreLadder& lever) {
  const MachineProfile& p = o.profile;
  min_energy::ControllerParams params(min_energy_model(p, ladder, lever.levels_hz(), o.uncore_hz));
  params.max_time_loss = o.min_energy.max_time_loss;
  params.fallbacks.settings_core = o.min_energy.core_sensitivity;
  params.fallbacks.settings_uncore = o.min_energy.uncore_sensitivity;
  params.fallbacks.profile = {p.beta, 0.0};
  params.saturated_transaction_rate_per_s = p.memory_transaction_rate_saturated_per_s.value_or(0);
  return params;
}

}  // namespace

SimMinEnergy::SimMinEnergy(const SimOptions& o, const TempoLadder& ladder, const UncoreLadder& lever)
    : controller_(params_for(o, ladder, lever)) {
  if (o.min_energy.closed_loop) {
    const std::string plant = o.plant.profile ? o.plant.profile->name : o.profile.name;
    min_energy::LearnerParams params =
        learner_params(controller_.params(), o.control_interval_s, o.profile.transition_latency_s,
                       "simulated meter:" + plant, "modeled:" + o.profile.name);
    params.metered = o.sensors.meter;
    learner_.emplace(std::move(params));
  }
}

}  // namespace rubato::sim::detail
