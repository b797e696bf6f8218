// rubato::tbb::task_group: tbb::task_group (run, run_and_wait, wait, cancel)
// whose tasks report push / pop / steal, time and idleness to rubato's engine
// while a rubato::tbb::observer is active; plain oneTBB otherwise.
#pragma once

#include <oneapi/tbb/task_group.h>

#include <functional>
#include <type_traits>
#include <utility>

#include "rubato/tbb/detail/task_events.hpp"

namespace rubato::tbb {
namespace detail {

// A task_group functor carrying the index of the worker that spawned it. It is
// moved into oneTBB's task; when oneTBB destroys it without running it (the
// group was cancelled) the destructor reports the drop.
template <class F>
class spawned_task {
 public:
  spawned_task(F&& f, worker_index spawner) : f_(std::move(f)), spawner_(spawner) {}
  spawned_task(const F& f, worker_index spawner) : f_(f), spawner_(spawner) {}
  spawned_task(spawned_task&& other) noexcept(std::is_nothrow_move_constructible_v<F>)
      : f_(std::move(other.f_)), spawner_(other.spawner_), pending_(std::exchange(other.pending_, false)) {}
  spawned_task(const spawned_task&) = delete;
  spawned_task& operator=(const spawned_task&) = delete;
  spawned_task& operator=(spawned_task&&) = delete;
  ~spawned_task() {
    if (pending_) note_discarded(spawner_);
  }

  // oneTBB calls the stored functor as const, and so does this.
  decltype(auto) operator()() const {
    pending_ = false;
    task_scope scope(spawner_);
    return f_();
  }

 private:
  F f_;
  worker_index spawner_;
  mutable bool pending_ = true;
};

// A functor oneTBB runs in place from the caller's frame (run_and_wait,
// parallel_invoke): held by reference, the drop is seen when it goes out of
// scope unrun.
template <class F>
using referenced_task = spawned_task<std::reference_wrapper<const F>>;

}  // namespace detail

class task_group {
 public:
  task_group() = default;
  explicit task_group(::tbb::task_group_context& context) : group_(context) {}
  task_group(const task_group&) = delete;
  task_group& operator=(const task_group&) = delete;

  template <class F>
  void run(F&& f) {
    const detail::worker_index spawner = detail::note_spawn_if_observing();
    if (spawner == detail::unobserved) {
      group_.run(std::forward<F>(f));
      return;
    }
    group_.run(detail::spawned_task<std::decay_t<F>>(std::forward<F>(f), spawner));
  }

  // oneTBB runs `f` on the calling thread, then waits for the group.
  template <class F>
  ::tbb::task_group_status run_and_wait(const F& f) {
    if (!detail::observing()) return group_.run_and_wait(f);
    const detail::referenced_task<F> task(std::cref(f), detail::note_spawn());
    detail::wait_scope waiting;
    return group_.run_and_wait(task);
  }

  // Inline like oneTBB's own (a call per wait costs as much as the wait scope).
  [[gnu::always_inline]] ::tbb::task_group_status wait() {
    detail::wait_scope waiting;  // does nothing unless observing
    return group_.wait();
  }

  void cancel() { group_.cancel(); }

 private:
  ::tbb::task_group group_;
};

}  // namespace rubato::tbb
