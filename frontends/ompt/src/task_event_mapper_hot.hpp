// The OMPT front-end's per-task paths, inline so that the callback wrappers
// in ompt_tool.cpp run them without further calls: the entry points of the
// per-task events with their fast paths (below "fast paths"), and the segment
// and idle bookkeeping the general paths share. Everything else is out of
// line in task_event_mapper.cpp. Included by task_event_mapper.hpp only.
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
  if (typed_ && ts.slot) engine_.set_task_type(*ts.slot, TaskMark::type_of(task));
  if (ts.slot) [[likely]]
    engine_.segment_begin(*ts.slot);
  else engine_.segment_begin(ts.worker);  // counted as dropped
  if (options_.dynamic_binding) session_.before_task(ts.worker);
}

inline void TaskEventMapper::close_segment(ThreadState& ts, SegmentEnd how, bool completed) noexcept {
  if (ts.segment_task == 0) return;
  if (ts.slot) [[likely]]
    engine_.segment_end(ts.worker, *ts.slot, completed);
  else engine_.segment_end(ts.worker, completed);  // counted as dropped
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
  return ts.unpopped <= task.base_unpopped;
}

// Idle detection: the rule is explained in task_event_mapper.cpp ("idle detection").
// The waits in which a thread looks for tasks to run.
inline constexpr bool runs_tasks_in(WaitKind wait) noexcept {
  return wait == WaitKind::barrier || wait == WaitKind::taskwait || wait == WaitKind::taskgroup;
}

// A thread back in `waiting`'s wait (of kind `wait`: the frame may not say it
// yet) that goes on with work of its own: nothing for maybe_idle to do.
inline bool TaskEventMapper::keeps_working(const ThreadState& ts, const Frame& waiting, WaitKind wait) const noexcept {
  if (!runs_tasks_in(wait)) return false;
  if (engine_.depth(*ts.slot) > 0) return true;                            // it runs its own queued tasks next
  return wait != WaitKind::barrier && all_children_ran_here(ts, waiting);  // the task's wait ends at once
}

inline void TaskEventMapper::maybe_idle(ThreadState& ts, const Frame& waiting) noexcept {
  if (keeps_working(ts, waiting, waiting.wait)) return;
  if (runs_tasks_in(waiting.wait)) engine_.idle(ts.worker);  // out of work
  end_run(ts);  // out of work, or a wait of another kind: the thread may wait here
}

inline void TaskEventMapper::end_run(ThreadState& ts) noexcept {
  if (ts.worker != kNoWorker) engine_.run_end(ts.worker);
}

// The task kinds of task_create's flags, as mark bits. An undeferred task
// (if(0), final, serialized team, included) runs at once on its creator: it
// never enters a queue. A task without the explicit flag (a target task) is
// not ours to count.
inline std::uint64_t TaskEventMapper::created_kind(int flags) noexcept {
  std::uint64_t m = 0;
  if (flags & ompt_task_explicit) {
    m |= TaskMark::kExplicit | TaskMark::kTimed;
    if (!(flags & ompt_task_undeferred)) m |= TaskMark::kDeferred;
  }
  if (flags & ompt_task_untied) m |= TaskMark::kUntied;
  return m;
}

// ---- fast paths ---------------------------------------------------------------------------
//
// The events a fine-grained program makes per task, when nothing is traced or
// bound per task: a task created, a thread starting a task it created on top of
// the one it runs or waits in, a task completing back into the one below it,
// and the taskwait around them. Each does what the general path
// (task_event_mapper.cpp) does for that case, and makes no call but in tail
// position: the general path when a check fails, or the engine's workload
// update (a workload policy's push and pop). Whatever needs a call on the way
// — a clock read (a run to open, a chained segment end that reads it),
// idleness — is decided before anything is changed, and left to the general
// path. So the entry points below, inlined into the OMPT callbacks, end in a
// jump and save no register; the fast paths they jump to are functions of
// their own, each allocating registers for its case only (fewer saved).

[[gnu::always_inline]] inline ThreadState* TaskEventMapper::fast_state(ompt_data_t* thread) const noexcept {
  if (!plain_ || !thread) [[unlikely]]
    return nullptr;
  auto* ts = static_cast<ThreadState*>(thread->ptr);
  return ts && ts->worker != kNoWorker ? ts : nullptr;  // a worker's state has its slot
}

// A segment chained to the open run (engine_.run_open): segment_begin would
// do nothing, and how it started is only kept for a trace.
[[gnu::always_inline]] inline void TaskEventMapper::chain_segment(ThreadState& ts, std::uint64_t task) noexcept {
  ts.segment_task = task;
}

[[gnu::always_inline]] inline void TaskEventMapper::task_create(ompt_data_t* thread, ompt_data_t* parent,
                                                                ompt_data_t* task, int flags,
                                                                bool has_dependences) noexcept {
  ThreadState* ts = fast_state(thread);
  if (!ts) [[unlikely]]
    return task_create_general(thread, parent, task, flags, has_dependences);
  const std::uint64_t kind = created_kind(flags);
  mapper_detail::set_mark(task, TaskMark::make(ts->worker, ts->next_seq++, kind));
  if (!(kind & TaskMark::kDeferred)) return;
  ++ts->unpopped;
  return engine_.push(ts->worker, *ts->slot);
}

[[gnu::always_inline]] inline void TaskEventMapper::task_schedule(ompt_data_t* thread, ompt_data_t* prior,
                                                                  ompt_task_status_t status,
                                                                  ompt_data_t* next) noexcept {
  if (ThreadState* ts = fast_state(thread); ts && prior && next) [[likely]] {
    if (status == ompt_task_switch)
      return ts->segment_task == 0 ? fast_start<false>(*ts, prior, next) : fast_start<true>(*ts, prior, next);
    if (status == ompt_task_complete) return fast_complete(*ts, prior, next);
  }
  return task_schedule_slow(thread, prior, status, next);
}

// A new tied task, undeferred (it runs at once: an if(0) or final task, a
// serialized team's) or from this thread's own queue (a pop), on top of the
// task below — which waits, or (`suspends`: its segment is open) runs and is
// suspended. Two functions, so that the second's extra check does not cost
// the first its registers.
template <bool suspends>
[[gnu::noinline]] void TaskEventMapper::fast_start(ThreadState& ts, ompt_data_t* prior, ompt_data_t* next) noexcept {
  const TaskMark pm(prior->value);
  const TaskMark nm(next->value);
  const std::uint32_t depth = ts.depth;
  constexpr std::uint64_t kKind = TaskMark::kExplicit | TaskMark::kStarted | TaskMark::kUntied;
  const bool deferred = nm.has(TaskMark::kDeferred);
  const bool timed = nm.has(TaskMark::kTimed);
  if ((nm.word() & kKind) != TaskMark::kExplicit || (deferred && !nm.created_by(ts.worker)) ||
      (suspends && (ts.segment_task != pm.id() || engine_.segment_end_reads_clock(*ts.slot))) || depth == 0 ||
      depth >= kMaxFrames || ts.frames[depth - 1].task != pm.id() || (timed && !engine_.run_open(*ts.slot)))
      [[unlikely]]
    return task_schedule_general(ts, prior, ompt_task_switch, next);
  mapper_detail::set_mark(next, nm.with(TaskMark::kStarted));
  if constexpr (suspends) {
    engine_.count_segment_end(*ts.slot, false);
    ts.segment_task = 0;
  }
  // The frame's base does not count the task itself, as in the general path.
  const std::int64_t unpopped = ts.unpopped - (deferred ? 1 : 0);
  ts.frames[depth] = Frame{nm.id(), unpopped, mapper_detail::kNotWaiting, timed};
  ts.depth = depth + 1;
  if (timed) chain_segment(ts, nm.id());
  if (!deferred) return;
  ts.unpopped = unpopped;
  return engine_.pop(ts.worker, *ts.slot);
}

// A task completing back into the task below it: the task resumes, or its
// wait goes on with work of the thread's own.
[[gnu::noinline]] inline void TaskEventMapper::fast_complete(ThreadState& ts, ompt_data_t* prior,
                                                             ompt_data_t* next) noexcept {
  const TaskMark pm(prior->value);
  const TaskMark nm(next->value);
  const std::uint32_t depth = ts.depth;
  constexpr std::uint64_t kRan = TaskMark::kExplicit | TaskMark::kStarted;
  if ((pm.word() & kRan) != kRan || depth < 2 || depth > kMaxFrames || ts.segment_task != pm.id() ||
      ts.frames[depth - 1].task != pm.id() || ts.frames[depth - 2].task != nm.id()) [[unlikely]]
    return task_schedule_general(ts, prior, ompt_task_complete, next);
  Engine::Slot& s = *ts.slot;
  const Frame& back = ts.frames[depth - 2];
  const bool waiting = back.wait != mapper_detail::kNotWaiting;
  const bool resumes = !waiting && nm.has(TaskMark::kTimed);
  if (engine_.segment_end_reads_clock(s) || (waiting && !keeps_working(ts, back, back.wait)) ||
      (resumes && !engine_.run_open(s))) [[unlikely]]
    return task_schedule_general(ts, prior, ompt_task_complete, next);
  engine_.count_segment_end(s, true);
  ts.segment_task = 0;
  ts.depth = depth - 1;
  if (resumes) chain_segment(ts, nm.id());
}

[[gnu::always_inline]] inline void TaskEventMapper::sync_region_wait(ompt_data_t* thread, ompt_sync_region_t kind,
                                                                     ompt_scope_endpoint_t endpoint,
                                                                     ompt_data_t* task) noexcept {
  if (kind == ompt_sync_region_taskwait && task) [[likely]]
    if (ThreadState* ts = fast_state(thread)) [[likely]]
      return endpoint == ompt_scope_begin ? fast_taskwait_begin(*ts, task) : fast_taskwait_end(*ts, task);
  return sync_region_wait_slow(thread, kind, endpoint, task);
}

// The task on top of the stack waits for its children, and the thread goes on
// with its own queue (or every child already ran here).
[[gnu::noinline]] inline void TaskEventMapper::fast_taskwait_begin(ThreadState& ts, ompt_data_t* task) noexcept {
  const TaskMark m(task->value);
  Frame* top = ts.top();
  Engine::Slot& s = *ts.slot;
  const bool segment_open = ts.segment_task != 0;
  if (!top || top->task != m.id() || (segment_open && engine_.segment_end_reads_clock(s)) ||
      !keeps_working(ts, *top, WaitKind::taskwait)) [[unlikely]]
    return sync_region_wait_general(ts, ompt_sync_region_taskwait, ompt_scope_begin, task);
  if (segment_open) {
    engine_.count_segment_end(s, false);
    ts.segment_task = 0;
  }
  top->wait = WaitKind::taskwait;
}

// The taskwait ends, and every child ran here: no stolen child was waited
// for, and the task continues the run.
[[gnu::noinline]] inline void TaskEventMapper::fast_taskwait_end(ThreadState& ts, ompt_data_t* task) noexcept {
  const TaskMark m(task->value);
  Frame* top = ts.top();
  const bool resumes = m.has(TaskMark::kTimed) && ts.segment_task == 0;
  if (!top || top->task != m.id() || top->wait != WaitKind::taskwait || !all_children_ran_here(ts, *top) ||
      (resumes && !engine_.run_open(*ts.slot))) [[unlikely]]
    return sync_region_wait_general(ts, ompt_sync_region_taskwait, ompt_scope_end, task);
  top->wait = mapper_detail::kNotWaiting;
  if (resumes) chain_segment(ts, m.id());
}

}  // namespace rubato::ompt
