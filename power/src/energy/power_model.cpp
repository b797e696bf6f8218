#include "rubato/power/energy/power_model.hpp"

#include <algorithm>

namespace rubato {
namespace {

// Linear interpolation over points sorted by descending frequency; clamped at the ends.
template <class Point, class Get>
double interpolate(const std::vector<Point>& points, double hz, Get get) noexcept {
  if (points.empty()) return 0;
  if (hz >= points.front().hz) return get(points.front());
  if (hz <= points.back().hz) return get(points.back());
  for (std::size_t i = 1; i < points.size(); ++i) {
    const Point& hi = points[i - 1];
    const Point& lo = points[i];
    if (hz >= lo.hz) {
      const double t = hi.hz > lo.hz ? (hz - lo.hz) / (hi.hz - lo.hz) : 0;
      return get(lo) + t * (get(hi) - get(lo));
    }
  }
  return get(points.back());
}

}  // namespace

PowerModel::PowerModel(MachineProfile profile) : profile_(std::move(profile)) {
  std::sort(profile_.core_power.begin(), profile_.core_power.end(),
            [](const CorePowerPoint& a, const CorePowerPoint& b) { return a.hz > b.hz; });
}

double PowerModel::busy_w(double hz) const noexcept {
  return interpolate(profile_.core_power, hz, [](const CorePowerPoint& p) { return p.busy_w; });
}

double PowerModel::idle_w(double hz) const noexcept {
  return interpolate(profile_.core_power, hz, [](const CorePowerPoint& p) { return p.idle_w; });
}

double PowerModel::uncore_w(double hz) const noexcept {
  if (hz <= 0 || profile_.uncore_power.empty()) return profile_.uncore_w;
  return interpolate(profile_.uncore_power, hz, [](const UncorePowerPoint& p) { return p.w; });
}

double PowerModel::uncore_energy_j(const RunActivity& a) const noexcept {
  const double wall = std::max(0.0, a.wall_s);
  double left = wall, joules = 0;
  for (const auto& [hz, seconds] : a.uncore_s_at_hz) {
    const double at_hz = std::clamp(seconds, 0.0, left);
    joules += uncore_w(hz > 0 ? hz : a.uncore_hz) * at_hz;
    left -= at_hz;
  }
  return joules + uncore_w(a.uncore_hz) * left;
}

double PowerModel::energy_j(const RunActivity& a) const noexcept {
  const double wall = std::max(0.0, a.wall_s);
  double joules = uncore_energy_j(a);
  for (const CoreActivity& core : a.cores) {
    double busy_total = 0;
    for (const auto& [hz, seconds] : core.busy_s_at_hz) {
      joules += busy_w(hz) * std::max(0.0, seconds);
      busy_total += std::max(0.0, seconds);
    }
    // A core busier than the wall time (emulated delay counted twice, clock
    // skew) is charged for its busy time and no idle time.
    double idle_left = std::max(0.0, wall - busy_total);
    for (const auto& [hz, seconds] : core.idle_s_at_hz) {
      const double at_hz = std::clamp(seconds, 0.0, idle_left);
      joules += idle_w(hz) * at_hz;
      idle_left -= at_hz;
    }
    joules += idle_w(core.idle_hz) * idle_left;
  }
  return joules;
}

}  // namespace rubato
