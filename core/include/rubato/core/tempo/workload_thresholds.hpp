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

// The band of a deque size: how many thresholds it has reached (0..K).
// "fastest if the deque size is no less than thld_K" — reaching means >=.
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
