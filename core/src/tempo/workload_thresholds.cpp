#include "rubato/core/tempo/workload_thresholds.hpp"

namespace rubato {

void thresholds_from_mean(double mean_depth, int k, std::array<double, kMaxThresholds>& out) noexcept {
  // [HERMES] §3.2: thld_i = (2·L / (K+1)) · i
  for (int i = 1; i <= k && i <= kMaxThresholds; ++i)
    out[static_cast<std::size_t>(i - 1)] = 2.0 * mean_depth / (k + 1) * i;
}

int band_of(double depth, const std::array<double, kMaxThresholds>& thld, int k) noexcept {
  int band = 0;
  while (band < k && band < kMaxThresholds && reaches_threshold(depth, thld[static_cast<std::size_t>(band)])) ++band;
  return band;
}

}  // namespace rubato
