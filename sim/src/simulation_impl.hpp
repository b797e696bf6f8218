// The simulator's state, shared by the files that implement it by concern
// (docs/design.md "Simulator"): simulator.cpp schedules (frames, deques,
// steals, segments, DVFS), plant.hpp is the truth that times work and draws
// power, sensors.hpp what the controllers may read of it, and
// sim_control.cpp hosts the controllers (efs, min-energy) as the live
// controller host does. Private to sim/src.
#pragma once

#include <cmath>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "core_meter.hpp"
#include "event_queue.hpp"
#include "frame_pool.hpp"
#include "plant.hpp"
#include "rng.hpp"
#include "rubato/core/base/clock.hpp"
#include "rubato/core/efs/efs_controller.hpp"
#include "rubato/core/min_energy/min_energy_controller.hpp"
#include "rubato/sim/simulator.hpp"
#include "sensors.hpp"
#include "sim_min_energy.hpp"
#include "sim_uncore.hpp"
#include "work_deque.hpp"

namespace rubato::sim {
namespace detail {

inline std::uint64_t to_ns(double s) { return static_cast<std::uint64_t>(std::llround(std::max(0.0, s) * 1e9)); }

// parked: out of work while every deque is empty; throttled: stopped by the efs controller.
enum class WorkerState : std::uint8_t { working, stealing, parked, throttled };

struct Worker {
  WorkerId id = 0;
  DomainId domain = 0;
  WorkerState state = WorkerState::working;
  WorkDeque deque;
  Frame* current = nullptr;       // the frame this worker runs (nullptr: looking for work)
  std::vector<Frame*> suspended;  // omp: frames tied to this worker waiting at a sync, innermost last
  bool idle_reported = false;     // `idle` sent for this out-of-work episode
  // The running segment: `remaining` reference-ns of work progressing at `rate` since `mark`.
  bool in_segment = false;
  double remaining = 0;
  double rate = 1;
  double speed = 1;  // contention
  std::uint64_t mark = 0;
  std::uint32_t gen = 0;  // bumps whenever a scheduled event of this worker becomes stale
  // Stealing.
  WorkerId victim = 0;
  std::uint64_t park_phase = 0;  // parked: attempts end at park_phase + k * steal_cost
  // efs.
  bool throttled = false;   // the controller holds it back (it stops per ThrottleMode)
  bool frozen = false;      // stopped mid-segment: `remaining` resumes when it runs again
  double ctr_accesses = 0;  // this interval's simulated memory accesses
  std::uint64_t ctr_busy_ns = 0, ctr_mark = 0;
  std::uint64_t transactions_mark = 0;  // min-energy: the running work counted up to here
};

// A clock domain's frequency: requested by the engine, accepted (rate
// limited), applied after the transition latency.
struct SimDomain {
  std::vector<WorkerId> workers;
  double applied_hz = 0;
  double accepted_hz = 0;
  double wanted_hz = 0;
  std::uint64_t next_accept_ns = 0;
  bool accept_pending = false;
  std::deque<double> in_flight;  // accepted, not yet applied (FIFO: constant latency)
  std::uint64_t applied_transitions = 0;
};

}  // namespace detail

struct Simulation::Impl final : TempoActuator {
  Impl(SimOptions o, const Program& p);

  // TempoActuator: the engine changed a domain's effective level.
  void domain_level_changed(DomainId d, Level, double hz, std::uint64_t now_ns) noexcept override;

  void run();
  void dispatch(detail::Worker& w);
  bool take_local_work(detail::Worker& w);
  void finish_frame(detail::Worker& w, Frame& f);
  void start_segment(detail::Worker& w, double ref_ns);
  void end_segment(detail::Worker& w);
  void schedule_segment_end(detail::Worker& w);
  void rerate(detail::Worker& w);
  double rate_of(const detail::Worker& w, const WorkClass& wc) const noexcept;
  void look_for_victims(detail::Worker& w);
  void schedule_sweep(std::uint64_t at);
  void sweep();
  void begin_attempt(detail::Worker& w, std::uint64_t ends_at);
  void resolve_steal(detail::Worker& w);
  bool may_steal(const detail::Worker& thief, const Frame& f) const noexcept;
  void park(detail::Worker& w);
  void wake(detail::Worker& w);
  void wake_all();
  void push_local(detail::Worker& w, Frame* f);
  Frame* make_frame(const Step& s, Frame* parent);
  void resume(detail::Worker& w, Frame* f);
  void request_hz(DomainId d, double hz);
  void accept(DomainId d);
  void apply(DomainId d);
  void setup_min_energy();
  CostModel guard_model(const EngineOptions& eo) const;
  void bank_transactions(detail::Worker& w);
  void min_energy_step();
  void apply_decision(const min_energy::Decision& d);
  void learner_step(double now_s, const counters::CounterSample* sample);
  void apply_learner_decision(const min_energy::LearnerDecision& d);
  double plant_energy_j() const;  // the plant's energy so far (the meter sensor's truth)
  void bank_ceiling();
  void request_uncore(std::size_t level);
  void uncore_changed();
  void finalize_uncore();
  void update_speeds();
  void bank_counters(detail::Worker& w);
  void control_step();
  void throttle(detail::Worker& w);
  void unthrottle(detail::Worker& w);
  void stop(detail::Worker& w);
  void finalize();

  // Engine events, counted.
  void ev_push(detail::Worker& w) {
    ++result.engine_events;
    engine->push(w.id);
  }
  void ev_pop(detail::Worker& w) {
    ++result.engine_events;
    engine->pop(w.id);
  }
  void ev_idle(detail::Worker& w) {
    ++result.engine_events;
    engine->idle(w.id);
  }
  void ev_steal(detail::Worker& thief, detail::Worker& victim) {
    ++result.engine_events;
    engine->steal(thief.id, victim.id);
  }
  void ev_task_begin(detail::Worker& w) {
    ++result.engine_events;
    engine->set_task_type(w.id, w.current->shape->task_type(*w.current));
    engine->task_begin(w.id);
  }
  void ev_task_end(detail::Worker& w, bool completed) {
    ++result.engine_events;
    engine->task_end(w.id, completed);
  }

  SimOptions opt;
  const Program& program;
  ManualClock clock;
  std::unique_ptr<Engine> engine;
  detail::Plant plant;                   // the truth: time and power (plant.hpp); the controllers never read it
  detail::CounterSensor counter_sensor;  // what they may read of it (sensors.hpp)
  detail::MeterSensor meter_sensor;
  detail::CoreMeter meter;
  std::vector<detail::Worker> workers;
  std::vector<detail::SimDomain> domains;  // indexed by engine domain id
  detail::EventQueue events;
  detail::FramePool pool;
  detail::Rng rng;
  double f_ref = 0;
  std::uint64_t steal_cost_ns = 0, latency_ns = 0, dwell_ns = 0;
  std::uint64_t now = 0;
  std::int64_t queued = 0;  // frames in all deques
  std::vector<WorkerId> parked;
  bool contention_active = false;
  std::vector<double> scratch_bus, scratch_speed;
  std::vector<WorkerId> scratch_running;
  std::optional<efs::EfsController> efs;
  std::uint64_t control_ns = 0;
  // The uncore; min-energy (eco).
  detail::SimUncore uncore;
  std::optional<detail::SimMinEnergy> min_energy_control;
  double ceiling_hz = 0;       // min-energy's core ceiling
  bool type_ceilings = false;  // the closed loop set a ceiling per task type
  std::uint64_t ceiling_since = 0;
  double ceiling_hz_ns = 0;            // ∫ ceiling dt
  std::uint64_t last_progress_ns = 0;  // a control step last saw a worker run or steal
  // slack / guarded: the session's sweeper thread. It wakes when the earliest
  // known wait reaches the dwell, and sees a new wait within a dwell, so it
  // lowers each wait when it reaches the dwell: simulated as a tick at that
  // instant (sweep_period_ns 1). The guard alone: every 10 ms.
  std::uint64_t sweep_period_ns = 0;
  std::uint64_t sweep_due_ns = Engine::kNever;
  std::uint32_t sweep_gen = 0;
  bool finished = false, ran = false;
  SimResult result;
};

}  // namespace rubato::sim
