// The OMPT front-end's per-task paths, inline so that the callback wrappers
// in ompt_tool.cpp run them without further calls: task creation, the two
// task switches a fine-grained program makes per task, and the segment
// bookkeeping they share. Everything else is out of line in
// task_event_mapper.cpp. Included by task_event_mapper.hpp only.
#pragma once

namespace rubato::ompt {

namespace mapper_detail {
inline constexpr WaitKind kNotWaiting{};
inline TaskMark mark_of(const ompt_data_t* task) noexcept { return task ? TaskMark(task->value) : TaskMark(); }
inline void set_mark(ompt_data_t* task, TaskMark m) noexcept { task->value = m.word(); }
}  // namespace mapper_detail

[[gnu::always_inline]] inline ThreadState* TaskEventMapper::state(ompt_data_t* thread, WorkerId preferred) noexcept {
  if (!thread) [[unlikely]]
    return &unobserved_;  // not an OpenMP thread as far as libomp knows
  auto* ts = static_cast<ThreadState*>(thread->ptr);
  return ts ? ts : claim(thread, preferred);
}

// No clock read per task switch: segments are chained in the engine (see
// Engine::segment_begin). A task popped from the thread's own queue (or run
// inline, or resumed on top of the one that just stopped) continues the busy
// run of the thread's previous segment — the thread went straight from that
// end through libomp's dispatch to this start, it had work of its own. Busy
// time (and the emulator's stretch) then covers that dispatch code, which runs
// at the worker's frequency like the tasks, but never a wait: wherever the
// thread may wait — maybe_idle found it out of work, a barrier, the end of a
// region, a park — end_run closes the run at once, and a steal, the end of a
// taskwait / barrier or a new region starts a new one. A trace keeps exact
// segment times of its own (one read per record).
inline void TaskEventMapper::open_segment(ThreadState& ts, std::uint64_t task, SegmentStart how) noexcept {
  ts.segment_task = task;
  ts.segment_start = how;
  if (tracing()) ts.segment_start_ns = trace_now();
  if (ts.slot) [[likely]]
    engine_.segment_begin(*ts.slot);
  else
    engine_.segment_begin(ts.worker);  // counted as dropped
  if (options_.dynamic_binding) session_.before_task(ts.worker);
}

inline void TaskEventMapper::close_segment(ThreadState& ts, SegmentEnd how, bool completed) noexcept {
  if (ts.segment_task == 0) return;
  if (ts.slot) [[likely]]
    engine_.segment_end(ts.worker, *ts.slot, completed);
  else
    engine_.segment_end(ts.worker, completed);  // counted as dropped
  if (options_.dynamic_binding) session_.after_task(ts.worker);
  if (tracing() && TaskMark::id_has_creator(ts.segment_task)) record_segment(ts, how);
  ts.segment_task = 0;
}

inline std::uint64_t TaskEventMapper::next_seq(ThreadState& ts) noexcept {
  if (ts.worker != kNoWorker) return ts.next_seq++;
  return unobserved_seq_.fetch_add(1, std::memory_order_relaxed);
}

// Every task this thread pushed since `task` started here was popped here
// again: none of its children (or their descendants) ran on another worker.
inline bool TaskEventMapper::all_children_ran_here(const ThreadState& ts, const Frame& task) noexcept {
  return ts.pushes - task.base_pushes <= ts.pops - task.base_pops;
}

// Idle detection: the rule is explained in task_event_mapper.cpp ("idle detection").
inline void TaskEventMapper::maybe_idle(ThreadState& ts, const Frame& waiting) noexcept {
  const bool task_wait = waiting.wait == WaitKind::taskwait || waiting.wait == WaitKind::taskgroup;
  if (waiting.wait == WaitKind::barrier || task_wait) {
    if (ts.slot && engine_.depth(*ts.slot) > 0) return;  // it runs its own queued tasks next
    if (task_wait && all_children_ran_here(ts, waiting))
      return;  // every child ran here: the wait ends at once
    engine_.idle(ts.worker);
  }
  // Out of work, or a wait of another kind: the thread may wait here.
  end_run(ts);
}

inline void TaskEventMapper::end_run(ThreadState& ts) noexcept {
  if (ts.worker != kNoWorker) engine_.run_end(ts.worker);
}

[[gnu::always_inline]] inline void TaskEventMapper::task_create(ompt_data_t* thread, ompt_data_t* parent,
                                                                ompt_data_t* task, int flags,
                                                                bool has_dependences) noexcept {
  ThreadState& ts = *state(thread, kNoWorker);
  const WorkerId w = ts.worker;
  std::uint64_t m = 0;
  // An undeferred task (if(0), final, serialized team, included) runs at once
  // on its creator: it never enters a queue. A task without the explicit flag
  // (a target task) is not ours to count.
  const bool is_explicit = (flags & ompt_task_explicit) != 0;
  const bool deferred = is_explicit && !(flags & ompt_task_undeferred);
  if (is_explicit) m |= TaskMark::kExplicit | TaskMark::kTimed;
  if (deferred) m |= TaskMark::kDeferred;
  if (flags & ompt_task_untied) m |= TaskMark::kUntied;
  const TaskMark mark = TaskMark::make(w, next_seq(ts), m);
  mapper_detail::set_mark(task, mark);
  if (w == kNoWorker) return;
  if (deferred) {
    engine_.push(w, *ts.slot);  // a worker's state has its slot
    ++ts.pushes;
  }
  if (tracing() && is_explicit) record_create(ts, parent, mark, flags, deferred, has_dependences);
}

[[gnu::always_inline]] inline void TaskEventMapper::task_schedule(ompt_data_t* thread, ompt_data_t* prior,
                                                                  ompt_task_status_t status, ompt_data_t* next) noexcept {
  // early / late fulfill report a detached task's completion event: no segment,
  // and the task was already counted as completed when its body finished.
  if (status == ompt_task_early_fulfill || status == ompt_task_late_fulfill) return;
  ThreadState& ts = *state(thread, kNoWorker);
  if (plain_ && ts.worker != kNoWorker && fast_task_schedule(ts, prior, status, next)) [[likely]]
    return;
  task_schedule_general(ts, prior, status, next);
}

// The two switches a fine-grained program makes per task, with only the checks
// that decide them: a thread starting a task it created on top of the one it
// runs or waits in, and a task completing back into the one below it. Each
// does what task_schedule_general (task_event_mapper.cpp) does for that case;
// anything else (a steal, a segment left open, an untied task, a stack that
// does not match, tracing, per-task binding) returns false and takes that path.
[[gnu::always_inline]] inline bool TaskEventMapper::fast_task_schedule(ThreadState& ts, ompt_data_t* prior,
                                                                       ompt_task_status_t status,
                                                                       ompt_data_t* next) noexcept {
  if (!prior || !next) return false;
  const TaskMark pm = mapper_detail::mark_of(prior);
  const TaskMark nm = mapper_detail::mark_of(next);
  const std::uint32_t depth = ts.depth;
  if (status == ompt_task_switch) {
    // A new tied task, undeferred (it runs at once, a serialized team's are) or
    // from this thread's own queue.
    constexpr std::uint64_t kKind = TaskMark::kExplicit | TaskMark::kStarted | TaskMark::kUntied;
    const bool deferred = nm.has(TaskMark::kDeferred);
    if ((nm.word() & kKind) != TaskMark::kExplicit || (deferred && nm.creator() != ts.worker) ||
        ts.segment_task != 0 || depth == 0 || depth >= kMaxFrames || ts.frames[depth - 1].task != pm.id())
      return false;
    mapper_detail::set_mark(next, nm.with(TaskMark::kStarted));
    if (deferred) {
      engine_.pop(ts.worker, *ts.slot);
      ++ts.pops;
    }
    ts.frames[depth] = Frame{nm.id(), ts.pushes, ts.pops, mapper_detail::kNotWaiting, nm.has(TaskMark::kTimed)};
    ts.depth = depth + 1;
    if (nm.has(TaskMark::kTimed)) open_segment(ts, nm.id(), deferred ? SegmentStart::pop : SegmentStart::inline_);
    return true;
  }
  if (status == ompt_task_complete) {
    constexpr std::uint64_t kRan = TaskMark::kExplicit | TaskMark::kStarted;
    if ((pm.word() & kRan) != kRan || depth < 2 || depth > kMaxFrames || ts.segment_task != pm.id() ||
        ts.frames[depth - 1].task != pm.id() || ts.frames[depth - 2].task != nm.id())
      return false;
    close_segment(ts, SegmentEnd::completed, true);
    ts.depth = depth - 1;
    const Frame& back = ts.frames[depth - 2];
    if (back.wait != mapper_detail::kNotWaiting)
      maybe_idle(ts, back);
    else if (nm.has(TaskMark::kTimed))
      open_segment(ts, nm.id(), SegmentStart::resume);
    return true;
  }
  return false;
}

// A taskwait of the task on top of the stack, when nothing is traced or bound
// per task: what sync_region_wait_general does for it, without its checks.
[[gnu::always_inline]] inline bool TaskEventMapper::fast_taskwait(ThreadState& ts, ompt_scope_endpoint_t endpoint,
                                                                  ompt_data_t* task) noexcept {
  const TaskMark m = mapper_detail::mark_of(task);
  Frame* top = ts.top();
  if (!top || top->task != m.id()) return false;
  if (endpoint == ompt_scope_begin) {
    close_segment(ts, SegmentEnd::waiting, false);
    top->wait = WaitKind::taskwait;
    maybe_idle(ts, *top);
  } else {
    const bool nothing_stolen = top->wait == WaitKind::taskwait && all_children_ran_here(ts, *top);
    top->wait = mapper_detail::kNotWaiting;
    if (!nothing_stolen) end_run(ts);
    if (m.has(TaskMark::kTimed) && ts.segment_task == 0) open_segment(ts, m.id(), SegmentStart::resume);
  }
  return true;
}

[[gnu::always_inline]] inline void TaskEventMapper::sync_region_wait(ompt_data_t* thread, ompt_sync_region_t kind,
                                                                     ompt_scope_endpoint_t endpoint,
                                                                     ompt_data_t* task) noexcept {
  ThreadState& ts = *state(thread, kNoWorker);
  if (plain_ && kind == ompt_sync_region_taskwait && ts.worker != kNoWorker && fast_taskwait(ts, endpoint, task))
    [[likely]] return;
  sync_region_wait_general(ts, kind, endpoint, task);
}

}  // namespace rubato::ompt
