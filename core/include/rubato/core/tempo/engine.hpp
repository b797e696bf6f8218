// The tempo engine: receives the work-stealing scheduler's events, keeps each
// worker's queue depth and tempo level, and applies the tempo policy of
// [HERMES] Fig. 5. It does not know where events come from (OpenMP, TBB,
// simulator) nor how a level becomes a frequency (sysfs, emulator, model).
//
// Concurrency contract (docs/design.md "The engine", "Threads"):
//  - push / pop / task_begin / task_end are called by worker w itself and touch
//    only w's cache-line-aligned slot (plus, on the rare tempo change, w's clock
//    domain record);
//  - steal / idle take the single immediacy-list lock;
//  - worker_begin / worker_end / snapshots may be called from any thread.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>

#include "rubato/core/base/spin_lock.hpp"
#include <vector>

#include "rubato/core/base/clock.hpp"
#include "rubato/core/model/work_sensitivity.hpp"
#include "rubato/core/tempo/cost_guard.hpp"
#include "rubato/core/tempo/immediacy_list.hpp"
#include "rubato/core/tempo/slack_cost.hpp"
#include "rubato/core/tempo/task_type_stats.hpp"
#include "rubato/core/config/policy.hpp"
#include "rubato/core/tempo/tempo_actuator.hpp"
#include "rubato/core/tempo/tempo_ladder.hpp"
#include "rubato/core/base/types.hpp"
#include "rubato/core/tempo/workload_thresholds.hpp"

namespace rubato {

struct EngineOptions {
  PolicySpec policy;
  // Frequencies in use ([HERMES] §3.4, N-frequency control). `baseline` uses only
  // the fastest, `fixed` only its own frequency, whatever is given here.
  TempoLadder ladder{std::vector<double>{1e9}};
  int thresholds = 2;                          // K (1..kMaxThresholds)
  std::uint32_t profile_window = 16;           // M samples per profiling period
  std::uint64_t sample_interval_ns = 100'000;  // one deque-size sample per worker per interval
  double initial_mean_depth = 2.0;             // L before the first period completes
  std::vector<double> fixed_thresholds;        // non-empty: these thresholds, no profiling
  std::size_t max_workers = 256;
  // Clock domain of each worker index; workers beyond the vector (or all, when
  // empty) are their own domain.
  std::vector<DomainId> worker_domain;
  // slack: a worker that has waited at least this long is
  // lowered to the slowest level by slack_sweep(); its own next event raises it.
  std::uint64_t slack_dwell_ns = 1'000'000;
  // How long a raise takes to land (one DVFS transition): work that starts
  // right after a slack wake-up runs at the slowed level until then, as under
  // real DVFS (the emulator then stretches it). 0 where the actuator models
  // the latency itself (the simulator).
  std::uint64_t raise_latency_ns = 0;
  // guarded (the cost guard): busy power per ladder level, uncore and β;
  // slack's cost test too where it has the idle power per level (slack_cost.hpp).
  CostModel cost;
  // Measure every segment's duration by task type and level (task_type_stats.hpp),
  // for min-energy's closed loop: a clock read at every segment end then.
  bool task_type_stats = false;
};

// What one worker did, for reports. Plain values: a snapshot.
struct WorkerStats {
  WorkerId id = 0;
  bool seen = false;
  DomainId domain = 0;
  std::uint64_t pushes = 0;
  std::uint64_t pops = 0;
  std::uint64_t steals = 0;       // as thief
  std::uint64_t stolen_from = 0;  // as victim
  std::uint64_t idles = 0;
  std::uint64_t segments = 0;
  std::uint64_t tasks_completed = 0;
  std::uint64_t max_depth = 0;
  double mean_depth = 0;  // over the profiling samples
  std::uint64_t depth_samples = 0;
  Level level = 0;  // at snapshot time
  std::uint64_t level_changes = 0;
  std::array<std::uint64_t, kMaxLevels> busy_ns_at_level{};
  std::uint64_t busy_ns = 0;
  std::uint64_t first_seen_ns = 0;
  std::uint64_t last_seen_ns = 0;
  std::array<double, kMaxThresholds> thresholds{};  // current thld_1..K
  // Waiting: from run_end (the worker may wait) to its next
  // run or serial code, whatever the policy; with slack, the part of it
  // spent lowered, the wake-ups that found it lowered and how long their
  // raise took to land (raise_latency_ns each).
  std::uint64_t wait_ns = 0;
  std::uint64_t wait_slowed_ns = 0;
  std::uint64_t slowed_wakeups = 0;
  std::uint64_t raise_delay_ns = 0;
  std::uint64_t guard_holds = 0;  // slowing decisions the cost guard kept back (fully or in part)
  // guarded: times the sweep found this worker the only one running while
  // others waited, slowed by its tempo policy, and raised it (the critical path).
  std::uint64_t critical_raises = 0;
};

// How many seen workers work and how many wait (Engine::run_end .. their
// next run), at one instant.
struct WorkerActivity {
  int working = 0;
  int waiting = 0;
};

struct DomainStats {
  DomainId id = 0;
  std::vector<WorkerId> workers;
  Level level = 0;
  std::uint64_t transitions = 0;  // effective-level changes requested of the back-end
  std::uint64_t conflicts = 0;    // changes where members asked for different levels
};

class Engine {
 public:
  // `clock` and `actuator` must outlive the engine. Throws std::invalid_argument
  // on inconsistent options (the caller validates configuration first).
  Engine(EngineOptions options, const Clock& clock, TempoActuator& actuator);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // ---- events (docs/design.md "The engine") -------------------------------
  void worker_begin(WorkerId w) noexcept;
  void worker_end(WorkerId w) noexcept;
  void push(WorkerId w) noexcept;                        // a deferred task enters w's queue
  void pop(WorkerId w) noexcept;                         // w starts a task from its own queue
  void steal(WorkerId thief, WorkerId victim) noexcept;  // thief starts a task from victim's queue
  void idle(WorkerId w) noexcept;                        // w ran out of work
  void task_begin(WorkerId w) noexcept;                  // a task segment starts on w
  // ... and ends (completed: not suspended). Returns the time the worker is
  // free for its next segment: the end itself, or later when the actuator
  // (the emulator) kept it busy after the end.
  std::uint64_t task_end(WorkerId w, bool completed = true) noexcept;
  // The same at a time the front-end read from now_ns(): one clock read can
  // serve a segment's end and the next one's start (a read costs more than
  // the rest of the event on some machines) — task_end's result, which is
  // after the emulator's stretch when there was one.
  void task_begin(WorkerId w, std::uint64_t now) noexcept;
  std::uint64_t task_end(WorkerId w, bool completed, std::uint64_t now) noexcept;
  std::uint64_t now_ns() const noexcept;
  // Chained segments, for front-ends that know when a worker goes straight
  // from one segment to the next through the runtime's dispatch code (its
  // own queue had work): busy time is the run from the first segment_begin
  // to run_end, which the front-end calls as soon as the worker may wait
  // (it looks for work, enters a barrier, leaves). The clock is read only
  // when the engine needs it (detail/engine_hot_path.hpp), not per segment:
  // a read costs as much as the rest of a task event on some machines.
  // Busy time per level, tempo splits and the emulator's stretches are as
  // with task_begin / task_end; the dispatch code between chained segments
  // counts as busy, as it runs at the worker's frequency.
  void segment_begin(WorkerId w) noexcept;                // opens a run when none is open
  void segment_end(WorkerId w, bool completed) noexcept;  // the run stays open
  void run_end(WorkerId w) noexcept;                      // the worker may wait from now
  // The worker runs code that is neither a task nor a wait (the initial
  // thread's serial part): it is not waiting, whatever run_end said.
  void serial_begin(WorkerId w) noexcept;

  // slack / guarded: called periodically by one thread other than the
  // workers' (the session's sweeper, the simulator's clock). Lowers every
  // worker that has waited at least slack_dwell_ns (slack), counts the active
  // workers (the guard's critical path) and averages them over the time since
  // the last sweep (the guard's uncore share). Returns the earliest time a
  // waiting worker reaches the dwell (kNever: none waits).
  static constexpr std::uint64_t kNever = ~std::uint64_t{0};
  std::uint64_t slack_sweep(std::uint64_t now) noexcept;
  bool sweeps() const noexcept { return options_.policy.slack || options_.policy.guarded; }
  const CostGuard& guard() const noexcept { return guard_; }
  const SlackCost& slack_cost() const noexcept { return slack_cost_; }

  // ---- min-energy (rubato/core/min_energy/min_energy_controller.hpp) -------
  // Called by the controller thread, never on a task's path.
  // The fastest level a *working* worker may run at: its domain runs at the
  // slower of what its tempo policy asks and this (hermes, the guard and
  // slack act beneath it; a waiting worker lowered by slack is at the slowest
  // anyway). Written into every worker's slot, then every domain is published
  // again. Clamped to the ladder.
  void set_core_ceiling(Level ceiling) noexcept;
  Level core_ceiling(WorkerId w) const noexcept;
  // What the cost guard weighs a slowing with: the uncore's level now (an
  // index into options().cost.uncore_hz; -1: not known) and the work's
  // sensitivities now (until the first call: the cost model's).
  void set_uncore_level(int level) noexcept { uncore_level_.store(level, std::memory_order_relaxed); }
  int uncore_level() const noexcept { return uncore_level_.load(std::memory_order_relaxed); }
  void set_work_sensitivity(WorkSensitivity sensitivity) noexcept;
  std::optional<WorkSensitivity> work_sensitivity() const noexcept;
  // Working and waiting workers now: each seen worker's wait word, read relaxed.
  WorkerActivity activity() const noexcept;
  // Whether worker w was seen and now waits (its wait word, read relaxed).
  bool seen(WorkerId w) const noexcept;
  bool waiting(WorkerId w) const noexcept;

  // ---- task types (task_type_stats.hpp) ------------------------------------
  // The type of the segment worker w starts next; called by w itself before
  // task_begin / segment_begin (types >= kMaxTaskTypes count as untyped).
  // Where per-type ceilings are in force, a type whose ceiling differs from
  // the worker's moves it there (a tempo change). Without
  // EngineOptions::task_type_stats it only stores the type.
  void set_task_type(WorkerId w, TaskType type) noexcept;
  bool records_task_types() const noexcept { return type_tables_ != nullptr; }
  // Every seen worker's cells summed per (type, level), sorted; and the
  // records no cell could take (more than TaskTypeTable::kCells pairs on a worker).
  std::vector<TaskTypeCell> task_type_stats() const;
  std::uint64_t task_type_overflows() const noexcept;
  // Controller thread: a ceiling per task type (`per_type[t]`; types beyond
  // it get `other`), each worker taking its running type's at its next
  // segment start and now; clear_type_ceilings() returns to one ceiling for
  // all (set_core_ceiling).
  void set_type_ceilings(const std::vector<Level>& per_type, Level other) noexcept;
  void clear_type_ceilings(Level ceiling) noexcept;

  // The same per-task events on a worker's slot, for a front-end that keeps
  // the slot of the worker its thread reports as (slot_of: nullptr for an
  // invalid index): no bounds check and index arithmetic per event.
  struct Slot;
  Slot* slot_of(WorkerId w) const noexcept;
  void push(WorkerId w, Slot& s) noexcept;
  void pop(WorkerId w, Slot& s) noexcept;
  void set_task_type(Slot& s, TaskType type) noexcept;
  void segment_begin(Slot& s) noexcept;
  void segment_end(WorkerId w, Slot& s, bool completed) noexcept;
  std::int64_t depth(const Slot& s) const noexcept;
  // segment_end in two parts, for a front-end whose per-task path makes no
  // call (so that it saves no registers): whether it would read the clock,
  // which such a path leaves to its general one, and the counting without
  // the read. segment_begin on an open run likewise reads nothing.
  bool run_open(const Slot& s) const noexcept;
  bool segment_end_reads_clock(const Slot& s) const noexcept;
  void count_segment_end(Slot& s, bool completed) noexcept;  // only when !segment_end_reads_clock(s)

  // The ladder an engine with `options` uses: the given one, or one frequency
  // for baseline and fixed (plus the slowest, for slack to lower waiting workers to).
  static TempoLadder ladder_for(const EngineOptions& options);

  // ---- state ---------------------------------------------------------------
  bool valid(WorkerId w) const noexcept { return w < max_workers_; }
  std::size_t max_workers() const noexcept { return max_workers_; }
  Level level(WorkerId w) const noexcept;
  Level domain_level(WorkerId w) const noexcept;
  double frequency_hz(WorkerId w) const noexcept;  // effective: the domain's
  std::int64_t depth(WorkerId w) const noexcept;
  const TempoLadder& ladder() const noexcept { return ladder_; }
  const PolicySpec& policy() const noexcept { return options_.policy; }
  const EngineOptions& options() const noexcept { return options_; }
  const ImmediacyList& immediacy() const noexcept { return list_; }
  std::uint64_t dropped_events() const noexcept { return dropped_.load(std::memory_order_relaxed); }

  std::vector<WorkerStats> worker_stats() const;  // only workers that were seen
  std::vector<DomainStats> domain_stats() const;  // only domains with seen workers

 private:
  struct Domain;

  Slot& slot(WorkerId w) const noexcept;
  std::int64_t depth_of(const Slot& s) const noexcept;
  // Out-of-line parts of the inline events (detail/engine_hot_path.hpp).
  [[gnu::noinline]] void push_workload(WorkerId w, Slot& s, std::int64_t depth) noexcept;
  [[gnu::noinline]] void pop_workload(WorkerId w, Slot& s) noexcept;
  void band_down(WorkerId w, Slot& s, std::int64_t depth) noexcept;          // the deque fell: POP / STEAL of Fig. 5
  void keep_victim_precedence(WorkerId victim, Level thief_level) noexcept;  // guarded, on a steal
  [[gnu::noinline]] bool account_split_segment(WorkerId w, Slot& s, std::uint64_t start, std::uint64_t changed,
                                               std::uint64_t now, Level lv) noexcept;
  [[gnu::noinline]] bool emulate_segment(WorkerId w, std::uint64_t duration_ns, Level lv) noexcept;
  [[gnu::noinline]] void record_type(Slot& s, std::uint64_t start, std::uint64_t changed, std::uint64_t now,
                                     std::uint64_t end) noexcept;
  [[gnu::noinline]] void apply_type_ceiling(Slot& s, TaskType type) noexcept;
  int band_now(const Slot& s) const noexcept;
  void set_level(WorkerId w, Level level) noexcept;  // any thread
  void raise(WorkerId w) noexcept;                   // UP(w)
  void lower(WorkerId w) noexcept;                   // DOWN(w)
  // `lands_after_ns`: a raise that lands that much after it is requested (slack wake-ups).
  void publish_domain(DomainId d, std::uint64_t lands_after_ns = 0) noexcept;
  void note_change(Domain& dom, Level before, std::uint64_t when) noexcept;
  bool account_segment(WorkerId w, Slot& s, std::uint64_t duration_ns, Level lv) noexcept;  // true: stretched
  // Free time; `segment_ends`: a segment ends with the run (its type's duration is recorded).
  std::uint64_t account_run(WorkerId w, Slot& s, std::uint64_t start, std::uint64_t now,
                            bool segment_ends = true) noexcept;
  // The open run ends: account_run.
  std::uint64_t close_run(WorkerId w, Slot& s, std::uint64_t now, bool segment_ends = true) noexcept;
  void start_run(Slot& s, std::uint64_t now) noexcept;  // a busy run opens at `now`
  [[gnu::noinline]] void measure_run(WorkerId w, Slot& s) noexcept;
  void leave_immediacy_list(WorkerId w) noexcept;                            // immediacy relay; list lock held
  Level guarded_target(WorkerId w, Slot& s, Level from, Level to) noexcept;  // the guard's verdict
  Level effective_level(const Slot& s) const noexcept;  // the policy's level under the ceiling, or slack's slowest
  bool on_critical_path(const Slot& s) const noexcept;  // guarded: the program waits for this worker
  void raise_critical_runner(std::size_t runner, int active, int waiting) noexcept;  // the sweep's part of it
  // The sweep's time average: worker i's active time since the last sweep, and the mean over all.
  std::uint64_t active_since_last_sweep(std::size_t i, std::uint64_t word, std::uint64_t now) noexcept;
  void note_mean_active(std::uint64_t active_ns, std::uint64_t since, std::uint64_t now, int active_now) noexcept;
  std::uint64_t slack_due(const Slot& s, std::uint64_t began) const noexcept;  // slack: when to lower this wait
  void begin_wait(Slot& s, std::uint64_t now) noexcept;
  [[gnu::noinline]] void end_wait(Slot& s, std::uint64_t now) noexcept;
  WorkerId id_of(const Slot& s) const noexcept;
  [[gnu::noinline]] void sample_depth(Slot& s, std::uint64_t now) noexcept;
  bool workload_may_slow(WorkerId w) const noexcept;
  [[gnu::cold, gnu::noinline]] void drop() noexcept { dropped_.fetch_add(1, std::memory_order_relaxed); }

  EngineOptions options_;
  TempoLadder ladder_;
  const Clock& clock_;
  const SteadyClock* steady_clock_;  // clock_, when it is one: read without a virtual call
  TempoActuator& actuator_;
  std::array<bool, kMaxLevels> stretched_at_level_{};  // the actuator stretches segments at this level
  bool stretches_any_ = false;                         // at some level: start_run tells the actuator (run_started)
  bool workload_;                                      // options_.policy.workload(), read on every push and pop
  int k_;
  std::size_t max_workers_;
  std::unique_ptr<Slot[]> slots_;
  std::vector<std::unique_ptr<Domain>> domains_;
  std::vector<DomainId> domain_of_;
  ImmediacyList list_;
  SpinLock list_lock_;
  CostGuard guard_;
  SlackCost slack_cost_;
  std::atomic<int> active_workers_{0};   // not waiting, at the last sweep (0: no sweep yet)
  std::atomic<int> waiting_workers_{0};  // waiting, at the last sweep
  std::atomic<int> queued_workers_{0};   // holding queued tasks, at the last sweep
  // guarded: workers active on average between the last two sweeps (0: no
  // sweep yet), and the sweeper's own record behind it: each worker's waited
  // time and the time of the last sweep.
  std::atomic<double> mean_active_{0};
  std::unique_ptr<std::uint64_t[]> swept_waited_ns_;
  std::uint64_t last_sweep_ns_ = 0;
  std::atomic<int> uncore_level_{-1};
  // The work's sensitivities, written by one thread under a sequence count
  // (odd while a write is under way) so that a reader never mixes two.
  std::atomic<std::uint32_t> sensitivity_seq_{0};
  std::atomic<double> core_sensitivity_{0};
  std::atomic<double> uncore_sensitivity_{0};
  // Task types: one table per worker (null: not recorded) and the per-type ceilings.
  std::unique_ptr<TaskTypeTable[]> type_tables_;
  std::unique_ptr<std::atomic<Level>[]> type_ceiling_;
  std::atomic<int> seen_workers_{0};
  std::atomic<std::size_t> seen_end_{0};  // one past the highest worker seen: the sweep's range
  std::atomic<std::uint64_t> dropped_{0};
};

}  // namespace rubato

#include "rubato/core/tempo/detail/engine_hot_path.hpp"
