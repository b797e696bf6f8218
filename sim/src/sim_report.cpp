#include "rubato/sim/sim_report.hpp"

#include <cstdio>
#include <stdexcept>

#include "rubato/core/tempo/tempo_ladder.hpp"
#include "rubato/core/version.hpp"

namespace rubato::sim {
namespace {

std::string text(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

// The run's settings, as text, in the report's policy parameters.
void add_parameters(Report& rep, const SimOptions& o, const std::string& workload) {
  const MachineProfile& p = o.profile;
  rep.parameters["workload"] = workload;
  rep.parameters["seed"] = std::to_string(o.seed);
  rep.parameters["spawn_model"] = to_string(o.model);
  rep.parameters["placement"] = to_string(o.placement);
  rep.parameters["steal_cost_s"] = text(o.steal_cost_s);
  rep.parameters["min_dwell_s"] = text(o.min_dwell_s);
  rep.parameters["transition_latency_s"] = text(p.transition_latency_s);
  rep.parameters["profile_beta"] = text(p.beta);
  rep.parameters["thresholds"] = std::to_string(
      o.engine.fixed_thresholds.empty() ? o.engine.thresholds : static_cast<int>(o.engine.fixed_thresholds.size()));
  rep.parameters["profile_window"] = std::to_string(o.engine.profile_window);
  rep.parameters["sample_interval_s"] = text(static_cast<double>(o.engine.sample_interval_ns) * 1e-9);
  rep.parameters["contention"] = o.contention && o.contention->active() ? "model" : "none";
  if (o.engine.policy.efs) {
    rep.parameters["control_interval_s"] = text(o.control_interval_s);
    rep.parameters["throttle"] = to_string(o.throttle);
  }
}

// The plant the run was graded on and what the controllers could read of it.
void add_plant(Report& rep, const SimOptions& o) {
  const PlantOptions& pl = o.plant;
  const bool own = pl.profile.has_value();
  rep.parameters["plant"] = own ? pl.profile->name : o.profile.name + " (the profile the controllers believe)";
  if (pl.uncore_time_exponent != 1.0) rep.parameters["plant_uncore_time_exponent"] = text(pl.uncore_time_exponent);
  const SensorOptions& se = o.sensors;
  std::string counters = se.counters ? "exact" : "none";
  if (se.counters && (se.counter_bias != 1.0 || se.counter_noise > 0))
    counters = "bias " + text(se.counter_bias) + ", noise " + text(se.counter_noise);
  rep.parameters["sensor_counters"] = counters;
  rep.parameters["sensor_meter"] =
      se.meter ? (se.meter_noise > 0 ? "rapl, noise " + text(se.meter_noise) : std::string("rapl")) : "none";
}

// The uncore and eco's min-energy part: how the uncore was set, what it did,
// and the core ceiling. Only where the uncore is modelled (a ladder or a pin)
// or the min-energy part ran, so that other runs' reports stay as they were.
void add_uncore(Report& rep, const SimResult& r, const SimOptions& o) {
  const bool min_energy = o.engine.policy.min_energy;
  if (r.uncore_modelled) {
    const bool moved = r.uncore_controlled;
    rep.parameters["uncore"] = o.uncore_hz > 0 ? "pinned at " + format_frequency(o.uncore_hz)
                               : moved         ? "min-energy: the uncore level of least modelled energy"
                                               : "not set: time as at the fastest level, power the profile's uncore_w";
    if (moved) {
      rep.parameters["uncore_min_interval_s"] = text(uncore_transition_latency_s(o.profile));
      rep.parameters["uncore_min_interval_source"] = uncore_transition_latency_source(o.profile);
    }
    rep.external["sim.uncore_mean_hz"] = r.uncore_mean_hz;
    rep.external["sim.uncore_transitions"] = static_cast<double>(r.uncore_transitions);
    for (const auto& [hz, ns] : r.uncore_time) {
      const std::string level = hz > 0 ? "at_" + format_frequency(hz) : "not_set";
      rep.external["sim.uncore_" + level + "_s"] = static_cast<double>(ns) * 1e-9;
    }
  }
  if (min_energy) {
    rep.frequency_pairs = r.frequency_pairs;
    rep.learning_probes = r.learning_probes;
    rep.learned_types = r.learned_types;
    for (const auto& [k, v] : r.learning_parameters) rep.parameters[k] = v;
    rep.parameters["min_energy_loop"] = o.min_energy.closed_loop ? "closed" : "open";
    rep.parameters["min_energy_interval_s"] = text(o.control_interval_s);
    rep.parameters["max_time_loss"] = text(o.min_energy.max_time_loss);
    rep.external["sim.min_energy_steps"] = static_cast<double>(r.min_energy_steps);
    rep.external["sim.core_ceiling_changes"] = static_cast<double>(r.core_ceiling_changes);
    rep.external["sim.core_ceiling_mean_hz"] = r.core_ceiling_mean_hz;
  }
}

// What the simulator knows beyond the engine: each worker's core and halted
// time, the throttle events, each domain's cores and applied transitions.
void add_placement(Report& rep, const SimResult& r, const MachineProfile& p) {
  for (WorkerReport& w : rep.workers) {
    if (w.id < r.worker_core.size()) w.core = r.worker_core[w.id];
    if (w.id < r.core_time.size()) {
      std::uint64_t halted = 0;
      for (const CoreTime& t : r.core_time[w.id]) halted += t.halted_ns;
      w.throttled_s = static_cast<double>(halted) * 1e-9;
    }
  }
  for (const ThrottleChange& c : r.throttle_events)
    rep.throttle_events.push_back({static_cast<double>(c.t_ns) * 1e-9, c.worker, c.parked, c.reason});
  for (DomainReport& d : rep.domains) {
    const int per = p.cores_per_domain > 0 ? p.cores_per_domain : 1;
    for (int c = static_cast<int>(d.id) * per; c < static_cast<int>(d.id + 1) * per && c < p.cores; ++c)
      d.cpus.push_back(c);
    if (d.id < r.applied_transitions.size()) d.applied_transitions = r.applied_transitions[d.id];
  }
}

// The simulator's own counts and energy split, as "sim.*" external figures.
void add_sim_figures(Report& rep, const SimResult& r, const SimOptions& o) {
  rep.external["sim.engine_events"] = static_cast<double>(r.engine_events);
  rep.external["sim.scheduler_events"] = static_cast<double>(r.scheduler_events);
  rep.external["sim.steal_attempts"] = static_cast<double>(r.steal_attempts);
  rep.external["sim.failed_steal_attempts"] = static_cast<double>(r.failed_steal_attempts);
  rep.external["sim.tasks"] = static_cast<double>(r.tasks);
  rep.external["sim.peak_live_frames"] = static_cast<double>(r.peak_live_frames);
  rep.external["sim.core_energy_j"] = r.core_energy_j;
  rep.external["sim.uncore_energy_j"] = r.uncore_energy_j;
  if (r.eq13_energy_j >= 0) rep.external["sim.eq13_energy_j"] = r.eq13_energy_j;  // [EFS] Eq. 13, system power
  for (std::size_t n = 0; n < r.busy_count_ns.size(); ++n)
    if (r.busy_count_ns[n])
      rep.external["sim.busy_cores_" + std::to_string(n) + "_s"] = static_cast<double>(r.busy_count_ns[n]) * 1e-9;
  if (o.engine.policy.efs) rep.external["sim.control_steps"] = static_cast<double>(r.control_steps);
  rep.external["sim.busy_core_cycles"] = r.busy_core_cycles;
  add_uncore(rep, r, o);
}

}  // namespace

Report make_report(const Simulation& sim, const std::string& workload, const std::string& command) {
  const SimOptions& o = sim.options();
  const SimResult& r = sim.result();
  const MachineProfile& p = o.profile;
  if (!sim.finished()) throw std::logic_error("make_report: the simulation has not run");
  Report rep;
  rep.tool_version = kVersion;
  rep.host = "sim:" + p.name;
  rep.pid = 0;
  rep.command = command;
  rep.runtime = o.model == SpawnModel::cilk ? "simulator (cilk-like: work-first, continuation stealing)"
                                            : "simulator (libomp-like: child stealing, tied tasks)";
  rep.frontend = "sim";
  rep.steals_observed = true;
  rep.backend = "simulated";
  rep.backend_note = "discrete-event simulation on profile '" + p.name + "' (" + std::to_string(p.cores) + " cores, " +
                     std::to_string(p.cores_per_domain) + " per clock domain, transition latency " +
                     text(p.transition_latency_s) + " s): time and energy are modelled, not measured";
  rep.profile = p.name;
  fill_from_engine(rep, sim.engine());
  add_parameters(rep, o, workload);
  add_plant(rep, o);
  rep.binding = "static";
  rep.workers_requested = static_cast<int>(o.workers);
  rep.wall_s = static_cast<double>(r.makespan_ns) * 1e-9;
  rep.energy.available = true;
  rep.energy.joules = r.energy_j;
  // Energy is the plant's: its own profile where one was given.
  const std::string plant = o.plant.profile ? o.plant.profile->name : p.name;
  rep.energy.source = "simulated:" + plant;
  add_placement(rep, r, p);
  rep.notes.push_back("simulated run: wall_s is simulated time, energy is the model of profile '" + plant + "'" +
                      (o.plant.profile ? " (the plant; the policies believed profile '" + p.name + "')" : ""));
  add_sim_figures(rep, r, o);
  return rep;
}

}  // namespace rubato::sim
