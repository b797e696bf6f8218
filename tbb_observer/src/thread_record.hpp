// What the TBB front-end keeps per thread: the worker index it reports under,
// its open time segment, the wait its running task is in, and the push / pop
// counts idle detection compares. Only its own thread touches it.
//
// Shared by the task events (drop-ins) and the observer's entry / exit
// callbacks, which is why the small helpers are inline here; those on the
// per-task path are forced inline (a call each cost a measurable share of the
// ~100 ns per task the drop-ins add to fib).
#pragma once

#include <oneapi/tbb/task_arena.h>

#include <cstdint>

#include "frontend.hpp"
#include "rubato/core/types.hpp"
#include "rubato/tbb/detail/task_events.hpp"

namespace rubato::tbb::detail {

struct alignas(kCacheLine) ThreadRecord {
  std::uint64_t generation = 0;  // of the front-end the rest belongs to
  WorkerId worker = kNoWorker;   // last index announced with Session::worker_started
  Engine::Slot* slot = nullptr;  // the engine's slot of `worker`
  std::uint64_t pushes = 0;      // tasks this thread spawned
  std::uint64_t pops = 0;        // ... and started (or dropped) itself
  wait_frame task_base;          // pushes / pops when the running task started here
  const wait_frame* waiting = nullptr;  // the running task's current wait, if any
  std::uint32_t scopes = 0;      // task / wait scopes open on this thread
  bool segment_open = false;
  bool idle = false;             // idle reported since this thread last started a task
};

inline thread_local ThreadRecord t_record;

// The calling thread's record, reset when it belongs to an earlier front-end.
[[gnu::always_inline]] inline ThreadRecord& record_for(const Frontend& fe) noexcept {
  ThreadRecord& t = t_record;
  if (t.generation != fe.generation) {
    t = ThreadRecord{};
    t.generation = fe.generation;
  }
  return t;
}

// The calling thread's slot in its arena (stable while it stays in the arena),
// or kNoWorker outside any arena or beyond the engine's workers.
inline WorkerId current_worker(const Frontend& fe) noexcept {
  const int slot = ::tbb::this_task_arena::current_thread_index();
  return slot >= 0 && static_cast<std::size_t>(slot) < fe.max_workers ? static_cast<WorkerId>(slot) : kNoWorker;
}

// Announces the thread as worker `w` when it has not been yet (a thread that was
// in the arena before the observer started, or that took another slot).
inline void announce(Frontend& fe, ThreadRecord& t, WorkerId w) noexcept {
  if (t.worker == w) return;
  t.worker = w;
  t.slot = fe.engine.slot_of(w);
  fe.session.worker_started(w);
}

// The calling thread's worker, announced. Inside one of its task or wait
// scopes the thread holds its arena slot, so the index found when the
// outermost scope opened still holds (and is not asked of oneTBB again).
[[gnu::always_inline]] inline WorkerId worker_of(Frontend& fe, ThreadRecord& t) noexcept {
  if (t.scopes > 0) return t.worker;
  const WorkerId w = current_worker(fe);
  if (w != kNoWorker) announce(fe, t, w);
  return w;
}

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
[[gnu::always_inline]] inline void open_segment(Frontend& fe, ThreadRecord& t, WorkerId w, bool follows_last_end = false) noexcept {
  if (fe.dynamic_binding) fe.session.before_task(w);
  if (!follows_last_end) fe.engine.run_end(w);  // usually ended already, by maybe_idle
  fe.engine.segment_begin(*t.slot);
  t.segment_open = true;
}

[[gnu::always_inline]] inline void close_segment(Frontend& fe, ThreadRecord& t, WorkerId w, bool completed) noexcept {
  fe.engine.segment_end(w, *t.slot, completed);
  if (fe.dynamic_binding) fe.session.after_task(w);
  t.segment_open = false;
}

// HERMES's idle (seed 000 §3.1, Fig. 5 line 6): the worker's own queue is empty
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
[[gnu::always_inline]] inline void maybe_idle(Frontend& fe, ThreadRecord& t, WorkerId w) noexcept {
  if (fe.engine.depth(*t.slot) > 0) return;
  if (const wait_frame* f = t.waiting) {
    if (t.pushes - f->base_pushes <= t.pops - f->base_pops) return;
  }
  fe.engine.run_end(w);  // it may wait from here on
  if (t.idle) return;
  fe.engine.idle(w);
  t.idle = true;
}

}  // namespace rubato::tbb::detail
