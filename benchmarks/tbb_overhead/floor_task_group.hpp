// The reference between plain oneTBB and rubato::tbb::task_group: a task_group
// that does the least any drop-in must do per task to count rubato's exact
// steals and queue depths, and nothing more. Each spawned functor carries the
// spawner's worker index; a push per run (with the queue depth's maximum), a
// pop or a steal when the task starts, a completion when it ends; per-thread,
// cache-line-aligned records. No time segments, no idle detection, no
// observer, no engine, no report. The worker index is asked of oneTBB once per
// thread and kept (right for this benchmark's one arena, not in general): a
// floor, not an alternative. What it costs over plain oneTBB bounds from below
// what any exact-count drop-in costs; what rubato costs over it is its time
// accounting, idle detection and engine.
#pragma once

#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <atomic>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace rubato::bench::floor {

struct alignas(64) Worker {
  std::int64_t pushes = 0, pops = 0, steals = 0, completed = 0, max_depth = 0;
  alignas(64) std::atomic<std::int64_t> stolen_from{0};  // the only field other threads write
};

inline constexpr int kMaxWorkers = 256;
inline Worker g_workers[kMaxWorkers];

inline constinit thread_local int t_index = -1;

inline int my_index() noexcept {
  if (t_index < 0) [[unlikely]] {
    const int i = ::tbb::this_task_arena::current_thread_index();
    t_index = i >= 0 && i < kMaxWorkers ? i : 0;
  }
  return t_index;
}

template <class F>
struct counted_task {
  F f;
  int spawner;
  void operator()() const {
    const int me = my_index();
    Worker& w = g_workers[me];
    if (spawner == me) {
      ++w.pops;
    } else {
      ++w.steals;
      g_workers[spawner].stolen_from.fetch_add(1, std::memory_order_relaxed);
    }
    f();
    ++w.completed;
  }
};

class task_group {
 public:
  template <class F>
  void run(F&& f) {
    const int me = my_index();
    Worker& w = g_workers[me];
    const std::int64_t depth = ++w.pushes - w.pops - w.stolen_from.load(std::memory_order_relaxed);
    if (depth > w.max_depth) w.max_depth = depth;
    group_.run(counted_task<std::decay_t<F>>{std::forward<F>(f), me});
  }
  ::tbb::task_group_status wait() { return group_.wait(); }

 private:
  ::tbb::task_group group_;
};

// Totals over all workers (to check the counts against rubato's).
struct Totals {
  std::int64_t pushes = 0, pops = 0, steals = 0, completed = 0;
};
inline Totals totals() noexcept {
  Totals t;
  for (const Worker& w : g_workers) {
    t.pushes += w.pushes, t.pops += w.pops, t.steals += w.steals, t.completed += w.completed;
  }
  return t;
}

}  // namespace rubato::bench::floor
