// The simulator's pending events, earliest first; ties in insertion order so
// that a run is the same bit for bit.
#pragma once

#include <cstdint>
#include <vector>

namespace rubato::sim::detail {

enum class EventKind : std::uint8_t {
  segment_end,
  steal_end,
  dvfs_accept,
  dvfs_apply,
  control,
  slack_sweep,
  min_energy_step,  // min-energy's periodic core + uncore decision
};

struct Event {
  std::uint64_t t = 0;
  std::uint64_t seq = 0;
  std::uint32_t target = 0;  // worker or clock domain
  std::uint32_t gen = 0;     // worker events: stale unless equal to the worker's generation
  EventKind kind = EventKind::segment_end;
};

// A binary min-heap on (t, seq).
class EventQueue {
 public:
  bool empty() const noexcept { return heap_.empty(); }
  std::size_t size() const noexcept { return heap_.size(); }

  void push(std::uint64_t t, EventKind kind, std::uint32_t target, std::uint32_t gen = 0) {
    heap_.push_back(Event{t, next_seq_++, target, gen, kind});
    std::size_t i = heap_.size() - 1;
    const Event e = heap_[i];
    while (i > 0) {
      const std::size_t parent = (i - 1) / 2;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }

  Event pop() {
    const Event top = heap_.front();
    const Event last = heap_.back();
    heap_.pop_back();
    const std::size_t n = heap_.size();
    if (n == 0) return top;
    std::size_t i = 0;
    for (;;) {
      std::size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && before(heap_[child + 1], heap_[child])) ++child;
      if (!before(heap_[child], last)) break;
      heap_[i] = heap_[child];
      i = child;
    }
    heap_[i] = last;
    return top;
  }

 private:
  static bool before(const Event& a, const Event& b) noexcept { return a.t != b.t ? a.t < b.t : a.seq < b.seq; }
  std::vector<Event> heap_;
  std::uint64_t next_seq_ = 0;
};

}  // namespace rubato::sim::detail
