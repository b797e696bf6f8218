// Frames come from a free list carved out of fixed blocks: no allocation per
// task once the live frontier has been reached, and the peak number of live
// frames is the simulator's memory figure.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "rubato/sim/program.hpp"

namespace rubato::sim::detail {

class FramePool {
 public:
  Frame* make() {
    if (free_.empty()) refill();
    Frame* f = free_.back();
    free_.pop_back();
    *f = Frame{};
    if (++live_ > peak_) peak_ = live_;
    ++made_;
    return f;
  }
  void release(Frame* f) {
    free_.push_back(f);
    --live_;
  }
  std::uint64_t live() const noexcept { return live_; }
  std::uint64_t peak() const noexcept { return peak_; }
  std::uint64_t made() const noexcept { return made_; }

 private:
  static constexpr std::size_t kBlock = 1024;
  void refill() {
    blocks_.push_back(std::make_unique<Frame[]>(kBlock));
    Frame* block = blocks_.back().get();
    for (std::size_t i = kBlock; i-- > 0;) free_.push_back(block + i);
  }
  std::vector<std::unique_ptr<Frame[]>> blocks_;
  std::vector<Frame*> free_;
  std::uint64_t live_ = 0, peak_ = 0, made_ = 0;
};

}  // namespace rubato::sim::detail
