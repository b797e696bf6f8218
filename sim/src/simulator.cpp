#include "rubato/sim/simulator.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <optional>
#include <stdexcept>

#include "core_meter.hpp"
#include "event_queue.hpp"
#include "frame_pool.hpp"
#include "rng.hpp"
#include "rubato/core/base/clock.hpp"
#include "rubato/core/counters/counter_sample.hpp"
#include "rubato/core/efs/efs_controller.hpp"
#include "rubato/core/efs/efs_model.hpp"
#include "rubato/core/min_energy/decision_event.hpp"
#include "rubato/core/model/time_model.hpp"
#include "rubato/power/energy/power_model.hpp"
#include "rubato/power/session/slack_setup.hpp"
#include "sim_min_energy.hpp"
#include "sim_uncore.hpp"
#include "work_deque.hpp"

namespace rubato::sim {

const char* to_string(SpawnModel m) noexcept { return m == SpawnModel::cilk ? "cilk" : "omp"; }
const char* to_string(ThrottleMode m) noexcept { return m == ThrottleMode::preempt ? "preempt" : "task"; }

namespace {

using detail::EventKind;

std::uint64_t to_ns(double s) { return static_cast<std::uint64_t>(std::llround(std::max(0.0, s) * 1e9)); }

// parked: out of work while every deque is empty; throttled: stopped by the efs controller.
enum class WorkerState : std::uint8_t { working, stealing, parked, throttled };

struct Worker {
  WorkerId id = 0;
  DomainId domain = 0;
  WorkerState state = WorkerState::working;
  detail::WorkDeque deque;
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

}  // namespace

struct Simulation::Impl final : TempoActuator {
  Impl(SimOptions o, const Program& p);

  // TempoActuator: the engine changed a domain's effective level.
  void domain_level_changed(DomainId d, Level, double hz, std::uint64_t now_ns) noexcept override;

  void run();
  void dispatch(Worker& w);
  bool take_local_work(Worker& w);
  void finish_frame(Worker& w, Frame& f);
  void start_segment(Worker& w, double ref_ns);
  void end_segment(Worker& w);
  void schedule_segment_end(Worker& w);
  void rerate(Worker& w);
  double rate_of(const Worker& w, const WorkClass& wc) const noexcept;
  void look_for_victims(Worker& w);
  void schedule_sweep(std::uint64_t at);
  void sweep();
  void begin_attempt(Worker& w, std::uint64_t ends_at);
  void resolve_steal(Worker& w);
  bool may_steal(const Worker& thief, const Frame& f) const noexcept;
  void park(Worker& w);
  void wake(Worker& w);
  void wake_all();
  void push_local(Worker& w, Frame* f);
  Frame* make_frame(const Step& s, Frame* parent);
  void resume(Worker& w, Frame* f);
  void request_hz(DomainId d, double hz);
  void accept(DomainId d);
  void apply(DomainId d);
  void setup_min_energy();
  CostModel guard_model(const EngineOptions& eo) const;
  void bank_transactions(Worker& w);
  void min_energy_step();
  void apply_decision(const min_energy::Decision& d);
  void bank_ceiling();
  void request_uncore(std::size_t level);
  void uncore_changed();
  void finalize_uncore();
  void update_speeds();
  void bank_counters(Worker& w);
  void control_step();
  void throttle(Worker& w);
  void unthrottle(Worker& w);
  void stop(Worker& w);
  void finalize();

  // Engine events, counted.
  void ev_push(Worker& w) {
    ++result.engine_events;
    engine->push(w.id);
  }
  void ev_pop(Worker& w) {
    ++result.engine_events;
    engine->pop(w.id);
  }
  void ev_idle(Worker& w) {
    ++result.engine_events;
    engine->idle(w.id);
  }
  void ev_steal(Worker& thief, Worker& victim) {
    ++result.engine_events;
    engine->steal(thief.id, victim.id);
  }
  void ev_task_begin(Worker& w) {
    ++result.engine_events;
    engine->task_begin(w.id);
  }
  void ev_task_end(Worker& w, bool completed) {
    ++result.engine_events;
    engine->task_end(w.id, completed);
  }

  SimOptions opt;
  const Program& program;
  ManualClock clock;
  std::unique_ptr<Engine> engine;
  PowerModel power;
  detail::CoreMeter meter;
  std::vector<Worker> workers;
  std::vector<SimDomain> domains;  // indexed by engine domain id
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
  // The uncore and the time model's reference setting; min-energy (eco).
  detail::SimUncore uncore;
  ReferenceSetting reference;
  std::optional<detail::SimMinEnergy> min_energy_control;
  double ceiling_hz = 0;  // min-energy's core ceiling
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

Simulation::Impl::Impl(SimOptions o, const Program& p)
    : opt(std::move(o)), program(p), power(opt.profile), rng(opt.seed) {
  if (!program.root) throw std::invalid_argument("simulator: the program has no root task");
  if (opt.profile.frequencies_hz.empty())
    throw std::invalid_argument("simulator: profile '" + opt.profile.name + "' lists no frequencies");
  if (!(opt.steal_cost_s > 0)) throw std::invalid_argument("simulator: the steal cost must be positive");
  f_ref = *std::max_element(opt.profile.frequencies_hz.begin(), opt.profile.frequencies_hz.end());
  steal_cost_ns = std::max<std::uint64_t>(1, to_ns(opt.steal_cost_s));
  latency_ns = to_ns(opt.profile.transition_latency_s);
  dwell_ns = to_ns(opt.min_dwell_s);
  result.worker_core = place_workers(opt.profile, opt.workers, opt.placement);

  EngineOptions eo = opt.engine;
  eo.max_workers = opt.workers;
  // The simulator models DVFS latency itself (accept, then apply): the engine
  // must not add its own to a raise.
  eo.raise_latency_ns = 0;
  if ((eo.policy.guarded || eo.policy.slack) && eo.cost.busy_w.empty()) eo.cost = guard_model(eo);
  eo.worker_domain.clear();
  for (int core : result.worker_core) eo.worker_domain.push_back(domain_of_core(opt.profile, core));
  engine = std::make_unique<Engine>(eo, clock, *this);

  // Every domain starts at the policy's fastest tempo, as a back-end sets it
  // before the program's first task.
  const double start_hz = engine->ladder().max_hz();
  workers.resize(opt.workers);
  for (std::size_t i = 0; i < opt.workers; ++i) {
    workers[i].id = static_cast<WorkerId>(i);
    workers[i].domain = eo.worker_domain[i];
    if (domains.size() <= workers[i].domain) domains.resize(workers[i].domain + 1);
    domains[workers[i].domain].workers.push_back(workers[i].id);
  }
  for (SimDomain& d : domains) d.applied_hz = d.accepted_hz = d.wanted_hz = start_hz;
  meter = detail::CoreMeter(opt.workers, engine->ladder().frequencies_hz(), start_hz);
  contention_active = opt.contention && opt.contention->active();
  sweep_period_ns = engine->policy().slack ? 1 : 10'000'000;

  if (opt.engine.policy.efs) {
    const MachineProfile& pr = opt.profile;
    if (!(pr.memory_accesses_per_s > 0) || pr.active_cores_power_w.empty())
      throw std::invalid_argument(
          "simulator: efs needs the profile's memory_accesses_per_s (µ, [EFS] Eq. 17) and "
          "active_cores_power_w (P0..Pn, Eq. 13); profile '" +
          pr.name + "' lacks them (i5-2500 has both)");
    if (!(opt.control_interval_s >= 1e-6))
      throw std::invalid_argument("simulator: the control interval must be at least 1us");
    efs::ControllerParams cp;
    cp.accesses_per_s = pr.memory_accesses_per_s;
    cp.power_w = pr.active_cores_power_w;
    cp.cores = static_cast<int>(opt.workers);
    cp.control_interval_s = opt.control_interval_s;
    cp.pooled_work = true;  // a runtime's workers share the program's tasks
    efs.emplace(std::move(cp));
    for (const Worker& w : workers) efs->add_target(w.id, 0);
    control_ns = to_ns(opt.control_interval_s);
  }
  setup_min_energy();
}

// The uncore (pinned, not set or moved by min-energy), the time model's
// reference setting, and min-energy's controller over the run's levels.
void Simulation::Impl::setup_min_energy() {
  const bool on = opt.engine.policy.min_energy;
  uncore = detail::SimUncore(opt.profile, opt.uncore_hz, on, clock);
  reference.core_hz = f_ref;
  reference.uncore_hz = uncore.ladder().fastest_hz();
  reference.memory_bandwidth_knee_hz = opt.profile.memory_bandwidth_knee_hz.value_or(0);
  if (!on) return;
  if (!(opt.control_interval_s >= 1e-6))
    throw std::invalid_argument("simulator: the control interval must be at least 1us");
  min_energy_control.emplace(opt, engine->ladder(), uncore.controlled() ? uncore.ladder() : UncoreLadder{});
  control_ns = to_ns(opt.control_interval_s);
  ceiling_hz = engine->ladder().max_hz();
}

// The guard's model: the profile's powers on the run's ladder, the work's
// sensitivities as min-energy has them before its first decision, and the
// uncore levels min-energy may set (none otherwise: b_u = 0 and no level
// decide as the β model's guard).
CostModel Simulation::Impl::guard_model(const EngineOptions& eo) const {
  const WorkSensitivity work{opt.min_energy.core_sensitivity.value_or(opt.profile.beta),
                             opt.min_energy.uncore_sensitivity.value_or(0.0)};
  std::vector<double> levels;
  if (eo.policy.min_energy && opt.uncore_hz <= 0) levels = UncoreLadder::from_profile(opt.profile).levels_hz();
  return cost_model_for(opt.profile, Engine::ladder_for(eo), work, levels, opt.uncore_hz);
}

// ---- frequency ------------------------------------------------------------------

void Simulation::Impl::domain_level_changed(DomainId d, Level, double hz, std::uint64_t) noexcept {
  if (d >= domains.size()) return;  // a domain without simulated workers
  request_hz(d, hz);
}

// The domain should run at `hz`: accepted now or after the dwell, applied
// after the transition latency.
void Simulation::Impl::request_hz(DomainId d, double hz) {
  SimDomain& dom = domains[d];
  dom.wanted_hz = hz;
  // A raise is never held for the dwell, as in the live applier (power/
  // rate_limited_applier.hpp says why); a pending lower it supersedes is dropped.
  const bool raise = hz > dom.accepted_hz;
  if (dom.accept_pending && !raise) return;  // the deferred acceptance takes the latest wish
  if (raise || now >= dom.next_accept_ns) {
    accept(d);
  } else {
    dom.accept_pending = true;
    events.push(dom.next_accept_ns, EventKind::dvfs_accept, d);
  }
}

void Simulation::Impl::accept(DomainId d) {
  SimDomain& dom = domains[d];
  dom.accept_pending = false;
  if (dom.wanted_hz == dom.accepted_hz) return;
  dom.accepted_hz = dom.wanted_hz;
  dom.next_accept_ns = now + dwell_ns;
  dom.in_flight.push_back(dom.accepted_hz);
  events.push(now + latency_ns, EventKind::dvfs_apply, d);
}

void Simulation::Impl::apply(DomainId d) {
  SimDomain& dom = domains[d];
  const double hz = dom.in_flight.front();
  dom.in_flight.pop_front();
  if (hz == dom.applied_hz) return;
  dom.applied_hz = hz;
  ++dom.applied_transitions;
  for (WorkerId w : dom.workers) {
    meter.set_frequency(w, hz, now);
    rerate(workers[w]);
  }
}

// ---- segments -------------------------------------------------------------------

// T(f, fu) / T(reference) of the one model (time_model.hpp), the core part
// in the β model's own form so that b_u = 0 gives today's rates bit for bit.
double Simulation::Impl::rate_of(const Worker& w, const WorkClass& wc) const noexcept {
  const double f = domains[w.domain].applied_hz;
  double stretch = wc.beta * f_ref / f + (1 - wc.beta);
  if (wc.uncore != 0) stretch += wc.uncore * (uncore_time_stretch(uncore.hz(), reference) - 1.0);
  return w.speed / stretch;
}

void Simulation::Impl::schedule_segment_end(Worker& w) {
  const double left_ns = w.remaining > 0 ? w.remaining / w.rate : 0;
  events.push(now + static_cast<std::uint64_t>(std::llround(left_ns)), EventKind::segment_end, w.id, ++w.gen);
}

void Simulation::Impl::start_segment(Worker& w, double ref_ns) {
  bank_counters(w);
  bank_transactions(w);
  w.in_segment = true;
  w.remaining = ref_ns;
  w.mark = now;
  w.speed = 1;
  w.rate = rate_of(w, w.current->shape->work_class());
  meter.set_busy(w.id, true, now);
  schedule_segment_end(w);
  if (contention_active) update_speeds();
}

void Simulation::Impl::end_segment(Worker& w) {
  bank_counters(w);
  bank_transactions(w);
  w.in_segment = false;
  w.remaining = 0;
  meter.set_busy(w.id, false, now);
  if (contention_active) update_speeds();
}

// Frequency or contention changed under a running segment: bank the progress
// made at the old rate and reschedule its end at the new one.
void Simulation::Impl::rerate(Worker& w) {
  if (!w.in_segment) return;
  bank_transactions(w);
  w.remaining = std::max(0.0, w.remaining - static_cast<double>(now - w.mark) * w.rate);
  w.mark = now;
  w.rate = rate_of(w, w.current->shape->work_class());
  schedule_segment_end(w);
}

void Simulation::Impl::update_speeds() {
  scratch_running.clear();
  scratch_bus.clear();
  for (const Worker& w : workers)
    if (w.in_segment) {
      scratch_running.push_back(w.id);
      scratch_bus.push_back(w.current->shape->work_class().bus);
    }
  scratch_speed.assign(scratch_running.size(), 1.0);
  opt.contention->speeds(scratch_bus, scratch_speed);
  for (std::size_t i = 0; i < scratch_running.size(); ++i) {
    Worker& w = workers[scratch_running[i]];
    const double s = std::clamp(scratch_speed[i], 1e-6, 1.0);
    if (s == w.speed) continue;
    // Bank progress (and memory traffic) at the old speed first.
    bank_counters(w);
    bank_transactions(w);
    w.remaining = std::max(0.0, w.remaining - static_cast<double>(now - w.mark) * w.rate);
    w.mark = now;
    w.speed = s;
    w.rate = rate_of(w, w.current->shape->work_class());
    schedule_segment_end(w);
  }
}

// ---- frames ---------------------------------------------------------------------

Frame* Simulation::Impl::make_frame(const Step& s, Frame* parent) {
  Frame* f = pool.make();
  f->shape = s.child;
  f->a = s.a;
  f->b = s.b;
  f->parent = parent;
  if (parent) {
    f->id = child_id(parent->id, parent->spawned++);
    f->depth = parent->depth + 1;
    ++parent->pending;
  } else {
    f->id = 1;
  }
  return f;
}

void Simulation::Impl::push_local(Worker& w, Frame* f) {
  w.deque.push_tail(f);
  ++queued;
  ev_push(w);
  if (queued == 1 && !parked.empty()) wake_all();
}

void Simulation::Impl::resume(Worker& w, Frame* f) {
  f->suspended = false;
  w.current = f;
  w.idle_reported = false;
  w.state = WorkerState::working;
  ev_task_begin(w);
}

// The worker runs its frame step by step until the frame needs simulated time
// (a work segment) or the worker has nothing left and starts stealing.
void Simulation::Impl::dispatch(Worker& w) {
  while (!finished) {
    if (!w.current) {
      if (w.throttled) return stop(w);  // a task scheduling point
      if (!take_local_work(w)) return look_for_victims(w);
      continue;
    }
    Frame& f = *w.current;
    const Step s = f.shape->next(f);
    switch (s.kind) {
      case Step::Kind::work:
        if (s.ref_ns > 0) return start_segment(w, s.ref_ns);
        break;
      case Step::Kind::spawn: {
        Frame* child = make_frame(s, &f);
        if (opt.model == SpawnModel::cilk) {
          // Work first: the continuation goes on the deque, the worker runs the child.
          ev_task_end(w, false);
          push_local(w, &f);
          w.current = child;
          ev_task_begin(w);
        } else {
          push_local(w, child);
        }
        break;
      }
      case Step::Kind::sync:
        if (f.pending == 0) break;
        f.suspended = true;
        ev_task_end(w, false);
        if (opt.model == SpawnModel::omp) w.suspended.push_back(&f);
        w.current = nullptr;
        break;
      case Step::Kind::ret:
        ev_task_end(w, true);
        w.current = nullptr;
        finish_frame(w, f);
        break;
    }
  }
}

// A frame that returns with children outstanding (traces of OpenMP tasks
// without taskwait) completes, for its parent's waits, when they have: the
// subtree is the unit (taskgroup semantics).
void Simulation::Impl::finish_frame(Worker& w, Frame& f) {
  if (f.pending > 0) {
    f.returned = true;
    return;
  }
  Frame* done = &f;
  Frame* parent = nullptr;
  for (;;) {
    parent = done->parent;
    pool.release(done);
    if (!parent) {
      finished = true;
      return;
    }
    if (--parent->pending > 0) return;
    if (!parent->returned) break;
    done = parent;
  }
  if (!parent->suspended) return;                               // still running, or its continuation is queued
  if (opt.model == SpawnModel::cilk) return resume(w, parent);  // the last child's worker resumes it
  // omp: tied to its owner, which resumes it when it is its innermost suspended frame.
  Worker& owner = workers[parent->owner];
  if (&owner != &w && owner.state == WorkerState::parked && owner.suspended.back() == parent) wake(owner);
}

bool Simulation::Impl::take_local_work(Worker& w) {
  if (!w.suspended.empty() && w.suspended.back()->pending == 0) {
    Frame* f = w.suspended.back();
    w.suspended.pop_back();
    resume(w, f);
    return true;
  }
  if (w.deque.empty()) return false;
  Frame* f = w.deque.pop_tail();
  --queued;
  ev_pop(w);
  if (f->owner == kNoWorker) f->owner = w.id;
  w.current = f;
  w.idle_reported = false;
  ev_task_begin(w);
  return true;
}

// ---- stealing -------------------------------------------------------------------

void Simulation::Impl::look_for_victims(Worker& w) {
  if (!w.idle_reported) {
    ev_idle(w);
    w.idle_reported = true;
  }
  // Out of work: it waits from now (slack lowers it after the dwell).
  ++result.engine_events;
  engine->run_end(w.id);
  if (engine->sweeps()) schedule_sweep(now + (engine->policy().slack ? engine->options().slack_dwell_ns : 0));
  w.state = WorkerState::stealing;
  if (queued == 0 || workers.size() == 1) return park(w);
  begin_attempt(w, now + steal_cost_ns);
}

// The first sweeper tick at or after `at`.
void Simulation::Impl::schedule_sweep(std::uint64_t at) {
  const std::uint64_t tick = (at + sweep_period_ns - 1) / sweep_period_ns * sweep_period_ns;
  if (tick >= sweep_due_ns) return;
  sweep_due_ns = tick;
  events.push(tick, EventKind::slack_sweep, 0, ++sweep_gen);
}

void Simulation::Impl::sweep() {
  sweep_due_ns = Engine::kNever;
  const std::uint64_t next = engine->slack_sweep(now);
  if (next != Engine::kNever) schedule_sweep(next);
}

void Simulation::Impl::begin_attempt(Worker& w, std::uint64_t ends_at) {
  w.state = WorkerState::stealing;
  const auto others = static_cast<WorkerId>(workers.size() - 1);
  WorkerId v = static_cast<WorkerId>(rng.below(others));
  w.victim = v >= w.id ? v + 1 : v;
  ++result.steal_attempts;
  events.push(ends_at, EventKind::steal_end, w.id, ++w.gen);
}

// OpenMP task scheduling constraint (tied tasks): a worker with suspended frames
// may start only descendants of the innermost one.
bool Simulation::Impl::may_steal(const Worker& thief, const Frame& f) const noexcept {
  if (opt.model == SpawnModel::cilk || thief.suspended.empty()) return true;
  const Frame* top = thief.suspended.back();
  for (const Frame* a = f.parent; a; a = a->parent) {
    if (a == top) return true;
    if (a->depth <= top->depth) return false;
  }
  return false;
}

void Simulation::Impl::resolve_steal(Worker& w) {
  if (take_local_work(w)) {  // omp: its own suspended frame became ready meanwhile
    w.state = WorkerState::working;
    return dispatch(w);
  }
  Worker& v = workers[w.victim];
  if (!v.deque.empty() && may_steal(w, *v.deque.head())) {
    Frame* f = v.deque.pop_head();
    --queued;
    ev_steal(w, v);
    if (f->owner == kNoWorker) f->owner = w.id;
    w.current = f;
    w.idle_reported = false;
    w.state = WorkerState::working;
    ev_task_begin(w);
    return dispatch(w);
  }
  ++result.failed_steal_attempts;
  if (queued == 0) return park(w);
  begin_attempt(w, now + steal_cost_ns);
}

// Every deque is empty: the worker's attempts can only fail until a push, so
// they are not simulated one by one; wake() restores the attempt in progress.
void Simulation::Impl::park(Worker& w) {
  w.state = WorkerState::parked;
  w.park_phase = now;
  ++w.gen;
  parked.push_back(w.id);
}

void Simulation::Impl::wake(Worker& w) {
  const std::uint64_t done = (now - w.park_phase) / steal_cost_ns;  // attempts completed while parked
  result.steal_attempts += done;
  result.failed_steal_attempts += done;
  begin_attempt(w, w.park_phase + (done + 1) * steal_cost_ns);
  parked.erase(std::find(parked.begin(), parked.end(), w.id));
}

void Simulation::Impl::wake_all() {
  if (workers.size() == 1) return;
  const std::vector<WorkerId> sleepers = std::move(parked);
  parked.clear();
  for (WorkerId id : sleepers) {
    Worker& w = workers[id];
    const std::uint64_t done = (now - w.park_phase) / steal_cost_ns;
    result.steal_attempts += done;
    result.failed_steal_attempts += done;
    begin_attempt(w, w.park_phase + (done + 1) * steal_cost_ns);
  }
}

// ---- efs throttling -------------------------------------------------------------

// The simulated counters: a segment at speed s with solo utilisation b keeps
// s b of the bus busy (Eq. 4), i.e. µ s b accesses per second.
void Simulation::Impl::bank_counters(Worker& w) {
  if (!efs) return;
  if (w.in_segment) {
    const std::uint64_t dt = now - w.ctr_mark;
    const double b = w.current->shape->work_class().bus;
    const double u = contention_active ? w.speed * opt.contention->solo_in_model(b) : 0.0;
    w.ctr_accesses += opt.profile.memory_accesses_per_s * u * static_cast<double>(dt) * 1e-9;
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

void Simulation::Impl::throttle(Worker& w) {
  if (w.throttled) return;
  w.throttled = true;
  if (opt.throttle == ThrottleMode::task && w.in_segment) return;  // stops at its next task scheduling point
  stop(w);
}

void Simulation::Impl::stop(Worker& w) {
  if (w.in_segment) {
    bank_counters(w);
    bank_transactions(w);
    w.remaining = std::max(0.0, w.remaining - static_cast<double>(now - w.mark) * w.rate);
    w.mark = now;
    w.in_segment = false;
    w.frozen = true;
    if (contention_active) update_speeds();
  } else if (w.state == WorkerState::parked) {
    parked.erase(std::find(parked.begin(), parked.end(), w.id));
  }
  ++w.gen;  // its segment end or steal attempt no longer happens
  w.state = WorkerState::throttled;
  meter.set_state(w.id, detail::CoreMeter::State::halted, now);
}

void Simulation::Impl::unthrottle(Worker& w) {
  if (!w.throttled) return;
  w.throttled = false;
  if (w.state != WorkerState::throttled) return;  // task mode: it had not reached a scheduling point
  w.state = WorkerState::working;
  meter.set_state(w.id, detail::CoreMeter::State::idle, now);
  if (w.frozen) {
    w.frozen = false;
    return start_segment(w, w.remaining);
  }
  dispatch(w);
}

// ---- min-energy (eco) -----------------------------------------------------------

// Work done since the last call, for the simulated memory-transaction counters.
// Called before a worker's rate changes, and at each step.
void Simulation::Impl::bank_transactions(Worker& w) {
  if (min_energy_control && w.in_segment) {
    const double reference_ns = static_cast<double>(now - w.transactions_mark) * w.rate;
    min_energy_control->add_work(reference_ns, w.current->shape->work_class());
  }
  w.transactions_mark = now;
}

// One interval of the live controller's, carried out as the live runner does.
void Simulation::Impl::min_energy_step() {
  for (Worker& w : workers) bank_transactions(w);
  ++result.min_energy_steps;
  const double now_s = static_cast<double>(now) * 1e-9;
  const double interval_s = static_cast<double>(control_ns) * 1e-9;
  if (const auto d = min_energy_control->step(now_s, interval_s, engine->activity())) apply_decision(*d);
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
  result.uncore_energy_j = 0;
  double hz_ns = 0;
  for (const auto& [hz, ns] : result.uncore_time) {
    result.uncore_energy_j += power.uncore_w(hz) * static_cast<double>(ns) * 1e-9;
    hz_ns += uncore.effective_hz(hz) * static_cast<double>(ns);
  }
  const auto span = static_cast<double>(result.makespan_ns);
  result.uncore_mean_hz = span > 0 ? hz_ns / span : uncore.effective_hz(uncore.hz());
  if (min_energy_control) {
    bank_ceiling();
    result.core_ceiling_mean_hz = span > 0 ? ceiling_hz_ns / span : ceiling_hz;
  }
  for (const auto& core : result.core_time)
    for (const CoreTime& t : core) result.busy_core_cycles += t.hz * static_cast<double>(t.busy_ns) * 1e-9;
}

// ---- the run --------------------------------------------------------------------

void Simulation::Impl::run() {
  for (Worker& w : workers) {
    ++result.engine_events;
    engine->worker_begin(w.id);
  }
  Step root;
  root.child = program.root;
  root.a = program.root_a;
  root.b = program.root_b;
  Frame* f = make_frame(root, nullptr);
  f->owner = 0;
  workers[0].current = f;
  ev_task_begin(workers[0]);
  for (Worker& w : workers) dispatch(w);
  if (efs) events.push(control_ns, EventKind::control, 0);
  if (min_energy_control) events.push(control_ns, EventKind::min_energy_step, 0);

  while (!finished) {
    if (events.empty()) throw std::logic_error("simulator: no pending event before the program finished");
    const detail::Event e = events.pop();
    ++result.scheduler_events;
    now = e.t;
    clock.set(now);
    switch (e.kind) {
      case EventKind::segment_end: {
        Worker& w = workers[e.target];
        if (e.gen != w.gen) break;
        end_segment(w);
        dispatch(w);
        break;
      }
      case EventKind::steal_end: {
        Worker& w = workers[e.target];
        if (e.gen != w.gen) break;
        resolve_steal(w);
        break;
      }
      case EventKind::dvfs_accept: accept(e.target); break;
      case EventKind::dvfs_apply: apply(e.target); break;
      case EventKind::control: control_step(); break;
      case EventKind::slack_sweep:
        if (e.gen == sweep_gen) sweep();
        break;
      case EventKind::min_energy_step: min_energy_step(); break;
    }
  }
  finalize();
}

void Simulation::Impl::finalize() {
  result.makespan_ns = now;
  for (Worker& w : workers) {
    ++result.engine_events;
    engine->worker_end(w.id);
  }
  meter.close(now);
  result.core_time = meter.times();
  result.core_energy_j = 0;  // halted cores add nothing (Eq. 13)
  for (const auto& core : result.core_time)
    for (const CoreTime& t : core)
      result.core_energy_j += power.busy_w(t.hz) * static_cast<double>(t.busy_ns) * 1e-9 +
                              power.idle_w(t.hz) * static_cast<double>(t.idle_ns) * 1e-9;
  finalize_uncore();
  result.energy_j = result.core_energy_j + result.uncore_energy_j;
  result.busy_count_ns = meter.busy_count_ns();
  if (!opt.profile.active_cores_power_w.empty()) {
    const efs::PowerTable table(opt.profile.active_cores_power_w);
    result.eq13_energy_j = 0;
    for (std::size_t n = 0; n < result.busy_count_ns.size(); ++n) {
      if (!result.busy_count_ns[n]) continue;
      const auto w = table.power_w(static_cast<int>(n));
      if (!w) {  // more cores busy than the table describes
        result.eq13_energy_j = -1;
        break;
      }
      result.eq13_energy_j += *w * static_cast<double>(result.busy_count_ns[n]) * 1e-9;
    }
  }
  result.applied_transitions.clear();
  for (const SimDomain& d : domains) result.applied_transitions.push_back(d.applied_transitions);
  result.tasks = pool.made();
  result.peak_live_frames = pool.peak();
}

// ---- public ---------------------------------------------------------------------

Simulation::Simulation(SimOptions options, const Program& program)
    : impl_(std::make_unique<Impl>(std::move(options), program)) {}
Simulation::~Simulation() = default;

const SimResult& Simulation::run() {
  if (!impl_->ran) {
    impl_->ran = true;
    impl_->run();
  }
  return impl_->result;
}

bool Simulation::finished() const noexcept { return impl_->ran && impl_->finished; }
const SimResult& Simulation::result() const noexcept { return impl_->result; }
const Engine& Simulation::engine() const noexcept { return *impl_->engine; }
const SimOptions& Simulation::options() const noexcept { return impl_->opt; }

}  // namespace rubato::sim
