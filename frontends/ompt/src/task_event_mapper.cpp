#include "task_event_mapper.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string>

namespace rubato::ompt {
namespace {

using mapper_detail::kNotWaiting;
using mapper_detail::mark_of;
using mapper_detail::set_mark;

WaitKind wait_kind(ompt_sync_region_t kind) noexcept {
  switch (kind) {
    case ompt_sync_region_taskwait: return WaitKind::taskwait;
    case ompt_sync_region_taskgroup: return WaitKind::taskgroup;
    case ompt_sync_region_barrier:
    case ompt_sync_region_barrier_implicit:
    case ompt_sync_region_barrier_explicit:
    case ompt_sync_region_barrier_implementation:
    case ompt_sync_region_barrier_implicit_workshare:
    case ompt_sync_region_barrier_implicit_parallel:
    case ompt_sync_region_barrier_teams: return WaitKind::barrier;
    default: return WaitKind::other;
  }
}

// The task's work is over with these (a cancelled task is discarded, a
// detached one finished its body; both count as completed).
bool finishes(ompt_task_status_t status) noexcept {
  return status == ompt_task_complete || status == ompt_task_cancel || status == ompt_task_detach;
}

std::uint32_t trace_flags(int ompt_flags, bool deferred, bool has_dependences) noexcept {
  std::uint32_t f = 0;
  if (ompt_flags & ompt_task_explicit) f |= kTraceTaskExplicit;
  if (ompt_flags & ompt_task_implicit) f |= kTraceTaskImplicit;
  if (ompt_flags & ompt_task_initial) f |= kTraceTaskInitial;
  if (ompt_flags & ompt_task_untied) f |= kTraceTaskUntied;
  if (ompt_flags & ompt_task_final) f |= kTraceTaskFinal;
  if (deferred) f |= kTraceTaskDeferred;
  if (has_dependences) f |= kTraceTaskDependences;
  return f;
}

}  // namespace

TaskEventMapper::TaskEventMapper(Session& session, TraceFileWriter* trace, const Clock& clock,
                                 std::uint64_t trace_origin_ns, MapperOptions options)
    : session_(session),
      engine_(session.engine()),
      trace_(trace),
      clock_(clock),
      trace_origin_ns_(trace_origin_ns),
      options_(options),
      typed_(engine_.records_task_types()),
      plain_(trace == nullptr && !options.dynamic_binding && !typed_),
      registry_(std::min<std::size_t>(engine_.max_workers(), TaskMark::kMaxCreator + 1)),
      states_(registry_.capacity()) {}

// ---- threads and worker identity -------------------------------------------------------

ThreadState* TaskEventMapper::claim(ompt_data_t* thread, WorkerId preferred) noexcept {
  const WorkerId w = registry_.claim(preferred);
  if (w == kNoWorker) {
    thread->ptr = &unobserved_;
    return &unobserved_;
  }
  try {
    auto& slot = states_[w];
    if (!slot) slot = std::make_unique<ThreadState>();
    ThreadState& ts = *slot;
    ts.worker = w;
    ts.slot = engine_.slot_of(w);
    ts.live = true;
    ts.depth = 0;
    ts.segment_task = 0;
    if (tracing() && !ts.trace_storage)
      ts.trace_storage = std::make_unique<TraceBlockBuffer>(options_.trace_block_bytes);
    ts.trace = ts.trace_storage.get();
    thread->ptr = &ts;
  } catch (...) {
    // Out of memory while a thread starts: this thread goes unobserved.
    registry_.release(w);
    session_.count_error();
    thread->ptr = &unobserved_;
    return &unobserved_;
  }
  session_.worker_started(w);
  if (options_.log_workers)
    std::fprintf(stderr, "rubato: worker %u is thread %ld\n", w, static_cast<long>(syscall(SYS_gettid)));
  return static_cast<ThreadState*>(thread->ptr);
}

void TaskEventMapper::thread_begin(ompt_thread_t type, ompt_data_t* thread) noexcept {
  thread->ptr = nullptr;
  // The initial thread is worker 0 when it can be; other threads are given an
  // index at their first implicit task, where their OpenMP thread number is known.
  if (type == ompt_thread_initial) claim(thread, 0);
}

void TaskEventMapper::thread_end(ompt_data_t* thread) noexcept {
  auto* ts = static_cast<ThreadState*>(thread->ptr);
  thread->ptr = nullptr;
  if (!ts || ts->worker == kNoWorker) return;
  close_segment(*ts, SegmentEnd::unfinished, false);
  end_run(*ts);
  flush(*ts);
  ts->live = false;
  session_.worker_stopped(ts->worker);
  registry_.release(ts->worker);
}

// ---- segments and the task stack --------------------------------------------------------

void TaskEventMapper::record_segment(ThreadState& ts, SegmentEnd how) noexcept {
  const std::uint64_t now = trace_now();
  record(ts, SegmentRecord{ts.segment_task, ts.worker, ts.segment_start, how,
                           static_cast<std::uint8_t>(engine_.domain_level(ts.worker)), ts.segment_start_ns,
                           now > ts.segment_start_ns ? now - ts.segment_start_ns : 0});
}

inline void TaskEventMapper::push_frame(ThreadState& ts, TaskMark task) noexcept {
  const Frame f{task.id(), ts.unpopped, kNotWaiting, task.has(TaskMark::kTimed), task.has(TaskMark::kUntied)};
  if (ts.depth < kMaxFrames) [[likely]]
    ts.frames[ts.depth] = f;
  else if (ts.depth < ts.kept_frames() || grow_frames(ts)) ts.frame(ts.depth) = f;
  else frames_overflowed();
  ++ts.depth;
}

// A new depth beyond kMaxFrames + deep_capacity: twice the deep frames (the
// first time, kMaxFrames of them). Only when nesting reaches a depth the
// thread never had, so at most log2(depth / kMaxFrames) + 1 times.
bool TaskEventMapper::grow_frames(ThreadState& ts) noexcept {
  constexpr std::uint32_t kLimit = 1u << 26;  // 64 Mi frames (1.5 GiB): beyond, a runaway recursion
  const std::uint32_t capacity = ts.deep_capacity == 0 ? static_cast<std::uint32_t>(kMaxFrames) : 2 * ts.deep_capacity;
  if (capacity > kLimit || ts.depth != ts.kept_frames()) return false;
  std::unique_ptr<Frame[]> bigger(new (std::nothrow) Frame[capacity]);
  if (!bigger) return false;
  if (ts.deep) std::copy_n(ts.deep.get(), ts.deep_capacity, bigger.get());
  ts.deep = std::move(bigger);
  ts.deep_capacity = capacity;
  return true;
}

void TaskEventMapper::frames_overflowed() noexcept {
  if (!frames_overflowed_.exchange(true, std::memory_order_relaxed))
    session_.note(
        "ompt: tasks nested too deep to keep (no memory for more frames) on one thread; idle detection "
        "and wait accounting are off beyond that depth");
}

// ---- untied tasks (docs/ompt.md, "Untied tasks") --------------------------------------------
//
// The part of an untied task that ends its body returns without a callback
// when another part of the task has not returned yet (libomp's
// td_untied_count: the task's completion is reported by the part that returns
// last, possibly on another thread). Its frame is still on top of this
// thread's stack when the thread's next callback names the task below it
// (the one the part was run from): that part ended the task here. Every
// untied frame above `named` is popped, its segment closed as completed on
// this worker. Nothing happens when `named` is not below untied frames only.
void TaskEventMapper::end_silent_parts(ThreadState& ts, std::uint64_t named) noexcept {
  const Frame* top = ts.top();
  if (!top || !top->untied || top->task == named || named == 0) return;
  std::uint32_t d = ts.depth;
  while (d > 0 && d <= ts.kept_frames() && ts.frame(d - 1).untied && ts.frame(d - 1).task != named) --d;
  if (d == 0 || d > ts.kept_frames() || ts.frame(d - 1).task != named) return;
  while (ts.depth > d) {
    const std::uint64_t task = ts.top()->task;
    if (ts.segment_task != task) {
      // Its segment was not open (it ended while suspended, or was never
      // timed): the completion still counts, on this worker.
      close_segment(ts, SegmentEnd::suspended, false);
      open_segment(ts, task, SegmentStart::resume);
    }
    close_segment(ts, SegmentEnd::completed, true);
    --ts.depth;
  }
}

bool TaskEventMapper::on_stack(ThreadState& ts, std::uint64_t task) noexcept {
  const std::uint32_t kept = std::min(ts.depth, ts.kept_frames());
  for (std::uint32_t i = kept; i > 0; --i)
    if (ts.frame(i - 1).task == task) return true;
  return false;
}

// task_schedule(T, switch, T) of an untied task T: libomp still has T as the
// thread's task while a part re-queues it, so a part that re-queues T from a
// part run nested (see below) names T twice, and so does the start of a part
// run at once, nested, when the re-queue could not queue T (a serialized team,
// final, a full deque). With T on top: a re-queue. Otherwise: a nested part.
void TaskEventMapper::untied_self_switch(ThreadState& ts, TaskMark task) noexcept {
  const Frame* top = ts.top();
  if (top && top->task == task.id()) {
    if (ts.segment_task == task.id()) close_segment(ts, SegmentEnd::requeued, false);
    --ts.depth;
    if (const Frame* back = ts.top(); back && back->wait != kNotWaiting) maybe_idle(ts, *back);
    return;
  }
  close_segment(ts, SegmentEnd::suspended, false);  // the task it runs from
  push_frame(ts, task);
  if (task.has(TaskMark::kTimed)) open_segment(ts, task.id(), SegmentStart::resume);
}

// The task on top of the stack continues (after a child, a nested region, a wait).
void TaskEventMapper::resume_top(ThreadState& ts) noexcept {
  end_run(ts);  // after a region's join barrier
  const Frame* top = ts.top();
  if (!top || top->wait != kNotWaiting) return;  // a pool thread between regions waits
  if (top->timed) open_segment(ts, top->task, SegmentStart::resume);
  else engine_.serial_begin(ts.worker);  // the initial thread runs the program's serial part: it works
}

void TaskEventMapper::inconsistent(const ThreadState& ts, const char* where) noexcept {
  const std::uint64_t n = inconsistencies_.fetch_add(1, std::memory_order_relaxed);
  session_.count_error();
  if (options_.log_workers && n < 5)
    std::fprintf(stderr, "rubato: worker %u: %s does not match the task stack (depth %u)\n", ts.worker, where,
                 ts.depth);
}

// ---- push, pop, steal ----------------------------------------------------------------------

void TaskEventMapper::record_create(ThreadState& ts, ompt_data_t* parent, TaskMark mark, int flags, bool deferred,
                                    bool has_dependences, const void* code) noexcept {
  const TaskMark pm = mark_of(parent);
  record(ts, TaskRecord{mark.id(), pm.creator() != kNoWorker ? pm.id() : 0, ts.worker,
                        trace_flags(flags, deferred, has_dependences), trace_now(),
                        reinterpret_cast<std::uintptr_t>(code)});
}

// The first real start of an explicit task: on its creator it was popped,
// elsewhere stolen from the creator (whatever deque libomp actually took it
// from: dependent tasks are queued by whoever releases them, but the queue
// entry was counted on the creator at creation).
SegmentStart TaskEventMapper::first_start(ThreadState& ts, ompt_data_t* task, TaskMark mark) noexcept {
  set_mark(task, mark.with(TaskMark::kStarted));
  if (!mark.has(TaskMark::kDeferred)) return SegmentStart::inline_;
  const WorkerId creator = mark.creator();
  if (creator == ts.worker) {
    engine_.pop(ts.worker);
    --ts.unpopped;
    return SegmentStart::pop;
  }
  engine_.steal(ts.worker, creator);  // an unknown creator is counted as dropped by the engine
  return SegmentStart::steal;
}

void TaskEventMapper::task_create_general(ompt_data_t* thread, ompt_data_t* parent, ompt_data_t* task, int flags,
                                          bool has_dependences) noexcept {
  task_create_traced(thread, parent, task, flags, has_dependences, nullptr);
}

void TaskEventMapper::task_create_traced(ompt_data_t* thread, ompt_data_t* parent, ompt_data_t* task, int flags,
                                         bool has_dependences, const void* code) noexcept {
  ThreadState& ts = *state(thread, kNoWorker);
  const std::uint64_t kind = created_kind(flags);
  const std::uint32_t type = typed_ && code && (kind & TaskMark::kExplicit) ? task_type_of(ts, code) : 0;
  const TaskMark mark = TaskMark::make(ts.worker, next_seq(ts), kind, type);
  set_mark(task, mark);
  if (ts.worker == kNoWorker) return;
  const bool deferred = (kind & TaskMark::kDeferred) != 0;
  if (deferred) {
    engine_.push(ts.worker, *ts.slot);
    ++ts.unpopped;
  }
  if (tracing() && (kind & TaskMark::kExplicit))
    record_create(ts, parent, mark, flags, deferred, has_dependences, code);
}

// The type of the task construct at `code`: this thread's cache, else the
// session's registry (a lock, once per code a thread meets in a cache slot).
std::uint32_t TaskEventMapper::task_type_of(ThreadState& ts, const void* code) noexcept {
  const auto key = reinterpret_cast<std::uintptr_t>(code);
  ThreadState::TypeCacheEntry& e = ts.type_cache[(key >> 4) % ts.type_cache.size()];
  if (e.code != code) {
    const TaskType t = session_.task_type_for(static_cast<std::uint64_t>(key));
    e.code = code;
    e.type = t <= TaskMark::kTypeMask ? t : 0;
  }
  return e.type;
}

void TaskEventMapper::task_schedule_slow(ompt_data_t* thread, ompt_data_t* prior, ompt_task_status_t status,
                                         ompt_data_t* next) noexcept {
  // early / late fulfill report a detached task's completion event: no segment,
  // and the task was already counted as completed when its body finished.
  if (status == ompt_task_early_fulfill || status == ompt_task_late_fulfill) return;
  task_schedule_general(*state(thread, kNoWorker), prior, status, next);
}

void TaskEventMapper::task_schedule_general(ThreadState& ts, ompt_data_t* prior, ompt_task_status_t status,
                                            ompt_data_t* next) noexcept {
  if (ts.worker == kNoWorker) return unattributed_start(next);

  const TaskMark pm = mark_of(prior);
  const TaskMark nm = mark_of(next);
  // Untied tasks: a part that ended silently below `prior`, a part re-queued
  // or run nested, the completion of a task whose last part ran elsewhere.
  if (pm.marked()) end_silent_parts(ts, pm.id());
  if (pm.has(TaskMark::kUntied) && prior && next && pm.id() == nm.id() && !finishes(status))
    return untied_self_switch(ts, pm);
  if (finishes(status) && pm.has(TaskMark::kUntied) && pm.has(TaskMark::kStarted) && !on_stack(ts, pm.id())) {
    // The part that returned last was an earlier one, on this thread (it
    // re-queued the task, its frame left then): the task ended where its
    // last part ran, and was counted there (end_silent_parts).
    return;
  }
  const bool leaves = end_prior(ts, prior, pm, nm, status);
  if (next) start_next(ts, next, nm, leaves);
}

void TaskEventMapper::unattributed_start(ompt_data_t* next) noexcept {
  // A thread beyond max_workers: let the engine count what it cannot attribute.
  const TaskMark nm = mark_of(next);
  if (nm.has(TaskMark::kExplicit) && !nm.has(TaskMark::kStarted) && nm.has(TaskMark::kDeferred)) {
    set_mark(next, nm.with(TaskMark::kStarted));
    engine_.steal(kNoWorker, nm.creator());
  }
}

bool TaskEventMapper::end_prior(ThreadState& ts, ompt_data_t* prior, TaskMark pm, TaskMark nm,
                                ompt_task_status_t status) noexcept {
  // The prior task's segment ends. It either leaves this thread (finished, or
  // an untied task part that re-queued the task and returns to the task below
  // it) or stays suspended below `next`.
  const Frame* below = ts.below_top();
  const bool leaves = finishes(status) || (below && nm.marked() && below->task == nm.id());
  if (ts.segment_task != 0 && ts.segment_task == pm.id()) {
    const bool completed = finishes(status) && pm.has(TaskMark::kExplicit);
    close_segment(ts,
                  finishes(status) ? SegmentEnd::completed
                  : leaves         ? SegmentEnd::requeued
                                   : SegmentEnd::suspended,
                  completed);
  }
  // An untied task that finished inside its first segment ran user code there
  // after all (no launch stub): its start is counted now.
  if (finishes(status) && prior && pm.has(TaskMark::kLaunched) && !pm.has(TaskMark::kStarted))
    first_start(ts, prior, pm);

  const Frame* top = ts.top();
  if (top && top->task != pm.id()) inconsistent(ts, "task_schedule's prior task");
  if (leaves && ts.depth > 0) --ts.depth;
  return leaves;
}

void TaskEventMapper::start_next(ThreadState& ts, ompt_data_t* next, TaskMark nm, bool prior_left) noexcept {
  // The next task starts or resumes.
  SegmentStart how = SegmentStart::resume;
  if (nm.has(TaskMark::kExplicit) && !nm.has(TaskMark::kStarted)) {
    if (nm.has(TaskMark::kUntied) && nm.has(TaskMark::kDeferred) && !nm.has(TaskMark::kLaunched)) {
      // clang compiles an untied task's part 0 as "re-queue myself and return"
      // (CGOpenMPRuntime's UntiedTaskActionTy::Enter): no user code runs in
      // this first segment, so it is not the task's start. The start is the
      // next segment, on whichever worker picks the task up.
      set_mark(next, nm.with(TaskMark::kLaunched));
      how = SegmentStart::launch;
    } else {
      how = first_start(ts, next, nm);
    }
  }
  // Returning to the task below, or a task (new or resumed) on top of the
  // suspended one. The frame is pushed after the start was counted: its base
  // (unpopped) does not count the task itself.
  if (!prior_left) {
    push_frame(ts, nm);
  } else if (const Frame* back = ts.top(); back && back->task != nm.id()) {
    inconsistent(ts, "task_schedule's resumed task");
    push_frame(ts, nm);
  }
  const Frame* now_top = ts.top();
  if (now_top && now_top->wait != kNotWaiting) {
    maybe_idle(ts, *now_top);  // back in a wait: no segment
    return;
  }
  // It looked for work. maybe_idle ended the run when the thread found its own
  // queue empty; one with tasks it may not run (libomp's task scheduling
  // constraint) ends it only here, its search counted as busy.
  if (how == SegmentStart::steal || how == SegmentStart::launch) end_run(ts);
  if (nm.has(TaskMark::kTimed)) open_segment(ts, nm.id(), how);
}

// ---- idle detection ------------------------------------------------------------------------
//
// HERMES's "idle" ([HERMES] §3.1, Fig. 5 line 6) is a worker whose deque is
// empty and that must steal or wait: the moment its thief-victim relationships
// end and the immediacy relay fires. libomp has no "deque empty" callback, but
// a thread only looks for other work inside a wait: at a barrier (its implicit
// task waits) or in a taskwait / taskgroup (an explicit task waits). So idle is
// checked when a thread enters a wait (sync_region_wait begin) and whenever a
// task finishes or suspends and task_schedule returns the thread to a task that
// is in a wait — with the depth pushed − popped − stolen-from at 0:
//  - barrier: idle. The thread has nothing queued and nothing to continue.
//  - taskwait / taskgroup: only if some of the waiting task's descendants were
//    started by other workers (what this thread pushed since the task started
//    here, minus what it popped since, is positive). Otherwise every child ran
//    here and has finished, the wait ends at once and the task continues: the
//    worker is not out of work (libomp's help-first tasks differ from Cilk's
//    work-first continuations here). A stolen child that already finished gives
//    a spurious idle; a wait that spins on a stolen child without stealing
//    gives the relay as soon as the check runs (entry or return).
// A worker that steals is treated as idle first by the engine itself (a thief
// has run out of its own work). The check, maybe_idle, is inline in
// task_event_mapper_hot.hpp: fast paths call it on every return to a wait.

// ---- waits and implicit tasks ------------------------------------------------------------

void TaskEventMapper::sync_region_wait_slow(ompt_data_t* thread, ompt_sync_region_t kind,
                                            ompt_scope_endpoint_t endpoint, ompt_data_t* task) noexcept {
  sync_region_wait_general(*state(thread, kNoWorker), kind, endpoint, task);
}

void TaskEventMapper::sync_region_wait_general(ThreadState& ts, ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                                               ompt_data_t* task) noexcept {
  if (ts.worker == kNoWorker) return;
  const WaitKind wk = wait_kind(kind);
  const TaskMark m = mark_of(task);
  if (m.marked()) end_silent_parts(ts, m.id());
  Frame* top = ts.top();
  if (top && top->task != m.id()) {
    inconsistent(ts, endpoint == ompt_scope_begin ? "sync_region_wait begin" : "sync_region_wait end");
    top = nullptr;
  }
  const bool traced = tracing() && m.creator() != kNoWorker;
  if (endpoint == ompt_scope_begin) {
    close_segment(ts, SegmentEnd::waiting, false);
    if (traced) record(ts, WaitRecord{m.id(), ts.worker, wk, true, trace_now()});
    if (top) {
      top->wait = wk;
      maybe_idle(ts, *top);
    } else {
      end_run(ts);
    }
  } else {
    // A taskwait / taskgroup in which every task this thread pushed since the
    // waiting task started here was popped here again had no stolen child to
    // wait for: it ended as soon as the last child's segment did, and the
    // task's resume continues the run (maybe_idle left it open). Otherwise it
    // may have waited for a stolen child: a new run.
    const bool nothing_stolen =
        top && (top->wait == WaitKind::taskwait || top->wait == WaitKind::taskgroup) && all_children_ran_here(ts, *top);
    if (top) top->wait = kNotWaiting;
    if (!nothing_stolen) end_run(ts);
    if (traced) record(ts, WaitRecord{m.id(), ts.worker, wk, false, trace_now()});
    if (m.has(TaskMark::kTimed) && ts.segment_task == 0) open_segment(ts, m.id(), SegmentStart::resume);
    else if (!m.has(TaskMark::kTimed) && top) engine_.serial_begin(ts.worker);  // back in the serial part
  }
}

void TaskEventMapper::implicit_task(ompt_data_t* thread, ompt_scope_endpoint_t endpoint, ompt_data_t* task,
                                    unsigned int index, int flags) noexcept {
  const bool initial = (flags & ompt_task_initial) != 0;
  ThreadState& ts = *state(thread, initial ? 0 : index);
  const WorkerId w = ts.worker;
  if (endpoint == ompt_scope_begin) {
    // A parallel region's implicit task is timed (worksharing code runs in it);
    // the initial task — the program's serial part — is not.
    const TaskMark m = TaskMark::make(w, next_seq(ts), TaskMark::kStarted | (initial ? 0 : TaskMark::kTimed));
    set_mark(task, m);
    if (w == kNoWorker) return;
    close_segment(ts, SegmentEnd::suspended, false);  // a region nested in a running task
    end_run(ts);                                      // a pool thread waited for this region
    push_frame(ts, m);
    if (tracing()) record(ts, TaskRecord{m.id(), 0, w, trace_flags(flags, false, false), trace_now()});
    if (!initial) open_segment(ts, m.id(), SegmentStart::inline_);
    else engine_.serial_begin(w);  // the program's serial part is work, not a wait
    return;
  }
  if (w == kNoWorker) return;
  const TaskMark m = mark_of(task);
  if (m.marked()) end_silent_parts(ts, m.id());
  if (ts.segment_task != 0 && ts.segment_task == m.id()) close_segment(ts, SegmentEnd::region_end, false);
  const Frame* top = ts.top();
  if (top && top->task != m.id()) inconsistent(ts, "implicit_task end");
  if (ts.depth > 0) --ts.depth;
  resume_top(ts);
}

// ---- trace ----------------------------------------------------------------------------------

void TaskEventMapper::record(ThreadState& ts, const auto& rec) noexcept {
  if (!ts.trace) return;
  if (!ts.trace->room()) flush(ts);
  ts.trace->add(rec);
}

void TaskEventMapper::flush(ThreadState& ts) noexcept {
  if (!ts.trace || !trace_) return;
  std::lock_guard<SpinLock> guard(ts.flush_lock);
  trace_->write_block(ts.worker, *ts.trace);
}

// Runs at exit (rubato's atexit handler comes before libomp's own shutdown,
// so in practice before ompt_finalize too), when no task runs: workers still
// alive end here, and their open waits and segments are closed in the trace so
// that it is complete (later callbacks are no longer recorded).
void TaskEventMapper::finish() noexcept {
  for (auto& s : states_) {
    if (!s) continue;
    ThreadState& ts = *s;
    if (ts.live) {
      if (tracing()) {
        const std::uint64_t now = trace_now();
        for (std::uint32_t i = 0; i < std::min(ts.depth, ts.kept_frames()); ++i) {
          const Frame& f = ts.frame(i);
          if (f.wait != kNotWaiting && TaskMark::id_has_creator(f.task))
            record(ts, WaitRecord{f.task, ts.worker, f.wait, false, now});
        }
        if (ts.segment_task != 0 && TaskMark::id_has_creator(ts.segment_task))
          record_segment(ts, SegmentEnd::unfinished);
      }
      engine_.worker_end(ts.worker);
    }
    flush(ts);
  }
  const std::uint64_t refused = registry_.refused();
  if (refused > 0)
    session_.note("ompt: " + std::to_string(refused) + " threads found all " + std::to_string(registry_.capacity()) +
                  " worker slots taken (RUBATO_MAX_WORKERS) and were not observed; tasks they stole were counted "
                  "as dropped events");
  const std::uint64_t bad = inconsistencies();
  if (bad > 0)
    session_.note(
        "ompt: " + std::to_string(bad) +
        " callbacks did not match the task stack the tool keeps per thread; their segments may be misattributed");
}

}  // namespace rubato::ompt
