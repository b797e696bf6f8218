#include "rubato/core/model/frequency_model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace rubato {
namespace {

// Linear interpolation over strictly descending `hz`; clamped at the ends.
// Exact at a level: the first point at or below `f` is that level, t = 0.
double interpolate(const std::vector<double>& hz, const std::vector<double>& w, double f) noexcept {
  if (hz.empty()) return 0;
  if (f >= hz.front()) return w.front();
  if (f <= hz.back()) return w.back();
  for (std::size_t i = 1; i < hz.size(); ++i) {
    if (f >= hz[i]) {
      const double t = (f - hz[i]) / (hz[i - 1] - hz[i]);
      return w[i] + t * (w[i - 1] - w[i]);
    }
  }
  return w.back();
}

}  // namespace

FrequencyModel::FrequencyModel(LevelPowers powers, double memory_bandwidth_knee_hz) : powers_(std::move(powers)) {
  if (const std::string error = level_powers_error(powers_); !error.empty()) throw std::invalid_argument(error);
  if (!(memory_bandwidth_knee_hz >= 0) || !std::isfinite(memory_bandwidth_knee_hz))
    throw std::invalid_argument("memory bandwidth knee: expected a frequency >= 0 (0: none)");
  reference_.core_hz = powers_.core_hz.front();
  reference_.uncore_hz = powers_.uncore_hz.empty() ? 0 : powers_.uncore_hz.front();
  reference_.memory_bandwidth_knee_hz = memory_bandwidth_knee_hz;
}

double FrequencyModel::core_hz(std::size_t level) const noexcept {
  return powers_.core_hz[std::min(level, powers_.core_hz.size() - 1)];
}

double FrequencyModel::uncore_hz(std::size_t level) const noexcept {
  if (powers_.uncore_hz.empty()) return 0;
  return powers_.uncore_hz[std::min(level, powers_.uncore_hz.size() - 1)];
}

double FrequencyModel::busy_w(double hz) const noexcept { return interpolate(powers_.core_hz, powers_.busy_w, hz); }

double FrequencyModel::idle_w(double hz) const noexcept { return interpolate(powers_.core_hz, powers_.idle_w, hz); }

double FrequencyModel::uncore_w(double hz) const noexcept {
  if (powers_.uncore_hz.empty() || !(hz > 0)) return powers_.uncore_fixed_w;
  return interpolate(powers_.uncore_hz, powers_.uncore_w, hz);
}

double FrequencyModel::segment_power_w(std::span<const double> busy_core_hz, std::span<const double> waiting_core_hz,
                                       double uncore_hz) const noexcept {
  double watts = uncore_w(uncore_hz);
  for (double hz : busy_core_hz) watts += busy_w(hz);
  for (double hz : waiting_core_hz) watts += idle_w(hz);
  return watts;
}

double FrequencyModel::segment_power_w(int busy_workers, double busy_hz, int waiting_workers, double waiting_hz,
                                       double uncore_hz) const noexcept {
  return uncore_w(uncore_hz) + std::max(0, busy_workers) * busy_w(busy_hz) +
         std::max(0, waiting_workers) * idle_w(waiting_hz);
}

}  // namespace rubato
