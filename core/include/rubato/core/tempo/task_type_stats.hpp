// Measured segment durations by task type and tempo level, the sensor every
// run has (docs/min-energy.md "The closed loop"): what the scheduler's own
// events say of how long each kind of work takes at each setting. A task
// type is a small index a front-end gives each kind of task (OpenMP: the
// task construct's code address; oneTBB: the task's class; the simulator: the
// shape); 0 is work whose type is not known.
//
// Each worker owns one table: only the owner records (three relaxed stores
// into a cell found by hashing, no lock, no allocation); any thread may read
// a snapshot, which may miss the record in flight (it shows at the next).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

#include "rubato/core/base/types.hpp"

namespace rubato {

using TaskType = std::uint32_t;
inline constexpr TaskType kUntypedTask = 0;
// Types a front-end may give (0 .. kMaxTaskTypes − 1); it folds any beyond into kUntypedTask.
inline constexpr TaskType kMaxTaskTypes = 256;

// One (type, level) of a snapshot: segments, their summed duration and the
// sum of their squares (µs², for the spread).
struct TaskTypeCell {
  TaskType type = kUntypedTask;
  Level level = 0;
  std::uint64_t segments = 0;
  std::uint64_t ns = 0;
  double sq_us = 0;
};

class TaskTypeTable {
 public:
  static constexpr std::size_t kCells = 128;  // (type, level) pairs one worker holds
  static constexpr std::size_t kProbes = 16;  // cells looked at before a record counts as overflowed

  // Owner only.
  void record(TaskType type, Level level, std::uint64_t ns) noexcept {
    const std::uint32_t key = ((type & 0x7FFFFFFu) + 1) << 4 | (static_cast<std::uint32_t>(level) & 0xFu);
    std::size_t i = (key * 2654435761u) >> (32 - 7);
    for (std::size_t probe = 0; probe < kProbes; ++probe, i = (i + 1) % kCells) {
      Cell& c = cells_[i];
      const std::uint32_t k = c.key.load(std::memory_order_relaxed);
      if (k == 0) c.key.store(key, std::memory_order_release);  // the counts are still 0: a reader sees none
      else if (k != key) continue;
      c.segments.store(c.segments.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
      c.ns.store(c.ns.load(std::memory_order_relaxed) + ns, std::memory_order_relaxed);
      const double us = static_cast<double>(ns) * 1e-3;
      c.sq_us.store(c.sq_us.load(std::memory_order_relaxed) + us * us, std::memory_order_relaxed);
      return;
    }
    overflowed_.store(overflowed_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }

  // Any thread: appends every cell in use (unsorted, one row per cell).
  void append_to(std::vector<TaskTypeCell>& out) const {
    for (const Cell& c : cells_) {
      const std::uint32_t k = c.key.load(std::memory_order_acquire);
      if (k == 0) continue;
      out.push_back({(k >> 4) - 1, static_cast<Level>(k & 0xFu), c.segments.load(std::memory_order_relaxed),
                     c.ns.load(std::memory_order_relaxed), c.sq_us.load(std::memory_order_relaxed)});
    }
  }
  std::uint64_t overflowed() const noexcept { return overflowed_.load(std::memory_order_relaxed); }

 private:
  struct Cell {
    std::atomic<std::uint32_t> key{0};  // (type + 1) << 4 | level; 0: free
    std::atomic<std::uint64_t> segments{0};
    std::atomic<std::uint64_t> ns{0};
    std::atomic<double> sq_us{0};
  };
  alignas(kCacheLine) std::array<Cell, kCells> cells_{};
  std::atomic<std::uint64_t> overflowed_{0};
};

}  // namespace rubato
