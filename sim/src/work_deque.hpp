// A simulated worker's deque: the owner pushes and pops at the tail, thieves
// take from the head ([HERMES] §2, Fig. 2). A growable ring of frame pointers.
#pragma once

#include <cstdint>
#include <vector>

#include "rubato/sim/program.hpp"

namespace rubato::sim::detail {

class WorkDeque {
 public:
  bool empty() const noexcept { return head_ == tail_; }
  std::uint64_t size() const noexcept { return tail_ - head_; }
  Frame* head() const noexcept { return ring_[head_ & mask_]; }

  void push_tail(Frame* f) {
    if (size() == ring_.size()) grow();
    ring_[tail_++ & mask_] = f;
  }
  Frame* pop_tail() noexcept { return ring_[--tail_ & mask_]; }
  Frame* pop_head() noexcept { return ring_[head_++ & mask_]; }

 private:
  void grow() {
    std::vector<Frame*> bigger(ring_.empty() ? 16 : ring_.size() * 2);
    for (std::uint64_t i = head_; i != tail_; ++i) bigger[i - head_] = ring_[i & mask_];
    tail_ -= head_;
    head_ = 0;
    ring_ = std::move(bigger);
    mask_ = ring_.size() - 1;
  }
  std::vector<Frame*> ring_;
  std::uint64_t mask_ = 0;
  std::uint64_t head_ = 0, tail_ = 0;
};

}  // namespace rubato::sim::detail
