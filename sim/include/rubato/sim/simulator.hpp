// The discrete-event simulator (docs/design.md "Simulator"): a work-stealing runtime on N
// simulated cores, driving the real tempo engine (rubato/core/tempo/engine.hpp) through its
// event API, with simulated time as the engine's Clock and simulated DVFS as
// its TempoActuator.
//
// Model (docs in benchmarks/sim/RESULTS.md "Model"):
//  - Workers are pinned one per core (machine.hpp). Each owns a deque: pushes
//    and pops at the tail, thieves take the head ([HERMES] §2, Fig. 2).
//  - SpawnModel::cilk (default; HERMES ran on Cilk Plus): work-first — a spawn
//    pushes the parent's continuation and the worker runs the child; a sync
//    with children outstanding suspends the frame and the worker steals; the
//    worker that returns the last child resumes the frame.
//  - SpawnModel::omp (libomp-like, for traces of OpenMP runs): a spawn pushes
//    the child and the parent continues; a suspended frame is tied to its
//    worker, which resumes it (innermost first) once its children are done,
//    and which meanwhile steals only descendants of it (OpenMP's task
//    scheduling constraint for tied tasks, as libomp enforces it).
//  - An out-of-work worker reports `idle` once, then makes steal attempts:
//    a uniformly random other worker (seeded), examined `steal_cost` later,
//    retried until one succeeds. While every deque is empty, attempts are
//    accounted in bulk (same outcome, fewer events).
//  - Work is given at the reference (profile's fastest) frequency f_ref; at
//    frequency f a segment takes w (beta f_ref / f + 1 - beta) (docs/design.md
//    "Emulator"), divided by its contention speed (contention.hpp).
//  - A domain's frequency request takes effect transition_latency_s later;
//    with min_dwell_s > 0, requests closer than that are coalesced (latest wins).
//  - Energy: each hosted core's busy and idle time at each applied frequency,
//    times the profile's busy_w / idle_w, plus uncore_w over the makespan. A
//    core whose worker the efs controller stopped is halted and adds nothing
//    ([EFS] Eq. 13: power counts active cores only). With the profile's
//    P0..Pn, the Eq. 13 system energy ∫ Power(busy cores) dt is given too.
//  - Policy efs ([EFS] §4; also hermes+efs): core's efs::EfsController runs
//    every control interval on simulated counters — each worker's memory
//    accesses µ ∫ u_i dt (u_i = Eq. 11 speed × b_i, Eq. 4) and busy time, the
//    chip's total — and says which workers run; `ThrottleMode` says how a
//    stopped worker stops. Its deque stays open to thieves.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rubato/core/tempo/engine.hpp"
#include "rubato/power/machine/profile.hpp"
#include "rubato/sim/contention.hpp"
#include "rubato/sim/machine.hpp"
#include "rubato/sim/program.hpp"

namespace rubato::sim {

enum class SpawnModel { cilk, omp };

// How a worker the efs controller holds back stops.
enum class ThrottleMode {
  preempt,  // at once, its running segment frozen until it runs again ([EFS]'s
            // OS scheduler; `rubato run --mix` pausing whole programs)
  task,     // at its next task scheduling point (the OpenMP front-end's parking)
};

struct SimOptions {
  MachineProfile profile;
  std::size_t workers = 1;
  // Policy, tempo ladder, thresholds, profiling window and sampling interval.
  // The simulator sets max_workers and worker_domain itself.
  EngineOptions engine;
  SpawnModel model = SpawnModel::cilk;
  Placement placement = Placement::spread;
  std::uint64_t seed = 1;      // victim selection
  double steal_cost_s = 1e-6;  // one steal attempt, successful or not
  double min_dwell_s = 0;      // per domain, between accepted frequency requests
  // Pinned uncore frequency (Hz): the uncore is charged the profile's
  // uncore_power at it; 0 = the profile's constant uncore_w.
  double uncore_hz = 0;
  const ContentionModel* contention = nullptr;  // nullptr: no contention
  // efs (engine.policy.efs): the controller's period and how workers stop.
  // The profile must give memory_accesses_per_s (µ) and active_cores_power_w.
  double control_interval_s = 0.01;  // RUBATO_CONTROL_INTERVAL's default
  ThrottleMode throttle = ThrottleMode::preempt;
};

// Time one core spent at one frequency.
struct CoreTime {
  double hz = 0;
  std::uint64_t busy_ns = 0;
  std::uint64_t idle_ns = 0;
  std::uint64_t halted_ns = 0;  // stopped by the efs controller
};

// One decision of the efs controller that changed a worker.
struct ThrottleChange {
  std::uint64_t t_ns = 0;
  WorkerId worker = 0;
  bool parked = false;  // true: stopped; false: runs again
  std::string reason;
};

struct SimResult {
  std::uint64_t makespan_ns = 0;
  double energy_j = 0;
  double core_energy_j = 0;
  double uncore_energy_j = 0;
  std::vector<int> worker_core;                    // core hosting each worker
  std::vector<std::vector<CoreTime>> core_time;    // per worker, per frequency used
  std::vector<std::uint64_t> applied_transitions;  // per engine domain id
  std::uint64_t engine_events = 0;                 // calls into the engine's event API
  std::uint64_t scheduler_events = 0;              // simulator events processed
  std::uint64_t steal_attempts = 0;
  std::uint64_t failed_steal_attempts = 0;
  std::uint64_t tasks = 0;  // frames created
  std::uint64_t peak_live_frames = 0;
  std::vector<std::uint64_t> busy_count_ns;  // [n]: time exactly n workers ran a task segment
  double eq13_energy_j = -1;                 // [EFS] Eq. 13 over busy_count_ns; < 0: no P0..Pn in the profile
  std::vector<ThrottleChange> throttle_events;
  std::uint64_t control_steps = 0;  // efs controller intervals
};

class Simulation {
 public:
  // Throws std::invalid_argument for options that cannot be simulated (more
  // workers than cores, an empty profile, a bad ladder).
  Simulation(SimOptions options, const Program& program);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // Runs to the end of the program (once; later calls return the same result).
  const SimResult& run();
  bool finished() const noexcept;
  const SimResult& result() const noexcept;  // meaningful once run() returned
  const Engine& engine() const noexcept;
  const SimOptions& options() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

const char* to_string(SpawnModel m) noexcept;
const char* to_string(ThrottleMode m) noexcept;

}  // namespace rubato::sim
