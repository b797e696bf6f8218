#include "rubato/power/calibrate/knee_fit.hpp"

#include <algorithm>
#include <cmath>

#include "rubato/core/model/time_model.hpp"

namespace rubato {

namespace {

constexpr double kGridStepHz = 1e6;

// b_u and the residual sum of squares of the model with knee `knee_hz`; false
// when the model has no uncore term at any point (every g = 1).
bool fit_at_knee(std::span<const KneePoint> points, double reference_hz, double knee_hz, double& share, double& rss) {
  const ReferenceSetting ref{0, reference_hz, knee_hz};
  double sxx = 0, sxy = 0;
  for (const auto& p : points) {
    const double x = uncore_time_stretch(p.uncore_hz, ref) - 1;
    sxx += x * x;
    sxy += x * (p.ratio - 1);
  }
  if (!(sxx > 1e-12)) return false;
  // The slope is left free: a curve steeper than the model's form (g = f_k /
  // fu) is fitted with b_u > 1 and its knee where the bend is; held at 1, the
  // knee moved 400 MHz above a steep law's (2 GHz, gamma 1.5) to take the steepness.
  share = sxy / sxx;
  rss = 0;
  for (const auto& p : points) {
    const double r = p.ratio - 1 - share * (uncore_time_stretch(p.uncore_hz, ref) - 1);
    rss += r * r;
  }
  return true;
}

}  // namespace

KneeFit fit_memory_bandwidth_knee(std::span<const KneePoint> points, double reference_hz, double flat_limit) {
  KneeFit fit;
  if (points.size() < 2 || !(reference_hz > 0)) return fit;
  double lowest = reference_hz;
  for (const auto& p : points) {
    fit.largest_slowdown = std::max(fit.largest_slowdown, p.ratio - 1);
    lowest = std::min(lowest, p.uncore_hz);
  }
  if (fit.largest_slowdown < flat_limit) return fit;
  double best_rss = INFINITY, best_share = 0, best_knee = 0;
  // Counted steps, so that the fastest level itself is on the grid.
  const long steps = std::lround((reference_hz - lowest) / kGridStepHz);
  for (long i = 1; i <= steps; ++i) {
    const double knee = i == steps ? reference_hz : lowest + static_cast<double>(i) * kGridStepHz;
    double share = 0, rss = 0;
    if (fit_at_knee(points, reference_hz, knee, share, rss) && share > 0 && rss < best_rss) {
      best_rss = rss;
      best_share = share;
      best_knee = knee;
    }
  }
  if (!(best_knee > 0)) return fit;
  const ReferenceSetting ref{0, reference_hz, best_knee};
  double fitted_slowdown = 0;
  for (const auto& p : points) {
    fit.fitted.push_back(1 + best_share * (uncore_time_stretch(p.uncore_hz, ref) - 1));
    fitted_slowdown = std::max(fitted_slowdown, fit.fitted.back() - 1);
  }
  if (fitted_slowdown < flat_limit) {
    fit.fitted.clear();
    return fit;
  }
  fit.flat = false;
  fit.knee_hz = best_knee;
  fit.uncore_share = best_share;
  fit.residual_rms = std::sqrt(best_rss / static_cast<double>(points.size()));
  fit.knee_at_top = best_knee >= reference_hz;
  return fit;
}

}  // namespace rubato
