#include "session/min_energy_runner.hpp"

#include <set>

#include "rubato/core/min_energy/decision_event.hpp"

namespace rubato {
namespace {

std::string number(double v) { return std::to_string(v); }

}  // namespace

MinEnergyRunner::MinEnergyRunner(min_energy::ControllerParams params, Engine& engine, UncoreControl* uncore,
                                 OperatingPoint* point, std::string model_label,
                                 std::optional<min_energy::LearnerParams> learner, ClosedLoopSensors sensors)
    : controller_(std::move(params)),
      sensors_(std::move(sensors)),
      engine_(engine),
      uncore_(uncore),
      point_(point),
      model_label_(std::move(model_label)) {
  if (point_ && uncore_ && uncore_->domains() > 0) point_->set_reference_uncore_hz(uncore_->ladder(0).fastest_hz());
  if (learner && engine_.records_task_types()) learner_.emplace(std::move(*learner));
}

void MinEnergyRunner::step(const counters::CounterSample* sample, double now_s) {
  if (finished_) return;
  if (since_s_ < 0) since_s_ = now_s;
  account(now_s);
  if (learner_) {
    step_closed(sample, now_s);
  } else if (const auto d = controller_.step({now_s, engine_.activity(), sample})) {
    apply(*d, now_s);
    record(*d);
  }
  if (uncore_) uncore_->apply_due();  // a setting the rate limit held back
  // Published only when it moved: the workers read the operating point (the
  // emulator, every segment) and the engine's level (the guard), and a store,
  // even of the same value, takes that cache line from each of them.
  if (uncore_ && uncore_->current_hz(0) != uncore_hz_) {
    uncore_hz_ = uncore_->current_hz(0);
    if (point_) point_->set_uncore_hz(uncore_hz_);
    if (uncore_->domains() > 0 && uncore_hz_ > 0)
      engine_.set_uncore_level(static_cast<int>(uncore_->ladder(0).nearest_level(uncore_hz_)));
  }
}

// The engine gets the ceiling and the work's sensitivities for its guard; the
// uncore is asked for the level (every domain alike: one shared lever).
void MinEnergyRunner::apply(const min_energy::Decision& d, double) {
  engine_.set_core_ceiling(static_cast<Level>(d.pair.core_level));
  engine_.set_work_sensitivity(d.sensitivity.value);
  core_hz_ = d.pair.core_hz;
  sensitivity_ = d.sensitivity.value;
  if (point_) point_->set_sensitivity(d.sensitivity.value);
  if (uncore_ && d.pair.uncore_hz > 0) uncore_->set_all_hz(d.pair.uncore_hz);
}

// The closed loop's interval: the durations since the last step, the uncore
// level in force (it changes only at steps, so the level now held all
// interval), the meter's joules over the interval.
void MinEnergyRunner::step_closed(const counters::CounterSample* sample, double now_s) {
  min_energy::LearnerInput in;
  in.now_s = now_s;
  in.activity = engine_.activity();
  in.segments = durations_.since_last(engine_.task_type_stats());
  if (uncore_ && uncore_->domains() > 0 && uncore_->current_hz(0) > 0)
    in.uncore_level = static_cast<int>(uncore_->ladder(0).nearest_level(uncore_->current_hz(0)));
  if (sensors_.energy_j) {
    const std::optional<double> j = sensors_.energy_j();
    if (j && last_energy_j_) {
      in.energy_j = *j - *last_energy_j_;
      in.metered_s = now_s - last_energy_s_;
    }
    last_energy_j_ = j;
    last_energy_s_ = now_s;
  }
  in.sample = sample;
  if (const auto d = learner_->step(in)) {
    apply(*d);
    events_.push_back(min_energy::to_report_event(*d, learner_->params().model, model_label_));
  }
}

void MinEnergyRunner::apply(const min_energy::LearnerDecision& d) {
  if (!d.type_ceiling.empty()) {
    engine_.set_type_ceilings(d.type_ceiling, d.core_ceiling);
    type_ceilings_ = true;
  } else if (type_ceilings_) {
    engine_.clear_type_ceilings(d.core_ceiling);
    type_ceilings_ = false;
  } else {
    engine_.set_core_ceiling(d.core_ceiling);
  }
  core_hz_ = learner_->params().model.core_hz(static_cast<std::size_t>(d.core_ceiling));
  if (uncore_ && uncore_->domains() > 0) uncore_->set_all_hz(learner_->params().model.uncore_hz(d.uncore_level));
}

void MinEnergyRunner::record(const min_energy::Decision& d) {
  events_.push_back(min_energy::to_report_event(d, model_label_));
}

void MinEnergyRunner::account(double now_s) {
  const double dt = now_s - since_s_;
  since_s_ = now_s;
  if (!(dt > 0) || events_.empty()) return;  // nothing decided yet: nothing to weigh
  uncore_s_at_hz_[uncore_hz_] += dt;
  timed_s_ += dt;
  core_hz_s_ += core_hz_ * dt;
  core_share_s_ += sensitivity_.core * dt;
  uncore_share_s_ += sensitivity_.uncore * dt;
  if (uncore_hz_ > 0) {
    uncore_hz_s_ += uncore_hz_ * dt;
    uncore_timed_s_ += dt;
  }
}

void MinEnergyRunner::finish(double now_s) {
  if (finished_) return;
  if (since_s_ >= 0) account(now_s);
  finished_ = true;
}

std::vector<std::pair<double, double>> MinEnergyRunner::uncore_s_at_hz() const {
  return {uncore_s_at_hz_.begin(), uncore_s_at_hz_.end()};
}

void MinEnergyRunner::fill_report(Report& r, const std::vector<std::string>& counter_lines) const {
  r.frequency_pairs.insert(r.frequency_pairs.end(), events_.begin(), events_.end());
  auto& p = r.parameters;
  p["min_energy_loop"] = learner_ ? "closed" : "open";
  if (learner_) {
    learner_->fill_report(r, sensors_.type_names ? sensors_.type_names() : std::vector<std::string>{});
    if (!sensors_.energy_j)
      r.notes.push_back(
          "min-energy: no meter reads energy during the run here: the closed loop ranks levels by the profile's "
          "power times the measured time, and cannot undo a step that costs energy");
  }
  const min_energy::ControllerParams& cp = controller_.params();
  p["max_time_loss"] = number(cp.max_time_loss);
  p["min_energy_decisions"] = std::to_string(events_.size());
  p["min_energy_model"] = model_label_;
  std::set<std::string> core_sources, uncore_sources;
  for (const FrequencyPairEvent& e : events_) {
    core_sources.insert(e.core_sensitivity_source);
    uncore_sources.insert(e.uncore_sensitivity_source);
  }
  auto joined = [](const std::set<std::string>& s) {
    std::string out;
    for (const auto& x : s) out += (out.empty() ? "" : ",") + x;
    return out;
  };
  p["core_sensitivity_source"] = joined(core_sources);
  p["uncore_sensitivity_source"] = joined(uncore_sources);
  if (timed_s_ > 0) {
    p["core_sensitivity"] = number(core_share_s_ / timed_s_);  // time-weighted over the decisions in force
    p["uncore_sensitivity"] = number(uncore_share_s_ / timed_s_);
    p["min_energy_core_hz_time_weighted"] = number(core_hz_s_ / timed_s_);
  }
  if (uncore_timed_s_ > 0) p["min_energy_uncore_hz_time_weighted"] = number(uncore_hz_s_ / uncore_timed_s_);
  if (uncore_) {
    p["uncore_control"] = std::string(uncore_->name());
    p["uncore_transitions"] = std::to_string(uncore_->transitions());
    for (const std::string& line : uncore_->failures()) r.notes.push_back("min-energy: uncore: " + line);
  } else {
    r.notes.push_back(
        "min-energy: no uncore lever here (no uncore ladder, or RUBATO_UNCORE pins it): only the core "
        "level of working workers is chosen");
  }
  if (cp.saturated_transaction_rate_per_s <= 0)
    r.notes.push_back(
        "min-energy: the profile gives no memory_transaction_rate_saturated_per_s, so counters are not "
        "used for the work's uncore share");
  for (const std::string& line : counter_lines) r.notes.push_back("min-energy: counters: " + line);
}

}  // namespace rubato
