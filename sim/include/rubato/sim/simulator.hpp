// The discrete-event simulator (issue 8): a work-stealing runtime on N
// simulated cores, driving the real tempo engine (core/engine.hpp) through its
// event API, with simulated time as the engine's Clock and simulated DVFS as
// its TempoActuator.
//
// Model (docs in benchmarks/sim/RESULTS.md "Model"):
//  - Workers are pinned one per core (machine.hpp). Each owns a deque: pushes
//    and pops at the tail, thieves take the head (seed 000 §2, Fig. 2).
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
//    frequency f a segment takes w (beta f_ref / f + 1 - beta) (DESIGN.md,
//    Emulator), divided by its contention speed (contention.hpp).
//  - A domain's frequency request takes effect transition_latency_s later;
//    with min_dwell_s > 0, requests closer than that are coalesced (latest wins).
//  - Energy: each hosted core's busy and idle time at each applied frequency,
//    times the profile's busy_w / idle_w, plus uncore_w over the makespan.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rubato/core/engine.hpp"
#include "rubato/power/profile.hpp"
#include "rubato/sim/contention.hpp"
#include "rubato/sim/machine.hpp"
#include "rubato/sim/program.hpp"

namespace rubato::sim {

enum class SpawnModel { cilk, omp };

struct SimOptions {
  MachineProfile profile;
  std::size_t workers = 1;
  // Policy, tempo ladder, thresholds, profiling window and sampling interval.
  // The simulator sets max_workers and worker_domain itself.
  EngineOptions engine;
  SpawnModel model = SpawnModel::cilk;
  Placement placement = Placement::spread;
  std::uint64_t seed = 1;          // victim selection
  double steal_cost_s = 1e-6;      // one steal attempt, successful or not
  double min_dwell_s = 0;          // per domain, between accepted frequency requests
  const ContentionModel* contention = nullptr;  // nullptr: no contention
};

// Time one core spent at one frequency.
struct CoreTime {
  double hz = 0;
  std::uint64_t busy_ns = 0;
  std::uint64_t idle_ns = 0;
};

struct SimResult {
  std::uint64_t makespan_ns = 0;
  double energy_j = 0;
  double core_energy_j = 0;
  double uncore_energy_j = 0;
  std::vector<int> worker_core;                    // core hosting each worker
  std::vector<std::vector<CoreTime>> core_time;    // per worker, per frequency used
  std::vector<std::uint64_t> applied_transitions;  // per engine domain id
  std::uint64_t engine_events = 0;    // calls into the engine's event API
  std::uint64_t scheduler_events = 0; // simulator events processed
  std::uint64_t steal_attempts = 0;
  std::uint64_t failed_steal_attempts = 0;
  std::uint64_t tasks = 0;            // frames created
  std::uint64_t peak_live_frames = 0;
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

}  // namespace rubato::sim
