#include "rubato/core/tempo/engine.hpp"

#include <algorithm>
#include <stdexcept>

namespace rubato {
namespace {

using engine_detail::bump;
using engine_detail::get;
using engine_detail::kNoSegment;
using engine_detail::kNotWaiting;
using engine_detail::kSlowedBit;

// Domain ids index a table; bound them so a bad topology cannot exhaust memory.
constexpr DomainId kMaxDomainId = 1u << 16;

}  // namespace

// baseline and fixed run at one frequency; with slack they also need the
// ladder's slowest, where waiting workers go. min-energy chooses the working
// workers' level among the whole ladder (baseline) or down to its slowest (fixed).
TempoLadder Engine::ladder_for(const EngineOptions& o) {
  const double slowest = o.ladder.frequencies_hz().back();
  const bool slowest_too = o.policy.slack || o.policy.min_energy;
  switch (o.policy.tempo) {
    case TempoPolicy::baseline:
      if (o.policy.min_energy) return o.ladder;
      return o.policy.slack ? TempoLadder({o.ladder.max_hz(), slowest}) : TempoLadder({o.ladder.max_hz()});
    case TempoPolicy::fixed:
      return slowest_too && slowest < o.policy.fixed_hz ? TempoLadder({o.policy.fixed_hz, slowest})
                                                        : TempoLadder({o.policy.fixed_hz});
    default: return o.ladder;
  }
}

Engine::Engine(EngineOptions options, const Clock& clock, TempoActuator& actuator)
    : options_(std::move(options)),
      ladder_(ladder_for(options_)),
      clock_(clock),
      steady_clock_(dynamic_cast<const SteadyClock*>(&clock)),
      actuator_(actuator),
      workload_(options_.policy.workload()),
      k_(options_.fixed_thresholds.empty() ? options_.thresholds : static_cast<int>(options_.fixed_thresholds.size())),
      max_workers_(options_.max_workers),
      slots_(new Slot[options_.max_workers == 0 ? 1 : options_.max_workers]),
      list_(options_.max_workers == 0 ? 1 : options_.max_workers) {
  for (Level l = 0; l < ladder_.levels() && l < kMaxLevels; ++l)
    stretched_at_level_[static_cast<std::size_t>(l)] = actuator_.stretches_at(ladder_.hz(l), ladder_.max_hz());
  for (Level l = 0; l < ladder_.levels() && l < kMaxLevels; ++l)
    stretches_any_ = stretches_any_ || stretched_at_level_[static_cast<std::size_t>(l)];
  if (options_.policy.guarded) {
    if (options_.cost.busy_w.size() != static_cast<std::size_t>(ladder_.levels()))
      throw std::invalid_argument("engine: the cost guard needs the busy power of each of the " +
                                  std::to_string(ladder_.levels()) + " ladder levels");
    guard_ = CostGuard(ladder_, options_.cost);
  }
  if (options_.policy.slack && !options_.cost.idle_w.empty()) slack_cost_ = SlackCost(ladder_, options_.cost);
  if (guard_.enabled() || slack_cost_.enabled())
    uncore_level_.store(options_.cost.initial_uncore_level, std::memory_order_relaxed);
  if (options_.policy.slack && options_.slack_dwell_ns == 0)
    throw std::invalid_argument("engine: the slack dwell must be positive");
  if (max_workers_ == 0) throw std::invalid_argument("engine: max_workers must be positive");
  if (guard_.enabled() || slack_cost_.enabled()) swept_waited_ns_.reset(new std::uint64_t[max_workers_]());
  if (k_ < 1 || k_ > kMaxThresholds)
    throw std::invalid_argument("engine: thresholds K must be within 1.." + std::to_string(kMaxThresholds));
  if (options_.profile_window == 0) throw std::invalid_argument("engine: profile window must be positive");

  std::array<double, kMaxThresholds> initial{};
  if (options_.fixed_thresholds.empty()) {
    thresholds_from_mean(options_.initial_mean_depth, k_, initial);
  } else {
    std::copy(options_.fixed_thresholds.begin(), options_.fixed_thresholds.end(), initial.begin());
    std::sort(initial.begin(), initial.begin() + k_);
  }
  DomainId domain_count = 0;
  domain_of_.resize(max_workers_);
  for (std::size_t w = 0; w < max_workers_; ++w) {
    Slot& s = slots_[w];
    s.sampler = DepthSampler(options_.profile_window);
    for (int i = 0; i < kMaxThresholds; ++i)
      s.thld[static_cast<std::size_t>(i)].store(initial[static_cast<std::size_t>(i)]);
    const DomainId d = w < options_.worker_domain.size() ? options_.worker_domain[w] : static_cast<DomainId>(w);
    if (d >= kMaxDomainId) throw std::invalid_argument("engine: clock domain id out of range");
    domain_of_[w] = d;
    domain_count = std::max<DomainId>(domain_count, d + 1);
  }
  domains_.reserve(domain_count);
  for (DomainId d = 0; d < domain_count; ++d) domains_.push_back(std::make_unique<Domain>());
  for (std::size_t w = 0; w < max_workers_; ++w) {
    domains_[domain_of_[w]]->workers.push_back(static_cast<WorkerId>(w));
    slots_[w].domain = domains_[domain_of_[w]].get();
  }
  if (options_.task_type_stats) {
    type_tables_.reset(new TaskTypeTable[max_workers_]);
    type_ceiling_.reset(new std::atomic<Level>[kMaxTaskTypes]);
    for (TaskType t = 0; t < kMaxTaskTypes; ++t) type_ceiling_[t].store(0, std::memory_order_relaxed);
  }
}

Engine::~Engine() = default;

int Engine::band_now(const Slot& s) const noexcept {
  std::array<double, kMaxThresholds> thld{};
  for (int i = 0; i < k_; ++i)
    thld[static_cast<std::size_t>(i)] = s.thld[static_cast<std::size_t>(i)].load(std::memory_order_relaxed);
  return band_of(static_cast<double>(depth_of(s)), thld, k_);
}

// ---- events ------------------------------------------------------------------

void Engine::worker_begin(WorkerId w) noexcept {
  if (!valid(w)) return drop();
  Slot& s = slot(w);
  const std::uint64_t now = clock_.now_ns();
  if (!s.seen.exchange(true, std::memory_order_relaxed)) {
    s.first_seen_ns.store(now, std::memory_order_relaxed);
    seen_workers_.fetch_add(1, std::memory_order_relaxed);
    std::size_t end = seen_end_.load(std::memory_order_relaxed);
    while (end < w + 1 && !seen_end_.compare_exchange_weak(end, w + 1, std::memory_order_acq_rel)) {
    }
  }
  s.last_seen_ns.store(now, std::memory_order_relaxed);
  // The first worker of a domain makes the back-end apply the starting tempo
  // (every worker starts at the fastest level, [HERMES] §3.2).
  publish_domain(domain_of_[w]);
}

void Engine::worker_end(WorkerId w) noexcept {
  if (!valid(w)) return drop();
  slot(w).last_seen_ns.store(clock_.now_ns(), std::memory_order_relaxed);
}

// Fig. 5 PUSH: reaching the next threshold up raises the tempo one level.
void Engine::push_workload(WorkerId w, Slot& s, std::int64_t depth) noexcept {
  int band = s.band.load(std::memory_order_relaxed);
  if (band < k_ &&
      reaches_threshold(static_cast<double>(depth),
                        s.thld[static_cast<std::size_t>(band)].load(std::memory_order_relaxed)) &&
      s.band.compare_exchange_strong(band, band + 1, std::memory_order_relaxed))
    raise(w);
}

bool Engine::workload_may_slow(WorkerId w) const noexcept {
  // Fig. 5 POP/STEAL `w.prev != null`: the head of the immediacy list is never
  // slowed by workload sensitivity (hermes only; workload alone has no list).
  return !options_.policy.workpath() || list_.has_predecessor(w);
}

// Fig. 5 POP: below the current threshold, one level slower.
void Engine::pop_workload(WorkerId w, Slot& s) noexcept { band_down(w, s, depth_of(s)); }

// Fig. 5 POP / STEAL: a deque that fell below the threshold it had reached
// leaves that band, and its worker slows one level unless it heads the
// immediacy list. The band follows the deque of a head too (Fig. 5 lowers w.S
// only with the tempo): a head whose deque drained and fills again is raised
// by its pushes ([HERMES] §3.2) instead of keeping a band it no longer holds,
// under which no push could raise it (docs/design.md "The engine").
void Engine::band_down(WorkerId w, Slot& s, std::int64_t depth) noexcept {
  int band = s.band.load(std::memory_order_relaxed);
  if (band > 0 &&
      !reaches_threshold(static_cast<double>(depth),
                         s.thld[static_cast<std::size_t>(band - 1)].load(std::memory_order_relaxed)) &&
      s.band.compare_exchange_strong(band, band - 1, std::memory_order_relaxed) && workload_may_slow(w))
    lower(w);
}

void Engine::steal(WorkerId thief, WorkerId victim) noexcept {
  if (!valid(thief) || !valid(victim) || thief == victim) return drop();
  Slot& t = slot(thief);
  Slot& v = slot(victim);
  bump(t.steals);
  v.stolen_from.fetch_add(1, std::memory_order_relaxed);
  const PolicySpec& p = options_.policy;
  if (!p.workpath() && !p.workload()) return;

  std::lock_guard<SpinLock> guard(list_lock_);
  if (p.workpath()) {
    // A thief has, by definition, run out of its own work: if the front-end did
    // not report it idle first, end its previous relationship now.
    leave_immediacy_list(thief);
    const Level from = level(thief);
    if (p.guarded) keep_victim_precedence(victim, from);
    // Fig. 5 line 20: thief procrastination, DOWN(w, v) (where the guard lets it).
    set_level(thief, guarded_target(thief, t, from, ladder_.down_from(from, level(victim))));
    // Lines 21-26: the thief follows the victim, ahead of earlier thieves.
    list_.insert_after(victim, thief);
  } else {
    // Workload alone ([HERMES] §3.2, Fig. 4(b)): a thief with an empty deque is
    // below the first threshold and runs at the slowest tempo.
    set_level(thief, guarded_target(thief, t, level(thief), ladder_.slowest()));
  }
  if (p.workload()) {
    t.band.store(band_now(t), std::memory_order_relaxed);
    // Fig. 5 STEAL: the victim's deque shrank; below its current threshold it
    // slows one level (unless it heads the immediacy list).
    band_down(victim, v, depth_of(v));
  }
}

// guarded: [HERMES] §3.1 wants every thief slower than its victim. DOWN(w, v)
// gets there only by slowing the thief, and not at all when the victim is at
// f_N (§3.4). A victim slower than its thief — typically a worker slowed as a
// thief whose work then reached it without a steal (an untied task resumed
// there), which no relay raises — holds the work its thieves feed on; the
// guard does not keep that slowing: the victim is raised to its thief's level
// first, and thief procrastination then puts the thief one below it where the
// guard lets it. List lock held.
void Engine::keep_victim_precedence(WorkerId victim, Level thief_level) noexcept {
  if (level(victim) > thief_level) set_level(victim, thief_level);
}

void Engine::idle(WorkerId w) noexcept {
  if (!valid(w)) return drop();
  bump(slot(w).idles);
  if (!options_.policy.workpath()) return;
  // Tempo of idle workers is left alone ([HERMES] §3.4); only the relay acts.
  std::lock_guard<SpinLock> guard(list_lock_);
  leave_immediacy_list(w);
}

void Engine::leave_immediacy_list(WorkerId w) noexcept {
  if (!list_.linked(w)) return;
  // Fig. 5 lines 6-10: immediacy relay, transitive along the list.
  for (WorkerId x = list_.next(w); x != kNoWorker; x = list_.next(x)) raise(x);
  list_.remove(w);
}

void Engine::sample_depth(Slot& s, std::uint64_t now) noexcept {
  s.next_sample_ns = now + options_.sample_interval_ns;
  const std::int64_t depth = std::max<std::int64_t>(0, depth_of(s));
  bump(s.depth_sample_sum, static_cast<std::uint64_t>(depth));
  bump(s.depth_samples);
  double mean = 0;
  if (s.sampler.add(static_cast<std::uint64_t>(depth), mean) && options_.policy.workload() &&
      options_.fixed_thresholds.empty()) {
    std::array<double, kMaxThresholds> thld{};
    thresholds_from_mean(mean, k_, thld);
    for (int i = 0; i < k_; ++i)
      s.thld[static_cast<std::size_t>(i)].store(thld[static_cast<std::size_t>(i)], std::memory_order_relaxed);
  }
}

// A relay or a thief may have changed the domain's level from another thread
// mid-segment: the part before the last change ran at the level before it.
// (Several changes within one segment: all but the last are approximated.)
bool Engine::account_split_segment(WorkerId w, Slot& s, std::uint64_t start, std::uint64_t changed, std::uint64_t now,
                                   Level lv) noexcept {
  const bool before = account_segment(w, s, changed - start, s.domain->level_before.load(std::memory_order_relaxed));
  const bool after = account_segment(w, s, now - changed, lv);
  return before || after;
}

// A chained run's clock read (see segment_end): its time so far is accounted
// and the run goes on from the worker's free time. Reads are spaced by chained
// segment ends, adapted so that they come about one depth-sample interval
// apart: every end for long tasks, at most every kMaxChainedReadEvery for
// fine-grained ones (a run then holds at most that many segments).
void Engine::measure_run(WorkerId w, Slot& s) noexcept {
  constexpr std::uint32_t kMaxChainedReadEvery = 64;
  s.chained_ends_left = s.chained_read_every;
  const std::uint64_t start = s.run_start_ns;
  if (start == kNoSegment) return;  // the run was ended already: nothing to measure
  const std::uint64_t now = now_ns();
  const std::uint64_t free = account_run(w, s, start, now);
  s.run_start_ns = free;
  const std::uint64_t elapsed = now > start ? now - start : 0;
  if (elapsed < options_.sample_interval_ns / 2)
    s.chained_read_every = std::min(s.chained_read_every * 2, kMaxChainedReadEvery);
  else if (elapsed > options_.sample_interval_ns)
    s.chained_read_every = std::max<std::uint32_t>(s.chained_read_every / 2, 1);
  s.chained_ends_left = s.chained_read_every;
  if (free >= s.next_sample_ns) sample_depth(s, free);
}

// A segment's duration for its type at the level it ran at; one that spans a
// level change ran at two and tells neither, and is left out.
void Engine::record_type(Slot& s, std::uint64_t start, std::uint64_t changed, std::uint64_t now,
                         std::uint64_t end) noexcept {
  const Domain& dom = *s.domain;
  Level lv = dom.level.load(std::memory_order_relaxed);
  if (changed > start) {
    if (changed < now) return;
    lv = dom.level_before.load(std::memory_order_relaxed);
  }
  type_tables_[id_of(s)].record(s.task_type.load(std::memory_order_relaxed), lv, end - start);
}

bool Engine::emulate_segment(WorkerId w, std::uint64_t duration_ns, Level lv) noexcept {
  return actuator_.segment_end(w, duration_ns, ladder_.hz(lv), ladder_.max_hz());
}

// ---- tempo ---------------------------------------------------------------------

void Engine::set_level(WorkerId w, Level target) noexcept {
  Slot& s = slot(w);
  if (s.level.exchange(target, std::memory_order_relaxed) == target) return;
  s.level_changes.fetch_add(1, std::memory_order_relaxed);
  publish_domain(domain_of_[w]);
}

void Engine::raise(WorkerId w) noexcept {
  Slot& s = slot(w);
  Level cur = s.level.load(std::memory_order_relaxed);
  while (cur != ladder_.up(cur)) {
    if (s.level.compare_exchange_weak(cur, ladder_.up(cur), std::memory_order_relaxed)) {
      s.level_changes.fetch_add(1, std::memory_order_relaxed);
      publish_domain(domain_of_[w]);
      return;
    }
  }
}

void Engine::lower(WorkerId w) noexcept {
  Slot& s = slot(w);
  Level cur = s.level.load(std::memory_order_relaxed);
  while (cur != ladder_.down(cur)) {
    const Level target = guarded_target(w, s, cur, ladder_.down(cur));
    if (target == cur) return;
    if (s.level.compare_exchange_weak(cur, target, std::memory_order_relaxed)) {
      s.level_changes.fetch_add(1, std::memory_order_relaxed);
      publish_domain(domain_of_[w]);
      return;
    }
  }
}

// guarded: a slowing decision of the tempo policy for a working worker, as
// the cost guard lets it through. The uncore share is over the workers
// active on average between the last two sweeps (every worker seen, before
// the first), the uncore at its level now, the work's sensitivities as last
// measured. The average, not the count at the sweep: the run's extra time is
// the lost work over the workers that absorb it, W / T of the run (the cost
// guard's derivation), and a sweep comes when a wait reaches the dwell, not
// at a time independent of the workers' activity.
Level Engine::guarded_target(WorkerId, Slot& s, Level from, Level to) noexcept {
  if (!guard_.enabled() || to <= from) return to;
  const double swept = mean_active_.load(std::memory_order_relaxed);
  GuardContext context;
  context.active = swept > 0 ? swept : seen_workers_.load(std::memory_order_relaxed);
  context.uncore_level = uncore_level_.load(std::memory_order_relaxed);
  context.work = work_sensitivity();
  context.critical = on_critical_path(s);
  const Level admitted = guard_.admit(from, to, context);
  // Not only the owner's counter: a thief's steal can hold its victim's slowing.
  if (admitted != to) s.guard_holds.fetch_add(1, std::memory_order_relaxed);
  return admitted;
}

// guarded: the program waits for this worker when, at the last sweep, some
// other worker waited and either no other worker ran, or no other held
// queued tasks while this one holds some (the only work left to run). The
// sweep is at most a dwell (10 ms for the guard alone) old. No sweep yet:
// nobody waits.
bool Engine::on_critical_path(const Slot& s) const noexcept {
  const std::uint8_t self = s.swept.load(std::memory_order_relaxed);
  const int waiting_others =
      waiting_workers_.load(std::memory_order_relaxed) - ((self & engine_detail::kSweptWorking) ? 0 : 1);
  if (waiting_others <= 0 || !s.seen.load(std::memory_order_relaxed)) return false;
  const int working_others =
      active_workers_.load(std::memory_order_relaxed) - ((self & engine_detail::kSweptWorking) ? 1 : 0);
  if (working_others <= 0) return true;
  const int queued_others =
      queued_workers_.load(std::memory_order_relaxed) - ((self & engine_detail::kSweptQueued) ? 1 : 0);
  return queued_others <= 0 && depth_of(s) > 0;
}

// slack: a lowered waiting worker runs at the slowest level whatever its
// tempo policy asked for; otherwise it runs at that policy's level, or
// min-energy's ceiling where that is slower.
Level Engine::effective_level(const Slot& s) const noexcept {
  if (s.wait_word.load(std::memory_order_relaxed) & kSlowedBit) return ladder_.slowest();
  return std::max(s.level.load(std::memory_order_relaxed), s.ceiling.load(std::memory_order_relaxed));
}

// The owner's wait ends (work, or serial code): its time is counted and, if
// slack lowered the worker, the raise is requested at once — not held for the
// dwell — and lands raise_latency_ns later (work until then runs slowed).
void Engine::end_wait(Slot& s, std::uint64_t now) noexcept {
  const std::uint64_t word = s.wait_word.exchange(kNotWaiting, std::memory_order_acq_rel);
  if (word == kNotWaiting) return;
  const std::uint64_t since = word & kNotWaiting;
  bump(s.wait_ns, now > since ? now - since : 0);
  if (!(word & kSlowedBit)) return;
  const std::uint64_t slowed_at = s.slowed_at_ns.load(std::memory_order_relaxed);
  bump(s.wait_slowed_ns, now > slowed_at ? now - slowed_at : 0);
  bump(s.slowed_wakeups);
  bump(s.raise_delay_ns, options_.raise_latency_ns);
  const WorkerId w = id_of(s);
  s.level_changes.fetch_add(1, std::memory_order_relaxed);
  publish_domain(domain_of_[w], options_.raise_latency_ns);
  actuator_.raise_now(domain_of_[w]);
}

std::uint64_t Engine::slack_sweep(std::uint64_t now) noexcept {
  std::uint64_t next = kNever;
  int active = 0, waiting = 0, queued = 0;
  std::size_t runner = 0;                    // the last working worker seen
  std::uint64_t active_ns = 0, since = now;  // guarded: active time since the last sweep, and its start
  const std::size_t end = std::min<std::size_t>(max_workers_, seen_end_.load(std::memory_order_acquire));
  for (std::size_t i = 0; i < end; ++i) {
    Slot& s = slots_[i];
    if (!s.seen.load(std::memory_order_relaxed)) continue;
    std::uint64_t word = s.wait_word.load(std::memory_order_acquire);
    if (swept_waited_ns_) {
      active_ns += active_since_last_sweep(i, word, now);
      since = std::min(since, std::max(last_sweep_ns_, s.first_seen_ns.load(std::memory_order_relaxed)));
    }
    const bool holds_tasks = depth_of(s) > 0;
    queued += holds_tasks ? 1 : 0;
    const auto seen_as = static_cast<std::uint8_t>((word == kNotWaiting ? engine_detail::kSweptWorking : 0) |
                                                   (holds_tasks ? engine_detail::kSweptQueued : 0));
    if (s.swept.load(std::memory_order_relaxed) != seen_as) s.swept.store(seen_as, std::memory_order_relaxed);
    if (word == kNotWaiting) {
      ++active;
      runner = i;
      continue;
    }
    ++waiting;
    if (!options_.policy.slack || (word & kSlowedBit)) continue;
    const std::uint64_t due = slack_due(s, word);
    if (due == kNever) continue;
    if (now < due) {
      next = std::min(next, due);
      continue;
    }
    // The owner may end its wait meanwhile: the bit is set only on the wait it
    // was read from, and the owner's exchange then sees it and raises.
    s.slowed_at_ns.store(now, std::memory_order_relaxed);
    if (s.wait_word.compare_exchange_strong(word, word | kSlowedBit, std::memory_order_acq_rel)) {
      s.level_changes.fetch_add(1, std::memory_order_relaxed);
      publish_domain(domain_of_[i]);
    }
  }
  active_workers_.store(std::max(active, 1), std::memory_order_relaxed);
  waiting_workers_.store(waiting, std::memory_order_relaxed);
  queued_workers_.store(queued, std::memory_order_relaxed);
  if (swept_waited_ns_) note_mean_active(active_ns, since, now, active);
  raise_critical_runner(runner, active, waiting);
  return next;
}

// slack: a wait that began at `began` is lowered at the dwell, or later where
// the raise at its wake-up would cost more than the lowered wait has saved by
// then (the break-even rule, rubato/core/tempo/slack_cost.hpp); kNever where
// lowering it saves nothing.
std::uint64_t Engine::slack_due(const Slot& s, std::uint64_t began) const noexcept {
  std::uint64_t after = options_.slack_dwell_ns;
  if (slack_cost_.enabled()) {
    SlackContext context;
    context.workers = seen_workers_.load(std::memory_order_relaxed);
    // The woken worker and those active beside it (on average between the
    // last two sweeps, while it waited); before any sweep, none known.
    const double others = mean_active_.load(std::memory_order_relaxed);
    context.sharing = others > 0 ? others + 1 : 1;
    context.uncore_level = uncore_level_.load(std::memory_order_relaxed);
    context.work = work_sensitivity();
    const double pays_after_ns = slack_cost_.lower_after_s(effective_level(s), context) * 1e9;
    if (!(pays_after_ns < 1e18)) return kNever;  // nothing to save (or beyond any run)
    after = std::max(after, static_cast<std::uint64_t>(pays_after_ns));
  }
  return began + after;
}

// guarded: worker i's active time since the last sweep: the time it was seen
// in that window less what it waited there, its closed waits and the open one
// against the sweeper's record of both at the last sweep. A wait that ends
// while the sweep reads (the owner clears its word, then adds to wait_ns) may
// be counted in the wrong window; the record never goes back, so the error
// moves to the next windows and the run's waited time is counted once.
std::uint64_t Engine::active_since_last_sweep(std::size_t i, std::uint64_t word, std::uint64_t now) noexcept {
  const Slot& s = slots_[i];
  const std::uint64_t from = std::max(last_sweep_ns_, s.first_seen_ns.load(std::memory_order_relaxed));
  const std::uint64_t began = word & kNotWaiting;
  const std::uint64_t open = word == kNotWaiting || now <= began ? 0 : now - began;
  const std::uint64_t waited = s.wait_ns.load(std::memory_order_relaxed) + open;
  std::uint64_t& recorded = swept_waited_ns_[i];
  const std::uint64_t waited_here = waited > recorded ? waited - recorded : 0;
  recorded = std::max(recorded, waited);
  const std::uint64_t seen_here = now > from ? now - from : 0;
  return seen_here > waited_here ? seen_here - waited_here : 0;
}

// guarded: the mean number of active workers over [since, now]; where no time
// has passed since the last sweep, the count now.
void Engine::note_mean_active(std::uint64_t active_ns, std::uint64_t since, std::uint64_t now,
                              int active_now) noexcept {
  const double mean =
      now > since ? static_cast<double>(active_ns) / static_cast<double>(now - since) : static_cast<double>(active_now);
  mean_active_.store(std::max(mean, 1.0), std::memory_order_relaxed);
  last_sweep_ns_ = std::max(last_sweep_ns_, now);
}

// guarded: a working worker that its tempo policy slowed, and that every
// other worker now waits for, runs on the program's critical path: its
// slowing saves nothing any more (cost_guard.hpp), so it is raised to the
// fastest level (under min-energy's ceiling). The relay of [HERMES] §3.1
// would raise it only when its predecessor goes idle.
void Engine::raise_critical_runner(std::size_t runner, int active, int waiting) noexcept {
  if (!guard_.enabled() || active != 1 || waiting == 0) return;
  Slot& s = slots_[runner];
  if (s.level.load(std::memory_order_relaxed) == ladder_.fastest()) return;
  s.critical_raises.fetch_add(1, std::memory_order_relaxed);
  set_level(static_cast<WorkerId>(runner), ladder_.fastest());
}

// A domain runs at the fastest level any of its workers requests.
void Engine::publish_domain(DomainId d, std::uint64_t lands_after_ns) noexcept {
  Domain& dom = *domains_[d];
  const bool first = !dom.published.exchange(true, std::memory_order_relaxed);
  // slack, the guard's sweep and min-energy's ceiling publish from another
  // thread than the owner's: one domain's publishes are then serialised, so
  // the last one sees both threads' changes.
  const PolicySpec& p = options_.policy;
  if (dom.workers.size() == 1 && !p.slack && !p.guarded && !p.min_energy) {
    const Level lv = slot(dom.workers.front()).level.load(std::memory_order_relaxed);
    const Level old = dom.level.exchange(lv, std::memory_order_relaxed);
    if (old == lv && !first) return;
    const std::uint64_t now = clock_.now_ns();
    if (old != lv) {
      dom.transitions.fetch_add(1, std::memory_order_relaxed);
      note_change(dom, old, now);
    }
    actuator_.domain_level_changed(d, lv, ladder_.hz(lv), now);
    return;
  }
  std::lock_guard<SpinLock> guard(dom.lock);
  Level best = ladder_.slowest();
  Level worst = ladder_.fastest();
  bool any = false;
  for (WorkerId m : dom.workers) {
    if (!slot(m).seen.load(std::memory_order_relaxed)) continue;
    const Level lv = effective_level(slot(m));
    best = std::min(best, lv);
    worst = std::max(worst, lv);
    any = true;
  }
  if (!any) best = ladder_.fastest();
  const Level old = dom.level.exchange(best, std::memory_order_relaxed);
  if (old == best && !first) return;
  const std::uint64_t now = clock_.now_ns();
  if (old != best) {
    dom.transitions.fetch_add(1, std::memory_order_relaxed);
    if (worst != best) dom.conflicts.fetch_add(1, std::memory_order_relaxed);
    note_change(dom, old, best < old ? now + lands_after_ns : now);
  }
  actuator_.domain_level_changed(d, best, ladder_.hz(best), now);
}

void Engine::note_change(Domain& dom, Level before, std::uint64_t when) noexcept {
  dom.level_before.store(before, std::memory_order_relaxed);
  dom.changed_ns.store(when, std::memory_order_release);
}

// ---- min-energy -----------------------------------------------------------------

void Engine::set_core_ceiling(Level ceiling) noexcept {
  const Level c = std::clamp(ceiling, ladder_.fastest(), ladder_.slowest());
  bool changed = false;
  for (std::size_t w = 0; w < max_workers_; ++w)
    changed = slots_[w].ceiling.exchange(c, std::memory_order_relaxed) != c || changed;
  if (!changed) return;
  for (std::size_t d = 0; d < domains_.size(); ++d)
    for (WorkerId m : domains_[d]->workers)
      if (slot(m).seen.load(std::memory_order_relaxed)) {
        publish_domain(static_cast<DomainId>(d));
        break;
      }
}

// The owner, at a segment start: its type's ceiling, published where it moved.
void Engine::apply_type_ceiling(Slot& s, TaskType type) noexcept {
  if (!type_ceiling_) return;
  const Level c = type_ceiling_[type].load(std::memory_order_relaxed);
  if (s.ceiling.exchange(c, std::memory_order_relaxed) != c) publish_domain(domain_of_[id_of(s)]);
}

void Engine::set_type_ceilings(const std::vector<Level>& per_type, Level other) noexcept {
  if (!type_ceiling_) return set_core_ceiling(other);
  auto clamp = [&](Level l) { return std::clamp(l, ladder_.fastest(), ladder_.slowest()); };
  for (TaskType t = 0; t < kMaxTaskTypes; ++t)
    type_ceiling_[t].store(clamp(t < per_type.size() ? per_type[t] : other), std::memory_order_relaxed);
  // Each seen worker now at its running type's (a racy read of the owner's
  // type: at worst the owner corrects it at its next segment start).
  for (std::size_t w = 0; w < max_workers_; ++w) {
    Slot& s = slots_[w];
    s.type_ceilings.store(true, std::memory_order_relaxed);
    if (!s.seen.load(std::memory_order_relaxed)) continue;
    const Level c = type_ceiling_[s.task_type.load(std::memory_order_relaxed)].load(std::memory_order_relaxed);
    if (s.ceiling.exchange(c, std::memory_order_relaxed) != c) publish_domain(domain_of_[w]);
  }
}

void Engine::clear_type_ceilings(Level ceiling) noexcept {
  for (std::size_t w = 0; w < max_workers_; ++w) slots_[w].type_ceilings.store(false, std::memory_order_relaxed);
  // The slots hold their types' ceilings: all written anew, every domain published.
  const Level c = std::clamp(ceiling, ladder_.fastest(), ladder_.slowest());
  for (std::size_t w = 0; w < max_workers_; ++w) slots_[w].ceiling.store(c, std::memory_order_relaxed);
  for (std::size_t d = 0; d < domains_.size(); ++d)
    for (WorkerId m : domains_[d]->workers)
      if (slot(m).seen.load(std::memory_order_relaxed)) {
        publish_domain(static_cast<DomainId>(d));
        break;
      }
}

std::vector<TaskTypeCell> Engine::task_type_stats() const {
  std::vector<TaskTypeCell> cells;
  if (!type_tables_) return cells;
  const std::size_t end = std::min<std::size_t>(max_workers_, seen_end_.load(std::memory_order_acquire));
  for (std::size_t i = 0; i < end; ++i) type_tables_[i].append_to(cells);
  std::sort(cells.begin(), cells.end(), [](const TaskTypeCell& a, const TaskTypeCell& b) {
    return a.type != b.type ? a.type < b.type : a.level < b.level;
  });
  std::vector<TaskTypeCell> merged;
  for (const TaskTypeCell& c : cells) {
    if (!merged.empty() && merged.back().type == c.type && merged.back().level == c.level) {
      merged.back().segments += c.segments;
      merged.back().ns += c.ns;
      merged.back().sq_us += c.sq_us;
    } else {
      merged.push_back(c);
    }
  }
  return merged;
}

std::uint64_t Engine::task_type_overflows() const noexcept {
  std::uint64_t n = 0;
  if (type_tables_)
    for (std::size_t i = 0; i < max_workers_; ++i) n += type_tables_[i].overflowed();
  return n;
}

Level Engine::core_ceiling(WorkerId w) const noexcept {
  return valid(w) ? slot(w).ceiling.load(std::memory_order_relaxed) : 0;
}

void Engine::set_work_sensitivity(WorkSensitivity sensitivity) noexcept {
  const std::uint32_t seq = sensitivity_seq_.load(std::memory_order_relaxed);
  sensitivity_seq_.store(seq + 1, std::memory_order_relaxed);  // odd: a write is under way
  std::atomic_thread_fence(std::memory_order_release);
  core_sensitivity_.store(sensitivity.core, std::memory_order_relaxed);
  uncore_sensitivity_.store(sensitivity.uncore, std::memory_order_relaxed);
  sensitivity_seq_.store(seq + 2, std::memory_order_release);
}

std::optional<WorkSensitivity> Engine::work_sensitivity() const noexcept {
  for (int attempt = 0; attempt < 8; ++attempt) {
    const std::uint32_t before = sensitivity_seq_.load(std::memory_order_acquire);
    if (before == 0) return std::nullopt;  // never set: the cost model's
    if (before & 1u) continue;
    const WorkSensitivity s{core_sensitivity_.load(std::memory_order_relaxed),
                            uncore_sensitivity_.load(std::memory_order_relaxed)};
    std::atomic_thread_fence(std::memory_order_acquire);
    if (sensitivity_seq_.load(std::memory_order_relaxed) == before) return s;
  }
  return std::nullopt;  // a writer kept it busy: the cost model's, this once
}

WorkerActivity Engine::activity() const noexcept {
  WorkerActivity a;
  const std::size_t end = std::min<std::size_t>(max_workers_, seen_end_.load(std::memory_order_acquire));
  for (std::size_t i = 0; i < end; ++i) {
    const Slot& s = slots_[i];
    if (!s.seen.load(std::memory_order_relaxed)) continue;
    if (s.wait_word.load(std::memory_order_relaxed) == kNotWaiting) ++a.working;
    else ++a.waiting;
  }
  return a;
}

bool Engine::seen(WorkerId w) const noexcept { return valid(w) && slot(w).seen.load(std::memory_order_relaxed); }
bool Engine::waiting(WorkerId w) const noexcept {
  return seen(w) && slot(w).wait_word.load(std::memory_order_relaxed) != kNotWaiting;
}

// ---- state ---------------------------------------------------------------------

Level Engine::level(WorkerId w) const noexcept { return valid(w) ? slot(w).level.load(std::memory_order_relaxed) : 0; }
Level Engine::domain_level(WorkerId w) const noexcept {
  return valid(w) ? domains_[domain_of_[w]]->level.load(std::memory_order_relaxed) : 0;
}
double Engine::frequency_hz(WorkerId w) const noexcept { return ladder_.hz(domain_level(w)); }

std::vector<WorkerStats> Engine::worker_stats() const {
  std::vector<WorkerStats> out;
  const std::uint64_t snapshot_ns = clock_.now_ns();
  for (std::size_t i = 0; i < max_workers_; ++i) {
    const Slot& s = slots_[i];
    if (!s.seen.load(std::memory_order_relaxed)) continue;
    WorkerStats st;
    st.id = static_cast<WorkerId>(i);
    st.seen = true;
    st.domain = domain_of_[i];
    st.pushes = get(s.pushes);
    st.pops = get(s.pops);
    st.steals = get(s.steals);
    st.stolen_from = s.stolen_from.load(std::memory_order_relaxed);
    st.idles = get(s.idles);
    st.segments = get(s.segments);
    st.tasks_completed = get(s.completed);
    st.max_depth = get(s.max_depth);
    st.depth_samples = get(s.depth_samples);
    st.mean_depth =
        st.depth_samples ? static_cast<double>(get(s.depth_sample_sum)) / static_cast<double>(st.depth_samples) : 0.0;
    st.level = s.level.load(std::memory_order_relaxed);
    st.level_changes = s.level_changes.load(std::memory_order_relaxed);
    for (int l = 0; l < kMaxLevels; ++l) {
      st.busy_ns_at_level[static_cast<std::size_t>(l)] = get(s.busy_ns[static_cast<std::size_t>(l)]);
      st.busy_ns += st.busy_ns_at_level[static_cast<std::size_t>(l)];
    }
    st.first_seen_ns = get(s.first_seen_ns);
    st.last_seen_ns = get(s.last_seen_ns);
    for (int i2 = 0; i2 < k_; ++i2)
      st.thresholds[static_cast<std::size_t>(i2)] =
          s.thld[static_cast<std::size_t>(i2)].load(std::memory_order_relaxed);
    st.wait_ns = get(s.wait_ns);
    st.wait_slowed_ns = get(s.wait_slowed_ns);
    st.slowed_wakeups = get(s.slowed_wakeups);
    st.raise_delay_ns = get(s.raise_delay_ns);
    st.guard_holds = get(s.guard_holds);
    st.critical_raises = get(s.critical_raises);
    // A wait still under way counts up to now.
    const std::uint64_t word = s.wait_word.load(std::memory_order_acquire);
    if (word != kNotWaiting) {
      const std::uint64_t since = word & kNotWaiting;
      if (snapshot_ns > since) st.wait_ns += snapshot_ns - since;
      const std::uint64_t slowed_at = s.slowed_at_ns.load(std::memory_order_relaxed);
      if ((word & kSlowedBit) && snapshot_ns > slowed_at) st.wait_slowed_ns += snapshot_ns - slowed_at;
    }
    out.push_back(st);
  }
  return out;
}

std::vector<DomainStats> Engine::domain_stats() const {
  std::vector<DomainStats> out;
  for (std::size_t d = 0; d < domains_.size(); ++d) {
    const Domain& dom = *domains_[d];
    DomainStats st;
    st.id = static_cast<DomainId>(d);
    for (WorkerId w : dom.workers)
      if (slot(w).seen.load(std::memory_order_relaxed)) st.workers.push_back(w);
    if (st.workers.empty()) continue;
    st.level = dom.level.load(std::memory_order_relaxed);
    st.transitions = dom.transitions.load(std::memory_order_relaxed);
    st.conflicts = dom.conflicts.load(std::memory_order_relaxed);
    out.push_back(std::move(st));
  }
  return out;
}

}  // namespace rubato
