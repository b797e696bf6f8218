// The drop-ins' engine events: the out-of-line parts (the common path is
// inline in rubato/tbb/detail/task_events.hpp).
//
// Push: the spawning thread, when the task is handed to oneTBB. Pop / steal:
// the running thread, when the task's body starts, by comparing its slot with
// the spawner's carried index. Segments: one per task body; a wait pauses the
// running task's segment and resumes it afterwards, so that the tasks the
// waiting thread runs meanwhile have their own (a thread has one segment open
// at a time, docs/design.md "The engine").
#include "rubato/tbb/detail/task_events.hpp"

#include "frontend.hpp"
#include "thread_lookup.hpp"

namespace rubato::tbb::detail {

bool observing() noexcept {
  const Frontend* fe = active_frontend();
  return fe && fe->level == EventLevel::tasks;
}

worker_index note_spawn_looked_up(bool say_unobserved) noexcept {
  Frontend* fe = active_frontend();
  if (!fe || fe->level != EventLevel::tasks) return say_unobserved ? unobserved : no_worker;
  ThreadRecord& t = record_for(*fe);
  return worker_of(*fe, t) == kNoWorker ? no_worker : spawn_in_scope(t);
}

namespace {

// The calling thread's record when it is a worker of the active front-end's
// arena (its worker looked up and announced), else nullptr.
ThreadRecord* enter_first_scope() noexcept {
  Frontend* fe = active_frontend();
  if (!fe || fe->level != EventLevel::tasks) return nullptr;
  ThreadRecord& t = record_for(*fe);
  return worker_of(*fe, t) == kNoWorker ? nullptr : &t;
}

}  // namespace

void task_scope::begin_first(worker_index spawner) noexcept {
  if (ThreadRecord* t = enter_first_scope()) begin(*t, spawner, t->scopes > 0);
}

void wait_scope::begin_first() noexcept {
  if (ThreadRecord* t = enter_first_scope()) begin(*t);
}

void note_discarded(worker_index spawner) noexcept {
  Frontend* fe = active_frontend();
  if (!fe || spawner == no_worker) return;
  fe->discarded.fetch_add(1, std::memory_order_relaxed);
  // Dropped on its spawner: it left that worker's queue, as a pop would. A drop
  // elsewhere cannot touch the spawner's slot (only its owner writes it); the
  // report's note on cancelled tasks covers that rare case.
  ThreadRecord& t = record_for(*fe);
  const WorkerId w = worker_of(*fe, t);
  if (w != spawner) return;
  fe->engine.pop(w);
  --t.unpopped;
}

void bind_before_segment(ThreadRecord& t) noexcept { t.frontend->session.before_task(t.worker); }

void bind_after_segment(ThreadRecord& t) noexcept { t.frontend->session.after_task(t.worker); }

void end_run(ThreadRecord& t) noexcept { t.engine->run_end(t.worker); }

void report_idle(ThreadRecord& t) noexcept {
  t.engine->run_end(t.worker);  // it may wait from here on
  if (t.idle) return;
  t.engine->idle(t.worker);
  t.idle = true;
}

}  // namespace rubato::tbb::detail
