#include "arena_observer.hpp"

#include <oneapi/tbb/version.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "thread_lookup.hpp"

namespace rubato::tbb::detail {
namespace {

void say(const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); }

SessionInfo session_info(EventLevel level) {
  const std::string runtime = std::string("oneTBB ") + TBB_runtime_version();
  if (level == EventLevel::threads_only) return SessionInfo{"tbb-preload", runtime, false};
  if (level == EventLevel::itt_tasks) return SessionInfo{"tbb-preload", runtime, true};
  return SessionInfo{"tbb", runtime, true};
}

// Tasks other threads started and have not ended: started (popped or stolen)
// less completed, less those a cancelled group dropped (counted as pops).
std::uint64_t tasks_running_elsewhere(const Frontend& fe, WorkerId self) {
  std::uint64_t started = 0;
  std::uint64_t ended = fe.discarded.load(std::memory_order_relaxed);
  for (const WorkerStats& s : fe.engine.worker_stats()) {
    if (s.id == self) continue;  // a task that called exit cannot end now
    started += s.pops + s.steals;
    ended += s.tasks_completed;
  }
  return started > ended ? started - ended : 0;
}

// oneTBB releases a task's waiter inside the task's execute(), before the
// worker's end notification: the program can return from its last wait and
// exit while that end is on its way (a thread descheduled there, on a busy
// machine). The report waits for it, as the trace does (task_trace.hpp), at
// most kExitGrace: exit never hangs on a thread that stays inside a task.
constexpr std::chrono::milliseconds kExitGrace{100};

std::uint64_t wait_for_running_tasks(const Frontend& fe, WorkerId self) {
  const auto grace_end = std::chrono::steady_clock::now() + kExitGrace;
  std::uint64_t running = tasks_running_elsewhere(fe, self);
  while (running > 0 && std::chrono::steady_clock::now() < grace_end) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    running = tasks_running_elsewhere(fe, self);
  }
  return running;
}

}  // namespace

ArenaObserver::ArenaObserver(const Environment& env, EventLevel level) { start(env, level); }

ArenaObserver::ArenaObserver(::tbb::task_arena& arena, const Environment& env, EventLevel level)
    : ::tbb::task_scheduler_observer(arena) {
  start(env, level);
}

ArenaObserver::~ArenaObserver() { finish(); }

void ArenaObserver::start(const Environment& env, EventLevel level) noexcept {
  if (!claim_frontend()) {
    say("rubato: another rubato::tbb::observer is active; this one observes nothing");
    return;
  }
  try {
    session_ = Session::open(env, session_info(level));
    if (!session_) {  // disabled, or cannot start (the session said why)
      release_frontend();
      return;
    }
    frontend_ = std::make_unique<Frontend>(*session_, level);
    if (level == EventLevel::threads_only) {
      session_->note("steals are not observed in preload mode");
      session_->note("tbb-preload: a worker's busy time is its time inside the observed arena (no task events)");
    }
    if (level == EventLevel::itt_tasks)
      session_->note(
          "tbb-preload: tasks seen through oneTBB's ITT notifications and its interposed spawn / enqueue / "
          "wait entry points; a worker is a thread, numbered as first seen");
    // The preload's task events record it (frontends/tbb_preload/src/task_trace.hpp).
    if (!session_->settings().trace.empty() && level != EventLevel::itt_tasks) {
      const char* why = level == EventLevel::tasks ? "is recorded by the preload only, not by the linked observer"
                                                   : "needs task events, and the preload has none here";
      say(std::string("rubato: RUBATO_TRACE ") + why + "; no trace is recorded");
      session_->note(std::string("tbb: RUBATO_TRACE ") + why + "; no trace was recorded");
    }
    if (session_->settings().policy.efs) throttle_ = std::make_unique<ConcurrencyActuator>();
    session_->start_controllers(throttle_.get());
    publish(*frontend_);
    observe(true);  // the calling thread's entry, if it is in the arena, is notified from here
  } catch (...) {
    say("rubato: the TBB observer could not start; the program runs without rubato");
    if (frontend_) retract(*frontend_);
    frontend_.reset();
    session_.reset();
    throttle_.reset();
    release_frontend();
  }
}

void ArenaObserver::on_scheduler_entry(bool /*is_worker*/) {
  Frontend* fe = frontend_.get();
  if (!fe) return;
  const WorkerId w = current_worker(*fe);
  if (w == kNoWorker) {
    if (!fe->workers_are_threads) fe->outside_threads.fetch_add(1, std::memory_order_relaxed);  // else counted once
    return;
  }
  // Fires again each time the thread rejoins the arena: announcing it again
  // only re-pins it (static binding) after the exit below unpinned it.
  ThreadRecord& t = record_for(*fe);
  if (t.scopes > 0) return;  // entered from inside one of its tasks: it keeps that worker's identity
  announce(*fe, t, w, /*again=*/true);
  fe->in_arena[w].store(true, std::memory_order_relaxed);
  if (fe->level == EventLevel::threads_only && !t.segment_open) open_segment(t);
}

void ArenaObserver::on_scheduler_exit(bool /*is_worker*/) {
  Frontend* fe = frontend_.get();
  if (!fe) return;
  const WorkerId w = current_worker(*fe);
  if (w == kNoWorker) return;
  ThreadRecord& t = record_for(*fe);
  if (t.worker != w || t.scopes > 0) return;  // never announced under this slot, or nested (above)
  if (t.segment_open) close_segment(t, false);
  fe->engine.run_end(w);
  // Leaving the arena: nothing of its own left to run.
  if (!t.idle && fe->engine.depth(w) <= 0) {
    fe->engine.idle(w);
    t.idle = true;
  }
  fe->in_arena[w].store(false, std::memory_order_relaxed);
  fe->session.worker_stopped(w);
}

void ArenaObserver::add_notes() noexcept {
  try {
    const std::uint64_t dropped = frontend_->discarded.load(std::memory_order_relaxed);
    if (dropped > 0)
      session_->note("tbb: " + std::to_string(dropped) +
                     " spawned tasks were dropped unrun by cancelled groups (not completed; one dropped on another "
                     "worker than its spawner stays counted in the spawner's queue depth)");
    const std::uint64_t unseen = frontend_->total_unseen_creations();
    if (unseen > 0)
      session_->note("tbb-preload: " + std::to_string(unseen) +
                     " tasks started that no interposed entry point saw created (a task returned by the one before it "
                     "for its thread to run next, oneTBB's task bypass): counted as created and popped by the thread "
                     "that ran them");
    const std::uint64_t deep = frontend_->deep_tasks.load(std::memory_order_relaxed);
    if (deep > 0)
      session_->note("tbb-preload: " + std::to_string(deep) +
                     " tasks nested deeper than 256 on their thread were not observed (their creation was)");
    const std::uint64_t outside = frontend_->outside_threads.load(std::memory_order_relaxed);
    if (outside > 0)
      session_->note("tbb: " + std::to_string(outside) +
                     " threads or arena entries beyond RUBATO_MAX_WORKERS were not observed");
  } catch (...) {
    session_->count_error();
  }
}

void ArenaObserver::note(const std::string& line) noexcept {
  if (session_) session_->note(line);
}

const Report& ArenaObserver::finish() noexcept {
  std::lock_guard<std::mutex> lock(finish_mutex_);
  if (finished_) return *report_;
  finished_ = true;
  if (!frontend_) {
    report_ = &empty_report_;
    return *report_;
  }
  observe(false);  // returns once no entry / exit callback runs
  Frontend& fe = *frontend_;
  // The finishing thread (usually the main one, which never leaves its arena)
  // ends its open segment and is unpinned.
  const WorkerId w = current_worker(fe);
  ThreadRecord& t = record_for(fe);
  if (w != kNoWorker && t.worker == w) {
    if (t.segment_open) close_segment(t, false);
    fe.engine.run_end(w);
    fe.in_arena[w].store(false, std::memory_order_relaxed);
    fe.session.worker_stopped(w);
  }
  // Preload: workers still in the arena (oneTBB keeps them until the arena
  // ends) have their stay open. No callback can run for them any more, so
  // their segments are closed from here — the one place a worker's engine
  // slot is written by another thread.
  if (fe.level == EventLevel::threads_only)
    for (std::size_t x = 0; x < fe.max_workers; ++x)
      if (fe.in_arena[x].load(std::memory_order_relaxed)) fe.engine.task_end(static_cast<WorkerId>(x), false);
  if (fe.level != EventLevel::threads_only) {
    try {
      if (const std::uint64_t running = wait_for_running_tasks(fe, w); running > 0)
        session_->note("tbb: " + std::to_string(running) +
                       " tasks started on other threads had not ended when the report was taken (it waited " +
                       std::to_string(kExitGrace.count()) +
                       " ms for them): a thread still inside a task at exit, or a task that threw on a thread that "
                       "ran no task after it; counted as started, not completed");
    } catch (...) {
      session_->count_error();
    }
  }
  retract(fe);
  if (before_report_) before_report_();
  add_notes();
  report_ = &session_->finish();
  release_frontend();
  return *report_;
}

}  // namespace rubato::tbb::detail
