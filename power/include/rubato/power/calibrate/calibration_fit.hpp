// The line fit behind `rubato calibrate` (docs/calibrate.md): package power
// measured with x CPUs running a loop, at several frequencies and for two
// loops (compute, spin), fitted as lines P = U + b_g · x that share one
// intercept U (the power with every CPU idle: the profile's uncore_w) and
// have one slope b_g per group g (a frequency and a loop: busy_w or idle_w).
// That is the model a profile expresses, so the fit is ordinary least
// squares of exactly that model (normal equations, solved by Gauss-Jordan).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace rubato {

struct FitPoint {
  double x = 0;           // CPUs running the group's loop (measured CPU-seconds per second)
  double y = 0;           // package power, W
  std::size_t group = 0;  // which slope; points with x = 0 pin the intercept whatever their group
  double var = 0;         // variance of y from within the measurement (W²), 0 if unknown
};

struct SharedInterceptFit {
  double intercept = 0;
  double intercept_se = 0;       // standard error
  std::vector<double> slope;     // per group
  std::vector<double> slope_se;  // per group
  double residual_sd = 0;        // sqrt(RSS / dof), 0 when dof = 0
  std::size_t dof = 0;           // points - parameters
  // The predicted y for `x` CPUs in group `g`.
  double predict(std::size_t g, double x) const { return intercept + slope.at(g) * x; }
};

// Fits `points` with `groups` slopes. Standard errors from sigma² (XᵀX)⁻¹
// with sigma² = max(RSS / dof, mean within-measurement variance) — the
// second alone when dof = 0 (each line through exactly its points). false +
// `why` when a group has no point with x > 0 or the system is singular.
bool fit_shared_intercept(std::span<const FitPoint> points, std::size_t groups, SharedInterceptFit& out,
                          std::string& why);

}  // namespace rubato
