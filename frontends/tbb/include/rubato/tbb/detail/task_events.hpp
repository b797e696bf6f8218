// The engine events of the instrumented drop-ins (task_group, parallel_invoke,
// parallel_for), called from their templates. oneTBB has no public steal or
// queue API, so each spawned functor carries the index of the worker that
// spawned it: when it starts on that worker it was popped, elsewhere stolen
// (docs/design.md "The engine"; [HERMES] §3.1).
//
// Hot path: every call touches the calling thread's own record and its
// worker's engine slot only (no lock, no allocation, no system call). The
// common case — a thread inside one of its scopes, popping its own tasks — is
// inline; the first scope of a thread (its worker is looked up), steals,
// idleness and dynamic binding are out of line (task_events.cpp). A scope
// opened under an observer that has ended since does nothing at its end.
#pragma once

#include <cstdint>

#include "rubato/tbb/detail/thread_record.hpp"

namespace rubato::tbb::detail {

// True while an observer with a live session collects task events.
bool observing() noexcept;

// Out of line: the calling thread outside its scopes (or no observer).
worker_index note_spawn_looked_up(bool say_unobserved) noexcept;

// The calling thread spawns one task: counts a push on its worker and returns
// the worker's index, to be carried by the task.
[[gnu::always_inline]] inline worker_index spawn_in_scope(ThreadRecord& t) noexcept {
  t.engine->push(t.worker, *t.slot);
  ++t.unpopped;
  return t.worker;
}

inline worker_index note_spawn() noexcept {
  if (ThreadRecord* t = record_in_scope()) [[likely]]
    return spawn_in_scope(*t);
  return note_spawn_looked_up(false);
}

// What task_group::run asks, in one call: `unobserved` when no observer
// collects task events (the caller hands oneTBB the plain functor), else as
// note_spawn.
inline constexpr worker_index unobserved = 0xfffffffeu;
inline worker_index note_spawn_if_observing() noexcept {
  if (ThreadRecord* t = record_in_scope()) [[likely]]
    return spawn_in_scope(*t);
  return note_spawn_looked_up(true);
}

// A spawned task was destroyed without running (its group was cancelled).
void note_discarded(worker_index spawner) noexcept;

// One task on the thread that runs it, and one blocking wait: what the
// drop-ins' scopes keep, and the preload's ITT front-end in its per-thread
// frame stack (frontends/tbb_preload/src/itt_collector.cpp). Set by begin_running /
// begin_waiting below, no member initializers (see task_scope).
struct running_task {
  task_frame frame;      // t.frame while the task runs
  bool resumes_segment;  // started inside an open segment: its parent's resumes at its end
};
struct waiting_task {
  task_frame* frame;  // of the waiting task
  bool was_waiting;   // it was in a wait already (one the front-end did not see)
  bool resumes_segment;
};

// `in_scope`: the thread is inside one of its scopes already.
[[gnu::always_inline]] inline void begin_running(ThreadRecord& t, worker_index spawner, bool in_scope,
                                                 running_task& r) noexcept {
  ++t.scopes;
  // A pop inside one of this thread's scopes follows its last segment end
  // (see open_segment); the first scope of a thread back from the scheduler's
  // loop, or a steal, does not.
  bool follows_last_end = in_scope;
  if (spawner == t.worker) [[likely]] {
    t.engine->pop(t.worker, *t.slot);
    --t.unpopped;
  } else {
    if (spawner != no_worker) t.engine->steal(t.worker, spawner);
    follows_last_end = false;
  }
  t.idle = false;
  // A task started inside a still-open segment: its parent runs it from a
  // oneTBB wait the front-end did not see (e.g. a plain tbb::task_group::wait).
  r.resumes_segment = t.segment_open;
  if (r.resumes_segment) [[unlikely]] {
    close_segment(t, false);
    follows_last_end = true;  // the same instant
  }
  r.frame = task_frame{t.unpopped, t.frame, false};
  t.frame = &r.frame;
  open_segment(t, follows_last_end);
}

[[gnu::always_inline]] inline void end_running(ThreadRecord& t, running_task& r) noexcept {
  --t.scopes;
  if (t.segment_open) close_segment(t, true);
  t.frame = r.frame.outer;
  if (r.resumes_segment) [[unlikely]]
    open_segment(t, true);  // the parent resumes at the child's end
  else maybe_idle(t);
}

[[gnu::always_inline]] inline void begin_waiting(ThreadRecord& t, waiting_task& w) noexcept {
  ++t.scopes;
  w.resumes_segment = t.segment_open;
  if (w.resumes_segment) close_segment(t, false);
  w.frame = t.frame;
  w.was_waiting = w.frame->waiting;
  w.frame->waiting = true;
  maybe_idle(t);
}

[[gnu::always_inline]] inline void end_waiting(ThreadRecord& t, waiting_task& w) noexcept {
  --t.scopes;
  w.frame->waiting = w.was_waiting;
  t.idle = false;  // the waiting task continues: the worker has work again
  if (!w.resumes_segment) {
    t.engine->serial_begin(t.worker);  // a wait of the program's serial part: back to work
    return;
  }
  // Every task this thread pushed since the waiting task started was popped
  // here again: no child was stolen, so the wait had nothing to wait for and
  // ended when the last child's segment did: the resume continues the run.
  // (oneTBB thieves take the oldest tasks first, so a pop of an older task here
  // cannot hide a stolen child.) Otherwise the thread may have waited: a new run.
  open_segment(t, all_children_ran_here(t, *w.frame));
}

// Around one spawned task's body, on the thread that runs it: pop or steal,
// the task's time segment, idle detection when it ends.
class task_scope {
 public:
  [[gnu::always_inline]] explicit task_scope(worker_index spawner) noexcept {
    if (ThreadRecord* t = record_in_scope()) [[likely]]
      begin(*t, spawner, true);
    else begin_first(spawner);
  }
  // Nothing to undo when nothing was opened, or when the observer it was
  // opened under has ended since (the thread's record belongs to it: the next
  // scope under a new observer starts the record afresh).
  [[gnu::always_inline]] ~task_scope() {
    if (generation_ == g_task_generation.load(std::memory_order_relaxed)) [[likely]]
      end(t_record);
  }
  task_scope(const task_scope&) = delete;
  task_scope& operator=(const task_scope&) = delete;

 private:
  // always_inline as before the helpers were shared with the preload: left to
  // the compiler, these stayed calls (+30 instructions per fib task, callgrind).
  [[gnu::always_inline]] void begin(ThreadRecord& t, worker_index spawner, bool in_scope) noexcept {
    begin_running(t, spawner, in_scope, running_);
    generation_ = t.generation;
  }
  void begin_first(worker_index spawner) noexcept;  // out of line: the thread outside its scopes
  [[gnu::always_inline]] void end(ThreadRecord& t) noexcept { end_running(t, running_); }

  // Only generation_ is initialized here: the rest is set by begin (what is
  // zeroed needlessly costs a few instructions per task).
  std::uint64_t generation_ = kNoGeneration;  // nothing to undo
  running_task running_;
};

// Around a blocking wait of the calling thread (task_group::wait, the inner
// wait of parallel_for / parallel_invoke): the running task's segment pauses,
// and the tasks the thread runs meanwhile are checked for idleness.
class wait_scope {
 public:
  [[gnu::always_inline]] wait_scope() noexcept {
    if (ThreadRecord* t = record_in_scope()) [[likely]]
      begin(*t);
    else begin_first();
  }
  [[gnu::always_inline]] ~wait_scope() {  // as ~task_scope
    if (generation_ == g_task_generation.load(std::memory_order_relaxed)) [[likely]]
      end(t_record);
  }
  wait_scope(const wait_scope&) = delete;
  wait_scope& operator=(const wait_scope&) = delete;

 private:
  [[gnu::always_inline]] void begin(ThreadRecord& t) noexcept {  // as task_scope's
    begin_waiting(t, waiting_);
    generation_ = t.generation;
  }
  void begin_first() noexcept;  // out of line, as task_scope's
  [[gnu::always_inline]] void end(ThreadRecord& t) noexcept { end_waiting(t, waiting_); }

  std::uint64_t generation_ = kNoGeneration;  // as task_scope's, the only member set here
  waiting_task waiting_;
};

}  // namespace rubato::tbb::detail
