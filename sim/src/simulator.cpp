#include "rubato/sim/simulator.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "rubato/core/efs/efs_model.hpp"
#include "rubato/power/frequency/uncore_ladder.hpp"
#include "rubato/power/session/slack_setup.hpp"
#include "simulation_impl.hpp"

namespace rubato::sim {

const char* to_string(SpawnModel m) noexcept { return m == SpawnModel::cilk ? "cilk" : "omp"; }
const char* to_string(ThrottleMode m) noexcept { return m == ThrottleMode::preempt ? "preempt" : "task"; }

using detail::EventKind;
using detail::SimDomain;
using detail::to_ns;
using detail::Worker;
using detail::WorkerState;
namespace {

double fastest_hz(const std::vector<double>& hz) { return hz.empty() ? 0 : *std::max_element(hz.begin(), hz.end()); }

}  // namespace

Simulation::Impl::Impl(SimOptions o, const Program& p)
    : opt(std::move(o)),
      program(p),
      plant(opt, fastest_hz(opt.profile.frequencies_hz), UncoreLadder::from_profile(opt.profile).fastest_hz()),
      counter_sensor(opt.sensors, plant.transactions_per_reference_ns(), opt.seed),
      meter_sensor(opt.sensors, opt.seed),
      rng(opt.seed) {
  if (!program.root) throw std::invalid_argument("simulator: the program has no root task");
  if (opt.profile.frequencies_hz.empty())
    throw std::invalid_argument("simulator: profile '" + opt.profile.name + "' lists no frequencies");
  if (!(opt.steal_cost_s > 0)) throw std::invalid_argument("simulator: the steal cost must be positive");
  f_ref = fastest_hz(opt.profile.frequencies_hz);
  steal_cost_ns = std::max<std::uint64_t>(1, to_ns(opt.steal_cost_s));
  latency_ns = to_ns(opt.profile.transition_latency_s);
  dwell_ns = to_ns(opt.min_dwell_s);
  result.worker_core = place_workers(opt.profile, opt.workers, opt.placement);

  EngineOptions eo = opt.engine;
  eo.max_workers = opt.workers;
  // The simulator models DVFS latency itself (accept, then apply): the engine
  // must not add its own to a raise.
  eo.raise_latency_ns = 0;
  // The closed loop measures segment durations by task type (its sensor).
  eo.task_type_stats = eo.policy.min_energy && opt.min_energy.closed_loop;
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

// The uncore (pinned, not set or moved by min-energy) and min-energy's
// controller over the run's levels.
void Simulation::Impl::setup_min_energy() {
  const bool on = opt.engine.policy.min_energy;
  uncore = detail::SimUncore(opt.profile, opt.uncore_hz, on, clock);
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

// The plant's time law at the domain's applied frequency and the uncore's.
double Simulation::Impl::rate_of(const Worker& w, const WorkClass& wc) const noexcept {
  return w.speed / plant.stretch(wc, domains[w.domain].applied_hz, uncore.hz());
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
  result.core_energy_j = plant.core_energy_j(result.core_time);  // halted cores add nothing (Eq. 13)
  finalize_uncore();
  result.energy_j = result.core_energy_j + result.uncore_energy_j;
  result.busy_count_ns = meter.busy_count_ns();
  if (!plant.profile().active_cores_power_w.empty()) {
    const efs::PowerTable table(plant.profile().active_cores_power_w);
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
