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
//  - Work is given at the reference setting: the profile's fastest core
//    frequency f_ref, the uncore at the fastest level of its ladder. At core
//    f and uncore fu a segment of work class (b_c, b_u) takes
//    w · T(f, fu) / T(reference) of the one model (rubato/core/model/
//    time_model.hpp): w (b_c f_ref / f + 1 − b_c) + w b_u (g(fu) − 1), which
//    is today's β model bit for bit when b_u = 0; divided by its contention
//    speed (contention.hpp).
//  - A domain's frequency request takes effect transition_latency_s later;
//    with min_dwell_s > 0, requests closer than that are coalesced (latest wins).
//  - The uncore is one level for all workers (sim/src/sim_uncore.hpp): pinned
//    (uncore_hz), not set (time as at its fastest, power the profile's
//    uncore_w), or moved by eco's min-energy part from its fastest, its
//    changes at most one per uncore transition latency (the live back-end's
//    rate limit). Work running when it changes is re-rated.
//  - Energy: each hosted core's busy and idle time at each applied frequency,
//    times the profile's busy_w / idle_w, plus the uncore's power at the
//    frequency it had over time (uncore_power; the constant uncore_w where it
//    was not set or the profile has no table). A
//    core whose worker the efs controller stopped is halted and adds nothing
//    ([EFS] Eq. 13: power counts active cores only). With the profile's
//    P0..Pn, the Eq. 13 system energy ∫ Power(busy cores) dt is given too.
//  - min-energy (eco has it; sim/src/sim_min_energy.hpp): every control
//    interval the live controller's decision picks the working workers' core
//    level — the engine's core ceiling, applied through the same DVFS model —
//    and the uncore level.
//  - Policy efs ([EFS] §4; also hermes+efs): core's efs::EfsController runs
//    every control interval on simulated counters — each worker's memory
//    accesses µ ∫ u_i dt (u_i = Eq. 11 speed × b_i, Eq. 4) and busy time, the
//    chip's total — and says which workers run; `ThrottleMode` says how a
//    stopped worker stops. Its deque stays open to thieves.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rubato/core/io/report.hpp"
#include "rubato/core/model/frequency_pair.hpp"
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

// The truth the simulated machine obeys (sim/src/plant.hpp). The policies
// and controllers never read it: they get SimOptions::profile (their beliefs)
// and the sensors below, as a live run gets a profile and its machine's
// meters. Evaluating a controller on a plant whose law differs from its
// profile is what tells whether it works where its model is wrong.
struct PlantOptions {
  // The plant's own machine: power at each core and uncore frequency, the
  // memory-bandwidth knee, the memory-transaction rate of wholly uncore-bound
  // work, [EFS]'s µ and P0..Pn. nullopt: the profile the controllers believe
  // (the plant then obeys their model, as before the plant existed). Its
  // core frequencies are not used: the ladder is the beliefs' (frequencies
  // are a fact both share); its powers are read at those frequencies.
  std::optional<MachineProfile> profile;
  // The shape of the uncore term: the plant stretches uncore-sensitive work
  // by g(fu)^γ instead of the model's g(fu) (γ = 1: the model's form).
  double uncore_time_exponent = 1.0;
};

// What the controllers may read of the plant besides the scheduler's events
// (sim/src/sensors.hpp).
struct SensorOptions {
  // Memory-transaction counters (min-energy's b_u = R / R_sat): counted from
  // the plant's truth where it has a counter relation; absent where `counters`
  // is false (a VM, a container, perf_event_paranoid), multiplied by `bias`,
  // and each interval's count by max(0, 1 + noise · N(0, 1)).
  bool counters = true;
  double counter_bias = 1.0;
  double counter_noise = 0.0;
  // An energy meter over the plant (RAPL's package + uncore energy): each
  // interval's energy read with relative noise `meter_noise` (N(0, 1)
  // scaled); absent where `meter` is false.
  bool meter = true;
  double meter_noise = 0.0;
};

struct SimOptions {
  MachineProfile profile;  // what the policies and controllers believe (a live run's RUBATO_PROFILE)
  PlantOptions plant;
  SensorOptions sensors;
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
  double control_interval_s = 0.01;  // RUBATO_CONTROL_INTERVAL's default; also min_energy's period
  ThrottleMode throttle = ThrottleMode::preempt;
  // min-energy (engine.policy.min_energy; eco has it): every
  // control_interval_s, the working workers' core ceiling and the uncore
  // level of least modelled energy within max_time_loss (RUBATO_MAX_TIME_LOSS
  // live). The sensitivities the simulated user gave it (RUBATO_CORE_SENSITIVITY,
  // RUBATO_UNCORE_SENSITIVITY live; unset: the profile's β, b_u 0), after
  // simulated counters where the profile has the counter relation; the cost
  // guard's model takes them too.
  // closed_loop (the default, RUBATO_MIN_ENERGY_LOOP=closed live): the levels
  // are learnt from the segment durations the engine measures and the meter
  // (rubato/core/min_energy/learner.hpp), the shares above and the counters
  // only seed the search; false: the open-loop choice from the shares.
  struct MinEnergy {
    double max_time_loss = kDefaultMaxTimeLoss;
    std::optional<double> core_sensitivity;
    std::optional<double> uncore_sensitivity;
    bool closed_loop = true;
  } min_energy;
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
  // The uncore: (Hz, ns) at each frequency it had, in the order first seen
  // (Hz 0: not set, charged the profile's constant uncore_w), its
  // time-weighted mean (not set read as the ladder's fastest; 0 without a
  // ladder) and how often it changed.
  bool uncore_modelled = false;    // pinned, or the profile has an uncore ladder
  bool uncore_controlled = false;  // moved by min-energy
  std::vector<std::pair<double, std::uint64_t>> uncore_time;
  double uncore_mean_hz = 0;
  std::uint64_t uncore_transitions = 0;
  std::vector<std::pair<std::uint64_t, double>> uncore_changes;  // (t ns, Hz) of each change
  // min-energy: its decisions (as the live report records them), its steps,
  // how often the core ceiling changed and the ceiling's time-weighted mean
  // (the fastest level until the first decision).
  std::vector<FrequencyPairEvent> frequency_pairs;
  std::uint64_t min_energy_steps = 0;
  std::uint64_t core_ceiling_changes = 0;
  double core_ceiling_mean_hz = 0;
  double busy_core_cycles = 0;  // Σ over cores of frequency × busy time
  // min-energy's closed loop: its probes, what it learnt of each task type,
  // its report parameters (rubato/core/min_energy/learner.hpp).
  std::vector<LearningProbe> learning_probes;
  std::vector<LearnedType> learned_types;
  std::map<std::string, std::string> learning_parameters;
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
