// Finding the calling thread's record and worker under the active front-end:
// shared by the drop-ins' out-of-line paths (task_events.cpp) and the
// observer's entry / exit callbacks. The record itself and the per-task
// helpers are in rubato/tbb/detail/thread_record.hpp.
#pragma once

#include <oneapi/tbb/task_arena.h>

#include "frontend.hpp"
#include "rubato/tbb/detail/thread_record.hpp"

namespace rubato::tbb::detail {

// The calling thread's record, reset when it belongs to an earlier front-end.
inline ThreadRecord& record_for(Frontend& fe) noexcept {
  ThreadRecord& t = t_record;
  if (t.generation != fe.generation) {
    t = ThreadRecord{};
    t.generation = fe.generation;
    t.frontend = &fe;
    t.engine = &fe.engine;
    t.dynamic_binding = fe.dynamic_binding;
    t.frame = &t.root;
  }
  return t;
}

// The calling thread's number under `fe` (Frontend::workers_are_threads):
// given the first time the thread asks, kNoWorker beyond the engine's workers.
struct ThreadNumber {
  std::uint64_t generation = kNoGeneration;
  WorkerId id = kNoWorker;
};
inline constinit thread_local ThreadNumber t_thread_number;

inline WorkerId thread_number(Frontend& fe) noexcept {
  ThreadNumber& n = t_thread_number;
  if (n.generation != fe.generation) [[unlikely]] {
    n.generation = fe.generation;
    const WorkerId id = fe.next_thread_worker.fetch_add(1, std::memory_order_relaxed);
    n.id = id < fe.max_workers ? id : kNoWorker;
    if (n.id == kNoWorker) fe.outside_threads.fetch_add(1, std::memory_order_relaxed);
  }
  return n.id;
}

// The calling thread's worker: its slot in its arena (stable while it stays in
// the arena), or kNoWorker outside any arena or beyond the engine's workers;
// its thread number when workers are threads.
inline WorkerId current_worker(Frontend& fe) noexcept {
  if (fe.workers_are_threads) return thread_number(fe);
  const int slot = ::tbb::this_task_arena::current_thread_index();
  return slot >= 0 && static_cast<std::size_t>(slot) < fe.max_workers ? static_cast<WorkerId>(slot) : kNoWorker;
}

// Announces the thread as worker `w`: always from the observer's entry
// callback (it re-pins the thread after an exit unpinned it), else only when
// it has not been yet (a thread that was in the arena before the observer
// started, or that took another slot).
inline void announce(Frontend& fe, ThreadRecord& t, WorkerId w, bool again = false) noexcept {
  if (t.worker == w && !again) return;
  t.worker = w;
  t.slot = fe.engine.slot_of(w);
  fe.session.worker_started(w);
}

// The calling thread's worker, announced. Inside one of its task or wait
// scopes the thread holds its arena slot, so the index found when the
// outermost scope opened still holds (and is not asked of oneTBB again).
inline WorkerId worker_of(Frontend& fe, ThreadRecord& t) noexcept {
  if (t.scopes > 0) return t.worker;
  const WorkerId w = current_worker(fe);
  if (w != kNoWorker) announce(fe, t, w);
  return w;
}

}  // namespace rubato::tbb::detail
