// rubato::tbb::concurrency_throttle: the oneTBB actuator of contention-aware
// throttling ([EFS] §4: fewer active threads when they only contend for
// memory bandwidth). Lowers and raises how many threads oneTBB runs at once,
// process-wide, through global_control::max_allowed_parallelism.
//
// How fast it acts (measured by benchmarks/tbb_overhead/tbb_throttle_reaction,
// see frontends/tbb/README.md): a lower limit does not preempt anything. A
// worker leaves only when it comes back to the arena for more work and finds
// the limit lowered, so a worker deep inside a large stolen piece of a long
// parallel_for keeps running until that piece is done; programs made of many
// short parallel regions follow within about one region. A raised limit is
// followed as soon as there is work for the new workers to take.
//
// global_control limits combine by minimum: the throttle cannot raise the
// limit above one the program set itself (that is its ceiling). Use it from
// one controlling thread.
#pragma once

#include <oneapi/tbb/global_control.h>

#include <cstddef>
#include <memory>

namespace rubato::tbb {

class concurrency_throttle {
 public:
  // Ceiling: the limit in force now (the program's own, or oneTBB's default).
  concurrency_throttle();
  // Ceiling: `ceiling` threads (at least 1), but never above the limit in force now.
  explicit concurrency_throttle(std::size_t ceiling);
  concurrency_throttle(const concurrency_throttle&) = delete;
  concurrency_throttle& operator=(const concurrency_throttle&) = delete;

  std::size_t ceiling() const noexcept { return ceiling_; }
  // The limit asked for last (the ceiling when not throttling).
  std::size_t limit() const noexcept { return limit_; }
  // Clamped to 1..ceiling(). Returns the limit now asked for.
  std::size_t set_limit(std::size_t threads);
  // Back to the ceiling: the throttle's own control is dropped.
  void release() noexcept;

 private:
  std::size_t ceiling_;
  std::size_t limit_;
  // oneTBB keeps the address of a live global_control: never moved, hence the pointer.
  std::unique_ptr<::tbb::global_control> control_;
};

}  // namespace rubato::tbb
