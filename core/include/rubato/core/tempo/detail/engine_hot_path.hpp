// The engine's per-task events, inline: the OpenMP and TBB front-ends call
// them on every task switch, and a call into the library plus a virtual clock
// read cost more than the events themselves. Only the common path is here;
// tempo changes, depth sampling and split segments stay out of line in
// engine.cpp. Included by engine.hpp; not a header of its own.
#pragma once

namespace rubato {

namespace engine_detail {

// Owner-written counters that other threads may read (snapshots, a thief
// checking its victim's depth): a relaxed load+store, which compiles to a plain
// add — no locked instruction on the hot path.
inline void bump(std::atomic<std::uint64_t>& c, std::uint64_t by = 1) noexcept {
  c.store(c.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
}
inline std::uint64_t get(const std::atomic<std::uint64_t>& c) noexcept { return c.load(std::memory_order_relaxed); }

inline constexpr std::uint64_t kNoSegment = ~std::uint64_t{0};
// Slot::wait_word: the time the worker began to wait, or kNotWaiting; slack's
// sweeper sets kSlowedBit on it once it lowered the worker.
inline constexpr std::uint64_t kSlowedBit = std::uint64_t{1} << 63;
inline constexpr std::uint64_t kNotWaiting = kSlowedBit - 1;
// Slot::swept: the worker was working / held queued tasks at the last sweep.
inline constexpr std::uint8_t kSweptWorking = 1;
inline constexpr std::uint8_t kSweptQueued = 2;

}  // namespace engine_detail

// One worker's state: four cache lines so that what only the owner writes,
// what several threads update on rare tempo changes, and what thieves write
// never share a line.
struct Engine::Slot {
  // --- line 1: written by the owner on every event -----------------------
  alignas(kCacheLine) std::atomic<std::uint64_t> pushes{0};
  std::atomic<std::uint64_t> pops{0};
  std::atomic<std::uint64_t> steals{0};
  std::atomic<std::uint64_t> segments{0};
  std::atomic<std::uint64_t> completed{0};
  std::atomic<std::uint64_t> max_depth{0};
  // Start of the busy run not yet accounted (kNoSegment: none open). A run is
  // one segment (task_begin .. task_end) or several chained ones.
  std::uint64_t run_start_ns = engine_detail::kNoSegment;
  std::uint64_t next_sample_ns = 0;
  std::uint32_t chained_ends_left = 1;   // chained segment ends until the next clock read
  std::uint32_t chained_read_every = 1;  // adapted in measure_run
  // Of the segment running (set_task_type): owner-written, read relaxed by
  // the controller thread when it sets per-type ceilings.
  std::atomic<TaskType> task_type{kUntypedTask};
  // --- line 2: owner, less often ------------------------------------------
  alignas(kCacheLine) std::array<std::atomic<std::uint64_t>, kMaxLevels> busy_ns{};
  DepthSampler sampler;
  std::atomic<std::uint64_t> depth_sample_sum{0};
  std::atomic<std::uint64_t> depth_samples{0};
  std::atomic<std::uint64_t> idles{0};
  std::atomic<std::uint64_t> first_seen_ns{0};
  std::atomic<std::uint64_t> last_seen_ns{0};
  std::atomic<bool> seen{false};
  Domain* domain = nullptr;                      // this worker's clock domain (fixed at construction)
  std::atomic<std::uint64_t> wait_ns{0};         // closed waits (Engine::begin_wait .. end_wait)
  std::atomic<std::uint64_t> wait_slowed_ns{0};  // ... the part after slack lowered the worker
  std::atomic<std::uint64_t> slowed_wakeups{0};
  std::atomic<std::uint64_t> raise_delay_ns{0};
  std::atomic<std::uint64_t> guard_holds{0};
  std::atomic<std::uint64_t> critical_raises{0};  // written by the sweeper
  // --- line 3: tempo state, changed by the owner and by other workers -------
  alignas(kCacheLine) std::atomic<Level> level{0};
  // min-energy's ceiling: the fastest level this worker may run at while it
  // works. Written by the controller thread, read only where a domain's level
  // is published (a tempo change), never on the per-task path.
  std::atomic<Level> ceiling{0};
  // Per-type ceilings in force (Engine::set_type_ceilings): the owner moves
  // `ceiling` to its running type's at each segment start.
  std::atomic<bool> type_ceilings{false};
  std::atomic<int> band{0};  // workload band: thresholds reached ([HERMES] Fig. 5, w.S)
  std::atomic<std::uint64_t> level_changes{0};
  std::array<std::atomic<double>, kMaxThresholds> thld{};
  // Waiting: the owner stores the start and clears it; the sweeper only sets
  // kSlowedBit (a compare-exchange on the start it read), after storing when.
  std::atomic<std::uint64_t> wait_word{engine_detail::kNotWaiting};
  std::atomic<std::uint64_t> slowed_at_ns{0};
  // What the last sweep saw of this worker (engine_detail::kSweptWorking,
  // kSweptQueued): the sweeper stores it only when it changed, and the guard
  // reads it to count the *other* workers.
  std::atomic<std::uint8_t> swept{0};
  // --- line 4: written by thieves -------------------------------------------
  alignas(kCacheLine) std::atomic<std::uint64_t> stolen_from{0};
};

struct Engine::Domain {
  std::vector<WorkerId> workers;
  std::atomic<Level> level{0};
  // The last change of `level`: when, and from what. A segment that spans it is
  // accounted (and emulated) in two parts, as real DVFS would slow only the
  // part after the change — a relay often raises a thief mid-task.
  std::atomic<std::uint64_t> changed_ns{0};
  std::atomic<Level> level_before{0};
  std::atomic<std::uint64_t> transitions{0};
  std::atomic<std::uint64_t> conflicts{0};
  std::atomic<bool> published{false};
  SpinLock lock;  // only for domains shared by several workers
};

inline Engine::Slot& Engine::slot(WorkerId w) const noexcept { return slots_[w]; }
inline WorkerId Engine::id_of(const Slot& s) const noexcept { return static_cast<WorkerId>(&s - slots_.get()); }
inline Engine::Slot* Engine::slot_of(WorkerId w) const noexcept { return valid(w) ? &slots_[w] : nullptr; }

inline std::uint64_t Engine::now_ns() const noexcept { return steady_clock_ ? steady_clock_->now() : clock_.now_ns(); }

inline std::int64_t Engine::depth_of(const Slot& s) const noexcept {
  return static_cast<std::int64_t>(engine_detail::get(s.pushes)) -
         static_cast<std::int64_t>(engine_detail::get(s.pops)) -
         static_cast<std::int64_t>(s.stolen_from.load(std::memory_order_relaxed));
}

inline std::int64_t Engine::depth(WorkerId w) const noexcept { return valid(w) ? depth_of(slot(w)) : 0; }
inline std::int64_t Engine::depth(const Slot& s) const noexcept { return depth_of(s); }

[[gnu::always_inline]] inline void Engine::push(WorkerId w) noexcept {
  if (!valid(w)) [[unlikely]]
    return drop();
  push(w, slot(w));
}

[[gnu::always_inline]] inline void Engine::push(WorkerId w, Slot& s) noexcept {
  engine_detail::bump(s.pushes);
  const std::int64_t depth = depth_of(s);
  if (depth > static_cast<std::int64_t>(engine_detail::get(s.max_depth)))
    s.max_depth.store(static_cast<std::uint64_t>(depth), std::memory_order_relaxed);
  if (workload_) push_workload(w, s, depth);
}

[[gnu::always_inline]] inline void Engine::pop(WorkerId w) noexcept {
  if (!valid(w)) [[unlikely]]
    return drop();
  pop(w, slot(w));
}

[[gnu::always_inline]] inline void Engine::pop(WorkerId w, Slot& s) noexcept {
  engine_detail::bump(s.pops);
  if (workload_) pop_workload(w, s);
}

inline void Engine::set_task_type(WorkerId w, TaskType type) noexcept {
  if (!valid(w)) [[unlikely]]
    return drop();
  set_task_type(slot(w), type);
}

inline void Engine::set_task_type(Slot& s, TaskType type) noexcept {
  const TaskType t = type < kMaxTaskTypes ? type : kUntypedTask;
  s.task_type.store(t, std::memory_order_relaxed);
  if (s.type_ceilings.load(std::memory_order_relaxed)) [[unlikely]]
    apply_type_ceiling(s, t);
}

inline void Engine::task_begin(WorkerId w) noexcept { task_begin(w, now_ns()); }

inline void Engine::task_begin(WorkerId w, std::uint64_t now) noexcept {
  if (!valid(w)) [[unlikely]]
    return drop();
  start_run(slot(w), now);
}

inline void Engine::start_run(Slot& s, std::uint64_t now) noexcept {
  if (s.wait_word.load(std::memory_order_relaxed) != engine_detail::kNotWaiting) [[unlikely]]
    end_wait(s, now);  // work after a wait: raised at once if slack had lowered it
  s.run_start_ns = now;
  // The emulator marks the thread's CPU time at the start of a run that it
  // will stretch; a back-end that stretches nothing costs one never-taken
  // branch on a constant, and a level it does not stretch reads no clock.
  if (stretches_any_) [[unlikely]]
    if (stretched_at_level_[static_cast<std::size_t>(s.domain->level.load(std::memory_order_relaxed))])
      actuator_.run_started(id_of(s));
  if (now >= s.next_sample_ns) [[unlikely]]
    sample_depth(s, now);
}

inline std::uint64_t Engine::task_end(WorkerId w, bool completed) noexcept { return task_end(w, completed, now_ns()); }

inline std::uint64_t Engine::task_end(WorkerId w, bool completed, std::uint64_t now) noexcept {
  if (!valid(w)) [[unlikely]] {
    drop();
    return now;
  }
  Slot& s = slot(w);
  engine_detail::bump(s.segments);
  if (completed) engine_detail::bump(s.completed);
  return close_run(w, s, now);
}

inline std::uint64_t Engine::close_run(WorkerId w, Slot& s, std::uint64_t now, bool segment_ends) noexcept {
  const std::uint64_t start = s.run_start_ns;
  s.run_start_ns = engine_detail::kNoSegment;
  return account_run(w, s, start, now, segment_ends);
}

inline std::uint64_t Engine::account_run(WorkerId w, Slot& s, std::uint64_t start, std::uint64_t now,
                                         bool segment_ends) noexcept {
  const std::uint64_t duration = start != engine_detail::kNoSegment && now > start ? now - start : 0;
  const Domain& dom = *s.domain;
  const std::uint64_t changed = dom.changed_ns.load(std::memory_order_acquire);
  const Level lv = dom.level.load(std::memory_order_relaxed);
  // A change that lands after `now` (a slack raise still under way) had not
  // changed anything yet: the whole run was at the level before it.
  const bool stretched = duration > 0 && changed > start
                             ? changed < now
                                   ? account_split_segment(w, s, start, changed, now, lv)
                                   : account_segment(w, s, duration, dom.level_before.load(std::memory_order_relaxed))
                             : account_segment(w, s, duration, lv);
  // The emulator burnt its stretch after `now`: the worker is free only now.
  const std::uint64_t end = stretched ? now_ns() : now;
  // A type's segment ends here; a run that ends after it (the worker looks
  // for work) only adds its dispatch code, which no type owns.
  if (type_tables_ && duration > 0 && segment_ends) [[unlikely]]
    record_type(s, start, changed, now, end);
  // A worker is alive at least until its last run ended (alive_s >= busy_s even
  // when no worker_end follows, e.g. a oneTBB worker still in its arena at exit).
  if (end > engine_detail::get(s.last_seen_ns)) s.last_seen_ns.store(end, std::memory_order_relaxed);
  return end;
}

// Chained segments: no clock read on the common path. The run's time is read
// and accounted when the run ends, when the level changed since it started,
// when the actuator stretches segments at the current level (the emulator
// then sees each segment, as with task_end), and every chained_read_every
// ends, which keeps depth samples (taken at reads) about one sample interval
// apart and bounds what a snapshot has not yet counted.
[[gnu::always_inline]] inline void Engine::segment_begin(WorkerId w) noexcept {
  if (!valid(w)) [[unlikely]]
    return drop();
  segment_begin(slot(w));
}

[[gnu::always_inline]] inline void Engine::segment_begin(Slot& s) noexcept {
  if (!run_open(s)) [[unlikely]]
    start_run(s, now_ns());
}

[[gnu::always_inline]] inline void Engine::segment_end(WorkerId w, bool completed) noexcept {
  if (!valid(w)) [[unlikely]]
    return drop();
  segment_end(w, slot(w), completed);
}

[[gnu::always_inline]] inline void Engine::segment_end(WorkerId w, Slot& s, bool completed) noexcept {
  const bool read = segment_end_reads_clock(s);
  count_segment_end(s, completed);
  if (read) [[unlikely]]
    measure_run(w, s);
}

[[gnu::always_inline]] inline bool Engine::run_open(const Slot& s) const noexcept {
  return s.run_start_ns != engine_detail::kNoSegment;
}

[[gnu::always_inline]] inline bool Engine::segment_end_reads_clock(const Slot& s) const noexcept {
  const Domain& dom = *s.domain;
  return s.chained_ends_left == 1 || type_tables_ != nullptr ||
         stretched_at_level_[static_cast<std::size_t>(dom.level.load(std::memory_order_relaxed))] ||
         dom.changed_ns.load(std::memory_order_acquire) > s.run_start_ns;
}

[[gnu::always_inline]] inline void Engine::count_segment_end(Slot& s, bool completed) noexcept {
  engine_detail::bump(s.segments);
  if (completed) engine_detail::bump(s.completed);
  --s.chained_ends_left;
}

inline void Engine::run_end(WorkerId w) noexcept {
  if (!valid(w)) [[unlikely]]
    return drop();
  Slot& s = slot(w);
  if (run_open(s)) begin_wait(s, close_run(w, s, now_ns(), false));
  else if (s.wait_word.load(std::memory_order_relaxed) == engine_detail::kNotWaiting) begin_wait(s, now_ns());
}

inline void Engine::begin_wait(Slot& s, std::uint64_t now) noexcept {
  if (s.wait_word.load(std::memory_order_relaxed) == engine_detail::kNotWaiting)
    s.wait_word.store(now & engine_detail::kNotWaiting, std::memory_order_relaxed);
}

inline void Engine::serial_begin(WorkerId w) noexcept {
  if (!valid(w)) [[unlikely]]
    return drop();
  Slot& s = slot(w);
  if (s.wait_word.load(std::memory_order_relaxed) != engine_detail::kNotWaiting) end_wait(s, now_ns());
}

inline bool Engine::account_segment(WorkerId w, Slot& s, std::uint64_t duration_ns, Level lv) noexcept {
  if (duration_ns == 0) return false;
  engine_detail::bump(s.busy_ns[static_cast<std::size_t>(lv)], duration_ns);
  return stretched_at_level_[static_cast<std::size_t>(lv)] && emulate_segment(w, duration_ns, lv);
}

}  // namespace rubato
