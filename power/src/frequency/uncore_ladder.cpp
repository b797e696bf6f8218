#include "rubato/power/frequency/uncore_ladder.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "rubato/power/machine/profile.hpp"

namespace rubato {

UncoreLadder::UncoreLadder(std::vector<double> hz) : hz_(std::move(hz)) {
  std::erase_if(hz_, [](double f) { return !(f > 0); });
  std::sort(hz_.begin(), hz_.end(), std::greater<>());
  hz_.erase(std::unique(hz_.begin(), hz_.end()), hz_.end());
}

UncoreLadder UncoreLadder::from_range(double min_hz, double max_hz, double step_hz) {
  if (!(max_hz > 0) || !(step_hz > 0)) return {};
  std::vector<double> hz{max_hz};
  // Steps counted, not accumulated, so that 2.4 GHz - 16 x 100 MHz is 0.8 GHz exactly.
  for (long i = 1;; ++i) {
    const double f = std::round(max_hz - static_cast<double>(i) * step_hz);
    if (f <= min_hz) break;
    hz.push_back(f);
  }
  if (min_hz > 0 && min_hz < max_hz) hz.push_back(min_hz);
  return UncoreLadder(std::move(hz));
}

UncoreLadder UncoreLadder::from_profile(const MachineProfile& profile, double step_hz) {
  if (profile.uncore_power.empty()) return {};
  // uncore_power is sorted descending when parsed; a hand-built profile may not be.
  auto [lo, hi] = std::minmax_element(profile.uncore_power.begin(), profile.uncore_power.end(),
                                      [](const auto& a, const auto& b) { return a.hz < b.hz; });
  std::vector<double> hz = from_range(lo->hz, hi->hz, step_hz).levels_hz();
  for (const auto& point : profile.uncore_power) hz.push_back(point.hz);
  return UncoreLadder(std::move(hz));
}

std::size_t UncoreLadder::nearest_level(double hz) const noexcept {
  std::size_t best = 0;
  for (std::size_t i = 1; i < hz_.size(); ++i)
    if (std::abs(hz_[i] - hz) < std::abs(hz_[best] - hz)) best = i;
  return best;
}

}  // namespace rubato
