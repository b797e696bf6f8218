// The simulator's controller host: what the live controller host
// (power/src/session/controller_host.cpp) does every control interval, on
// simulated time — [EFS]'s controller on the simulated per-thread memory
// accesses, and min-energy on the sensors (sensors.hpp) — and how their
// decisions are carried out (throttling, the engine's core ceiling, the
// uncore's level).
#include <algorithm>
#include <stdexcept>
#include <string>

#include "rubato/core/counters/counter_sample.hpp"
#include "rubato/core/min_energy/decision_event.hpp"
#include "simulation_impl.hpp"

namespace rubato::sim {

using detail::EventKind;
using detail::to_ns;
using detail::Worker;
using detail::WorkerState;

// ---- efs throttling -------------------------------------------------------------

// The simulated counters: a segment at speed s with solo utilisation b keeps
// s b of the bus busy (Eq. 4), i.e. µ s b accesses per second.
void Simulation::Impl::bank_counters(Worker& w) {
  if (!efs) return;
  if (w.in_segment) {
    const std::uint64_t dt = now - w.ctr_mark;
    const double b = w.current->shape->work_class().bus;
    const double u = contention_active ? w.speed * opt.contention->solo_in_model(b) : 0.0;
    w.ctr_accesses += plant.profile().memory_accesses_per_s * u * static_cast<double>(dt) * 1e-9;
    w.ctr_busy_ns += dt;
  }
  w.ctr_mark = now;
}

void Simulation::Impl::control_step() {
  counters::CounterSample sample;
  sample.elapsed_s = static_cast<double>(control_ns) * 1e-9;
  double chip = 0;
  for (Worker& w : workers) {
    bank_counters(w);
    counters::ThreadCounts& t = sample.thread_or_add(w.id);
    t.busy_s = static_cast<double>(w.ctr_busy_ns) * 1e-9;
    t.mem_reads = w.ctr_accesses;
    chip += w.ctr_accesses;
    w.ctr_accesses = 0;
    w.ctr_busy_ns = 0;
  }
  sample.chip.mem_accesses = chip;
  sample.chip.mem_writes = 0.0;
  const efs::ControlStep step = efs->step(sample, static_cast<double>(now) * 1e-9);
  ++result.control_steps;
  for (const efs::TargetChange& c : step.changes) {
    Worker& w = workers[c.id];
    result.throttle_events.push_back({now, w.id, c.parked, c.reason});
    if (c.parked) throttle(w);
    else unthrottle(w);
  }
  // A controller that keeps every worker with work stopped would stall the run.
  for (const Worker& w : workers)
    if (w.in_segment || w.state == WorkerState::stealing) last_progress_ns = now;
  if (now - last_progress_ns > 1000 * control_ns + to_ns(efs->wait_bound_s()))
    throw std::logic_error("simulator: no task progress for " + std::to_string((now - last_progress_ns) / 1000000) +
                           " ms under efs");
  events.push(now + control_ns, EventKind::control, 0);
}

// ---- min-energy (eco) -----------------------------------------------------------

// Work done since the last call, for the memory-transaction counters (the sensor counts the plant's truth).
// Called before a worker's rate changes, and at each step.
void Simulation::Impl::bank_transactions(Worker& w) {
  if (min_energy_control && w.in_segment) {
    const double reference_ns = static_cast<double>(now - w.transactions_mark) * w.rate;
    counter_sensor.add_work(reference_ns, w.current->shape->work_class().uncore);
  }
  w.transactions_mark = now;
}

// One interval of the live controller's, carried out as the live runner does.
void Simulation::Impl::min_energy_step() {
  for (Worker& w : workers) bank_transactions(w);
  ++result.min_energy_steps;
  const double now_s = static_cast<double>(now) * 1e-9;
  const double interval_s = static_cast<double>(control_ns) * 1e-9;
  const std::optional<counters::CounterSample> sample = counter_sensor.read(interval_s);
  if (min_energy_control->closed_loop()) learner_step(now_s, sample ? &*sample : nullptr);
  else if (const auto d = min_energy_control->step(now_s, engine->activity(), sample ? &*sample : nullptr))
    apply_decision(*d);
  if (uncore.apply_due(now)) uncore_changed();  // a setting the rate limit held back, now due
  if (uncore.controlled()) engine->set_uncore_level(static_cast<int>(uncore.ladder().nearest_level(uncore.hz())));
  events.push(now + control_ns, EventKind::min_energy_step, 0);
}

// The engine's core ceiling (every domain runs at the slower of its tempo
// level and the ceiling, through the DVFS model), the work's sensitivities
// for the guard, the uncore's level; and the record.
void Simulation::Impl::apply_decision(const min_energy::Decision& d) {
  result.frequency_pairs.push_back(min_energy::to_report_event(d, "simulated:" + opt.profile.name));
  if (d.pair.core_hz != ceiling_hz) {
    bank_ceiling();
    ceiling_hz = d.pair.core_hz;
    ++result.core_ceiling_changes;
  }
  engine->set_core_ceiling(static_cast<Level>(d.pair.core_level));
  engine->set_work_sensitivity(d.sensitivity.value);
  if (uncore.controlled() && d.pair.uncore_hz > 0) request_uncore(uncore.ladder().nearest_level(d.pair.uncore_hz));
}

// The closed loop's interval: the engine's durations, the uncore level in
// force (changes land only at steps, so the level now held all interval), the
// meter's reading of the plant and the counters.
void Simulation::Impl::learner_step(double now_s, const counters::CounterSample* sample) {
  min_energy::LearnerInput in;
  in.now_s = now_s;
  in.activity = engine->activity();
  in.uncore_level = uncore.controlled() ? static_cast<int>(uncore.ladder().nearest_level(uncore.hz())) : -1;
  in.energy_j = meter_sensor.read(plant_energy_j());
  in.sample = sample;
  if (const auto d = min_energy_control->step(std::move(in), engine->task_type_stats())) apply_learner_decision(*d);
}

double Simulation::Impl::plant_energy_j() const {
  return plant.core_energy_j(meter.times_at(now)) + plant.uncore_energy_j(uncore.time_at_hz_until(now));
}

void Simulation::Impl::apply_learner_decision(const min_energy::LearnerDecision& d) {
  const min_energy::Learner& learner = *min_energy_control->learner();
  const FrequencyModel& m = learner.params().model;
  result.frequency_pairs.push_back(min_energy::to_report_event(d, m, "simulated:" + opt.profile.name));
  const double hz = m.core_hz(static_cast<std::size_t>(d.core_ceiling));
  if (hz != ceiling_hz) {
    bank_ceiling();
    ceiling_hz = hz;
    ++result.core_ceiling_changes;
  }
  if (!d.type_ceiling.empty()) {
    engine->set_type_ceilings(d.type_ceiling, d.core_ceiling);
    type_ceilings = true;
  } else if (type_ceilings) {
    engine->clear_type_ceilings(d.core_ceiling);
    type_ceilings = false;
  } else {
    engine->set_core_ceiling(d.core_ceiling);
  }
  if (uncore.controlled()) request_uncore(d.uncore_level);
}

void Simulation::Impl::bank_ceiling() {
  ceiling_hz_ns += ceiling_hz * static_cast<double>(now - ceiling_since);
  ceiling_since = now;
}

// Asked of the uncore lever; held by its rate limit, it lands at the first
// step after it falls due, as the live runner applies it.
void Simulation::Impl::request_uncore(std::size_t level) {
  if (uncore.request(level, now)) uncore_changed();
}

// Work that slows with the uncore runs at the new rate from now.
void Simulation::Impl::uncore_changed() {
  result.uncore_changes.emplace_back(now, uncore.hz());
  for (Worker& w : workers)
    if (w.in_segment && w.current->shape->work_class().uncore != 0) rerate(w);
}

// The uncore's energy at the frequency it had over time, and what the report
// says of it and of the core ceiling.
void Simulation::Impl::finalize_uncore() {
  uncore.close(now);
  result.uncore_modelled = uncore.pinned() || !uncore.ladder().empty();
  result.uncore_controlled = uncore.controlled();
  result.uncore_time = uncore.time_at_hz();
  result.uncore_transitions = uncore.transitions();
  result.uncore_energy_j = plant.uncore_energy_j(result.uncore_time);
  double hz_ns = 0;
  for (const auto& [hz, ns] : result.uncore_time) {
    hz_ns += uncore.effective_hz(hz) * static_cast<double>(ns);
  }
  const auto span = static_cast<double>(result.makespan_ns);
  result.uncore_mean_hz = span > 0 ? hz_ns / span : uncore.effective_hz(uncore.hz());
  if (min_energy_control) {
    bank_ceiling();
    result.core_ceiling_mean_hz = span > 0 ? ceiling_hz_ns / span : ceiling_hz;
    if (const min_energy::Learner* learner = min_energy_control->learner()) {
      Report part;
      learner->fill_report(part, program.task_type_names);
      result.learning_probes = std::move(part.learning_probes);
      result.learned_types = std::move(part.learned_types);
      result.learning_parameters = std::move(part.parameters);
    }
  }
  for (const auto& core : result.core_time)
    for (const CoreTime& t : core) result.busy_core_cycles += t.hz * static_cast<double>(t.busy_ns) * 1e-9;
}

}  // namespace rubato::sim
