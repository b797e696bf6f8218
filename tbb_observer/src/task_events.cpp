// The drop-ins' engine events (see rubato/tbb/detail/task_events.hpp).
//
// Push: the spawning thread, when the task is handed to oneTBB. Pop / steal:
// the running thread, when the task's body starts, by comparing its slot with
// the spawner's carried index. Segments: one per task body; a wait pauses the
// running task's segment and resumes it afterwards, so that the tasks the
// waiting thread runs meanwhile have their own (a thread has one segment open
// at a time, DESIGN.md "The engine").
#include <oneapi/tbb/task_arena.h>

#include "frontend.hpp"
#include "rubato/tbb/detail/task_events.hpp"
#include "thread_record.hpp"

namespace rubato::tbb::detail {

bool observing() noexcept {
  const Frontend* fe = active_frontend();
  return fe && fe->level == EventLevel::tasks;
}

namespace {

[[gnu::always_inline]] inline worker_index spawn_on(Frontend* fe) noexcept {
  ThreadRecord& t = record_for(*fe);
  const WorkerId w = worker_of(*fe, t);
  if (w == kNoWorker) return no_worker;
  fe->engine.push(w, *t.slot);
  ++t.pushes;
  return w;
}

}  // namespace

worker_index note_spawn() noexcept {
  Frontend* fe = active_frontend();
  if (!fe || fe->level != EventLevel::tasks) return no_worker;
  return spawn_on(fe);
}

worker_index note_spawn_if_observing() noexcept {
  Frontend* fe = active_frontend();
  if (!fe || fe->level != EventLevel::tasks) return unobserved;
  return spawn_on(fe);
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
  ++t.pops;
}

namespace {

// The calling thread entering a task or wait scope: its front-end, record and
// worker, or no front-end when task events are not observed here.
struct ScopeEntry {
  Frontend* fe = nullptr;
  ThreadRecord* t = nullptr;
  WorkerId w = kNoWorker;
};

[[gnu::always_inline]] inline ScopeEntry enter_scope() noexcept {
  Frontend* fe = active_frontend();
  if (!fe || fe->level != EventLevel::tasks) return {};
  ThreadRecord& t = record_for(*fe);
  const WorkerId w = worker_of(*fe, t);
  if (w == kNoWorker) return {};
  ++t.scopes;
  return {fe, &t, w};
}

// Leaving a scope opened under `generation`: the record, or no front-end when
// that observer has ended meanwhile.
[[gnu::always_inline]] inline ScopeEntry leave_scope(std::uint64_t generation, WorkerId w) noexcept {
  if (generation == 0) return {};
  Frontend* fe = active_frontend();
  if (!fe || fe->generation != generation) return {};
  ThreadRecord& t = record_for(*fe);
  --t.scopes;
  return {fe, &t, w};
}

// Pauses the thread's open segment, if any; true when there was one to resume later.
[[gnu::always_inline]] inline bool pause_segment(const ScopeEntry& e) noexcept {
  if (!e.t->segment_open) return false;
  close_segment(*e.fe, *e.t, e.w, false);
  return true;
}

}  // namespace

task_scope::task_scope(worker_index spawner) noexcept {
  const ScopeEntry e = enter_scope();
  if (!e.fe) return;
  ThreadRecord& t = *e.t;
  // A pop inside one of this thread's scopes follows its last segment end
  // (see open_segment); the first scope of a thread back from the scheduler's
  // loop, or a steal, does not.
  bool follows_last_end = t.scopes > 1;
  if (spawner == e.w) {
    e.fe->engine.pop(e.w, *t.slot);
    ++t.pops;
  } else {
    if (spawner != no_worker) e.fe->engine.steal(e.w, spawner);
    follows_last_end = false;
  }
  t.idle = false;
  // A task started inside a still-open segment: its parent runs it from a
  // oneTBB wait the drop-ins did not see (e.g. a plain tbb::task_group::wait).
  resumes_segment_ = pause_segment(e);
  if (resumes_segment_) follows_last_end = true;  // the same instant
  outer_wait_ = t.waiting;
  outer_task_base_ = t.task_base;
  t.waiting = nullptr;
  t.task_base = wait_frame{t.pushes, t.pops};
  open_segment(*e.fe, t, e.w, follows_last_end);
  worker_ = e.w;
  generation_ = e.fe->generation;
}

void task_scope::end() noexcept {
  const ScopeEntry e = leave_scope(generation_, worker_);
  if (!e.fe) return;
  ThreadRecord& t = *e.t;
  if (t.segment_open) close_segment(*e.fe, t, e.w, true);
  t.waiting = outer_wait_;
  t.task_base = outer_task_base_;
  if (resumes_segment_)
    open_segment(*e.fe, t, e.w, true);  // the parent resumes at the child's end
  else
    maybe_idle(*e.fe, t, e.w);
}

wait_scope::wait_scope() noexcept {
  const ScopeEntry e = enter_scope();
  if (!e.fe) return;
  ThreadRecord& t = *e.t;
  resumes_segment_ = pause_segment(e);
  frame_ = t.task_base;
  outer_wait_ = t.waiting;
  t.waiting = &frame_;
  maybe_idle(*e.fe, t, e.w);
  worker_ = e.w;
  generation_ = e.fe->generation;
}

void wait_scope::end() noexcept {
  const ScopeEntry e = leave_scope(generation_, worker_);
  if (!e.fe) return;
  ThreadRecord& t = *e.t;
  t.waiting = outer_wait_;
  t.idle = false;  // the waiting task continues: the worker has work again
  if (!resumes_segment_) return;
  // Every task this thread pushed since the waiting task started was popped
  // here again: no child was stolen, so the wait had nothing to wait for and
  // ended when the last child's segment did: the resume continues the run.
  // (oneTBB thieves take the oldest tasks first, so a pop of an older task here
  // cannot hide a stolen child.) Otherwise the thread may have waited: a new run.
  const bool nothing_stolen = t.pushes - frame_.base_pushes <= t.pops - frame_.base_pops;
  open_segment(*e.fe, t, e.w, nothing_stolen);
}

}  // namespace rubato::tbb::detail
