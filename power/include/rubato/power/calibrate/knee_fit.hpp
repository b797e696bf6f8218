// The memory-bandwidth knee behind `rubato calibrate`'s uncore probe
// (docs/calibrate.md): the probe's time at each uncore level relative to the
// fastest, t(fu) / t(fu_ref), fitted to the time model's uncore term
// (rubato/core/model/time_model.hpp)
//     t(fu) / t(fu_ref) = 1 + b_u · (g(fu) − 1),  g(fu) = max(1, f_k/fu) / max(1, f_k/fu_ref)
// by least squares: for each knee f_k on a grid (1 MHz steps from the slowest
// level to the fastest) b_u is the least-squares slope through the origin
// (above 1 where the curve is steeper than the form: then the knee is where
// it bends, and b_u is no share of the time), and the knee with the smallest
// residual wins. A knee at the fastest level is the
// model without a knee (g = fu_ref / fu at every level). Pure arithmetic.
#pragma once

#include <span>
#include <vector>

namespace rubato {

struct KneePoint {
  double uncore_hz = 0;
  double ratio = 1;  // t(fu) / t(fu_ref)
};

struct KneeFit {
  // No uncore sensitivity measurable: the largest slowdown, or the fitted
  // curve's, stays below the flat limit. Then no knee is given.
  bool flat = true;
  double knee_hz = 0;
  double uncore_share = 0;      // b_u of the probe (> 1: steeper than the form)
  double residual_rms = 0;      // of the ratio, over the points
  double largest_slowdown = 0;  // max(ratio) − 1
  bool knee_at_top = false;     // the best knee is the fastest level: no knee inside the range
  std::vector<double> fitted;   // per point, 1 + b_u (g − 1) (empty when flat)
};

// Slowdowns below this share of the time are not told from noise: 3 %.
inline constexpr double kKneeFlatLimit = 0.03;

// `points` at two uncore levels or more, `reference_hz` the fastest of them.
KneeFit fit_memory_bandwidth_knee(std::span<const KneePoint> points, double reference_hz,
                                  double flat_limit = kKneeFlatLimit);

}  // namespace rubato
