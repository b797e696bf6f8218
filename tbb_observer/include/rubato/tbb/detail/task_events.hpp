// The engine events of the instrumented drop-ins (task_group, parallel_invoke,
// parallel_for), called from their templates. oneTBB has no public steal or
// queue API, so each spawned functor carries the index of the worker that
// spawned it: when it starts on that worker it was popped, elsewhere stolen
// (DESIGN.md "The engine"; seed 000 §3.1).
//
// Hot path: every call touches the calling thread's own record and its
// worker's engine slot only (no lock, no allocation, no system call).
#pragma once

#include <cstdint>

namespace rubato::tbb::detail {

// A worker index (rubato::WorkerId); `no_worker` when the thread is not a
// worker of the observed arena, or no observer is active.
using worker_index = std::uint32_t;
inline constexpr worker_index no_worker = 0xffffffffu;

// True while an observer with a live session is active.
bool observing() noexcept;

// The calling thread spawns one task: counts a push on its worker and returns
// the worker's index, to be carried by the task.
worker_index note_spawn() noexcept;

// What task_group::run asks, in one call: `unobserved` when no observer
// collects task events (the caller hands oneTBB the plain functor), else as
// note_spawn.
inline constexpr worker_index unobserved = 0xfffffffeu;
worker_index note_spawn_if_observing() noexcept;

// A spawned task was destroyed without running (its group was cancelled).
void note_discarded(worker_index spawner) noexcept;

// The counts a wait compares against to tell whether some of the waiting
// task's children were started elsewhere (see task_events.cpp, idle detection).
struct wait_frame {
  std::uint64_t base_pushes = 0;
  std::uint64_t base_pops = 0;
};

// Around one spawned task's body, on the thread that runs it: pop or steal,
// the task's time segment, idle detection when it ends.
class task_scope {
 public:
  explicit task_scope(worker_index spawner) noexcept;
  ~task_scope() {
    if (generation_ != 0) end();  // inline: nothing to call when nothing was opened
  }
  task_scope(const task_scope&) = delete;
  task_scope& operator=(const task_scope&) = delete;

 private:
  void end() noexcept;

  std::uint64_t generation_ = 0;  // 0: nothing to undo
  const wait_frame* outer_wait_ = nullptr;
  wait_frame outer_task_base_;
  worker_index worker_ = no_worker;
  bool resumes_segment_ = false;
};

// Around a blocking wait of the calling thread (task_group::wait, the inner
// wait of parallel_for / parallel_invoke): the running task's segment pauses,
// and the tasks the thread runs meanwhile are checked for idleness.
class wait_scope {
 public:
  wait_scope() noexcept;
  ~wait_scope() {
    if (generation_ != 0) end();
  }
  wait_scope(const wait_scope&) = delete;
  wait_scope& operator=(const wait_scope&) = delete;

 private:
  void end() noexcept;

  std::uint64_t generation_ = 0;
  wait_frame frame_;
  const wait_frame* outer_wait_ = nullptr;
  worker_index worker_ = no_worker;
  bool resumes_segment_ = false;
};

}  // namespace rubato::tbb::detail
