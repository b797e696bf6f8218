#include "rubato/core/min_energy/min_energy_controller.hpp"

#include <cmath>
#include <stdexcept>

namespace rubato::min_energy {

Controller::Controller(ControllerParams params) : params_(std::move(params)) {
  if (!(params_.max_time_loss >= 0) || !std::isfinite(params_.max_time_loss))
    throw std::invalid_argument("min-energy: the time-loss bound must be a fraction >= 0");
}

std::optional<double> Controller::counter_uncore_share(const counters::CounterSample* sample, double& rate) const {
  rate = -1;
  if (!sample || !(params_.saturated_transaction_rate_per_s > 0)) return std::nullopt;
  std::string why;
  const std::optional<double> r = memory_transaction_rate(*sample, why);
  if (!r) return std::nullopt;
  rate = *r;
  return uncore_share_from_rate(*r, params_.saturated_transaction_rate_per_s);
}

// The pair for this interval. Nothing runs: the core level stays, the uncore
// goes to its lowest level (no work needs it). Otherwise the least-energy
// pair within the bound, kept over the one in force only when it saves at
// least switch_margin or the one in force now breaks the bound.
FrequencyPairEstimate Controller::choose(const SensitivityReading& s, const WorkerActivity& a,
                                         std::string& reason) const {
  const FrequencyModel& m = params_.model;
  const std::size_t lowest_uncore = m.uncore_levels() == 0 ? 0 : m.uncore_levels() - 1;
  if (a.working <= 0) {
    const std::size_t core = current_ ? current_->pair.core_level : 0;
    reason = "no worker runs: the uncore at its lowest level";
    return estimate_frequency_pair(s.value, m, 0, a.waiting, core, lowest_uncore);
  }
  const FrequencyPairEstimate best = choose_frequency_pair(s.value, m, a.working, a.waiting, params_.max_time_loss);
  if (!current_ || current_->working <= 0) {
    reason = current_ ? "workers run again" : "the first interval";
    return best;
  }
  const FrequencyPairEstimate now =
      estimate_frequency_pair(s.value, m, a.working, a.waiting, current_->pair.core_level, current_->pair.uncore_level);
  if (now.time_factor > 1.0 + params_.max_time_loss) {
    reason = "the pair in force would lose more time than the bound";
    return best;
  }
  if (best.energy_ratio < now.energy_ratio - params_.switch_margin) {
    reason = "a pair that saves more energy within the bound";
    return best;
  }
  reason = current_->reason;
  return now;
}

bool Controller::sensitivity_moved(const SensitivityReading& s) const noexcept {
  const SensitivityReading& was = current_->sensitivity;
  return s.uncore_source != was.uncore_source || s.core_source != was.core_source ||
         std::abs(s.value.core - was.value.core) >= params_.sensitivity_step ||
         std::abs(s.value.uncore - was.value.uncore) >= params_.sensitivity_step;
}

std::optional<Decision> Controller::step(const Input& input) {
  Decision d;
  d.t_s = input.now_s;
  d.sensitivity = read_sensitivity(counter_uncore_share(input.sample, d.transaction_rate_per_s), params_.fallbacks);
  d.working = input.activity.working;
  d.waiting = input.activity.waiting;
  d.pair = choose(d.sensitivity, input.activity, d.reason);
  const bool pair_changed =
      !current_ || d.pair.core_level != current_->pair.core_level || d.pair.uncore_level != current_->pair.uncore_level;
  // Whether anything runs is part of the record: the uncore's level means
  // something else when no worker needs it.
  const bool runs_changed = current_ && (current_->working > 0) != (d.working > 0);
  if (!pair_changed && !runs_changed && !sensitivity_moved(d.sensitivity)) {
    current_->working = d.working;  // the record stands; who runs now is kept for the next step
    current_->waiting = d.waiting;
    return std::nullopt;
  }
  if (!pair_changed && !runs_changed) d.reason = "the work's sensitivity changed; the pair stands";
  else if (!pair_changed && d.working > 0) d.reason = "workers run again; the pair stands";
  current_ = d;
  return d;
}

}  // namespace rubato::min_energy
