// Workload-sensitive thresholds ([HERMES] §3.2): K deque-size thresholds
// thld_i = 2·L·i/(K+1), 1 ≤ i ≤ K, where L is the mean of the last M sampled
// deque sizes (online profiling, one window of M samples per period).
#pragma once

#include <array>
#include <cstdint>

#include "rubato/core/base/types.hpp"

namespace rubato {

// thld_i for i = 1..K into out[0..K-1].
void thresholds_from_mean(double mean_depth, int k, std::array<double, kMaxThresholds>& out) noexcept;

// Whether a deque size reaches a threshold. "fastest if the deque size is no
// less than thld_K" — reaching means >= — but an empty deque reaches none:
// "a worker needs to work faster when there are more tasks to handle", and a
// thief with an empty deque is below the first threshold (Fig. 4(b)). Where
// L = 0 (a worker that held no queued work for a whole profiling window)
// every threshold is 0; without this rule its empty deque would count as
// above all of them.
inline bool reaches_threshold(double depth, double thld) noexcept { return depth > 0 && depth >= thld; }

// The band of a deque size: how many thresholds it has reached (0..K).
int band_of(double depth, const std::array<double, kMaxThresholds>& thld, int k) noexcept;

// Accumulates M samples; every M-th sample yields the window's mean.
class DepthSampler {
 public:
  explicit DepthSampler(std::uint32_t window = 16) noexcept : window_(window == 0 ? 1 : window) {}
  // Returns true when this sample completes a window; `mean` is then set.
  bool add(std::uint64_t depth, double& mean) noexcept {
    sum_ += depth;
    if (++count_ < window_) return false;
    mean = static_cast<double>(sum_) / static_cast<double>(count_);
    sum_ = 0;
    count_ = 0;
    return true;
  }

 private:
  std::uint32_t window_;
  std::uint32_t count_ = 0;
  std::uint64_t sum_ = 0;
};

}  // namespace rubato
