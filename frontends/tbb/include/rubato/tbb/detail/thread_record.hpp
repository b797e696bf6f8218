// What the TBB front-end keeps per thread: the worker index it reports under,
// its engine slot, its open time segment, the task it runs (whose frame says
// whether it waits), and the push / pop counts idle detection compares. Only
// its own thread touches it.
//
// In a public header because the drop-ins' per-task events are inline in their
// templates (task_events.hpp): a call, a prologue and a look-up of the active
// front-end per event cost as much as the events themselves (out of line they
// added 278 instructions per fib task, inline 161: frontends/tbb/README.md).
// Only the common path is inline; looking up the thread's worker, steals,
// idleness and dynamic binding are out of line in task_events.cpp.
#pragma once

#include <atomic>
#include <cstdint>

#include "rubato/core/tempo/engine.hpp"
#include "rubato/core/base/types.hpp"

namespace rubato::tbb::detail {

// A worker index (rubato::WorkerId); `no_worker` when the thread is not a
// worker of the observed arena, or no observer is active.
using worker_index = std::uint32_t;
inline constexpr worker_index no_worker = 0xffffffffu;

struct Frontend;  // the active observer's session and engine (src/frontend.hpp)

// The task a thread is running (or the thread's root, outside any task): the
// thread's `unpopped` when it started, which a wait compares against to tell
// whether some of its children were started elsewhere (see maybe_idle), and
// whether it is in a wait. Lives in the task's task_scope. No default member
// initializers: a scope sets all of it, and the root is value-initialized with
// its record (zero).
struct task_frame {
  std::int64_t base_unpopped;
  task_frame* outer;  // the task this one interrupted on this thread
  bool waiting;
};

// Generation of the active front-end that collects task events; 0: none. A
// thread's record is current when its generation is this one.
inline std::atomic<std::uint64_t> g_task_generation{0};

// Never a front-end's: a record never set up, a scope that opened nothing.
inline constexpr std::uint64_t kNoGeneration = ~std::uint64_t{0};

struct alignas(kCacheLine) ThreadRecord {
  std::uint64_t generation = kNoGeneration;  // of the front-end the rest belongs to
  Frontend* frontend = nullptr;
  Engine* engine = nullptr;      // frontend's
  Engine::Slot* slot = nullptr;  // the engine's slot of `worker`
  WorkerId worker = kNoWorker;   // last index announced with Session::worker_started
  std::uint32_t scopes = 0;      // task / wait scopes open on this thread
  // Tasks this thread spawned and did not start (or drop) itself; signed: a
  // task spawned under an earlier observer may be popped under this one.
  std::int64_t unpopped = 0;
  task_frame* frame = nullptr;   // the running task's, or &root (set with `generation`)
  task_frame root{};             // value-initialized, so that t_record can be constinit
  bool dynamic_binding = false;  // frontend's: each segment asks the session where to run
  bool segment_open = false;
  bool idle = false;  // idle reported since this thread last started a task
};

// constinit: a record needing dynamic initialization would put a guard on every access.
inline constinit thread_local ThreadRecord t_record;

// The record, when the calling thread is inside one of its task or wait scopes
// under the active front-end: then its worker is known (a thread holds its
// arena slot while inside a scope) and the events need no look-up.
[[gnu::always_inline]] inline ThreadRecord* record_in_scope() noexcept {
  ThreadRecord& t = t_record;
  if (t.generation != g_task_generation.load(std::memory_order_relaxed) || t.scopes == 0) [[unlikely]]
    return nullptr;
  return &t;
}

// Out of line (task_events.cpp): the rare parts of the helpers below.
void bind_before_segment(ThreadRecord& t) noexcept;  // dynamic binding
void bind_after_segment(ThreadRecord& t) noexcept;
void end_run(ThreadRecord& t) noexcept;      // Engine::run_end on the thread's worker
void report_idle(ThreadRecord& t) noexcept;  // the run ends; idle once per task started

// No clock read per task switch: segments are chained in the engine (see
// Engine::segment_begin). A segment opened with `follows_last_end` continues
// the busy run of the thread's previous segment: the same instant (a task
// starting inside an open segment, or its parent resuming), or a task popped
// from the thread's own queue inside one of its waits — the thread went
// straight from the last task's end through oneTBB's dispatch to it. Busy time
// (and the emulator's stretch) then covers that dispatch code, which runs at
// the worker's frequency too, but never a wait: maybe_idle ends the run as soon
// as the thread is out of work of its own, and steals, the end of a wait, a
// task started from the scheduler's own loop start a new one.
[[gnu::always_inline]] inline void open_segment(ThreadRecord& t, bool follows_last_end = false) noexcept {
  if (t.dynamic_binding) [[unlikely]]
    bind_before_segment(t);
  if (!follows_last_end) end_run(t);  // usually ended already, by maybe_idle
  t.engine->segment_begin(*t.slot);
  t.segment_open = true;
}

[[gnu::always_inline]] inline void close_segment(ThreadRecord& t, bool completed) noexcept {
  t.engine->segment_end(t.worker, *t.slot, completed);
  if (t.dynamic_binding) [[unlikely]]
    bind_after_segment(t);
  t.segment_open = false;
}

// HERMES's idle ([HERMES] §3.1, Fig. 5 line 6): the worker's own queue is empty
// and it must steal or wait. Checked when a thread is back in a wait or in the
// scheduler's own loop with nothing of its own queued:
//  - in a wait: only if some of the waiting task's children were started by
//    other workers (this thread pushed more since the task started than it
//    popped). Otherwise all of them ran here, the wait returns at once and the
//    task continues: the worker is not out of work.
//  - outside any wait (a worker back in oneTBB's dispatch loop, or leaving the
//    arena): idle.
// As in the OMPT front-end, a stolen child that already finished gives a
// spurious idle; the engine itself treats every thief as idle first.
[[gnu::always_inline]] inline bool all_children_ran_here(const ThreadRecord& t, const task_frame& f) noexcept {
  return t.unpopped <= f.base_unpopped;
}

[[gnu::always_inline]] inline void maybe_idle(ThreadRecord& t) noexcept {
  if (t.engine->depth(*t.slot) > 0) return;
  if (t.frame->waiting && all_children_ran_here(t, *t.frame)) return;
  report_idle(t);
}

}  // namespace rubato::tbb::detail
