#include "rubato/power/calibrate/calibration_fit.hpp"

#include <algorithm>
#include <cmath>

namespace rubato {

namespace {

// Every point in a group, every group with a loaded CPU, enough points for
// the parameters; else false + `why`.
bool check_fit_points(std::span<const FitPoint> points, std::size_t groups, std::string& why) {
  const std::size_t m = groups + 1;
  std::vector<double> has_x(groups, 0);
  for (const auto& p : points) {
    if (p.group >= groups) {
      why = "fit: a point names group " + std::to_string(p.group) + " of " + std::to_string(groups);
      return false;
    }
    if (p.x > 0) has_x[p.group] = 1;
  }
  for (std::size_t g = 0; g < groups; ++g)
    if (!has_x[g]) {
      why = "fit: group " + std::to_string(g) + " has no point with a loaded CPU";
      return false;
    }
  if (points.size() < m) {
    why = "fit: " + std::to_string(points.size()) + " points for " + std::to_string(m) + " parameters";
    return false;
  }
  return true;
}

// Gauss-Jordan elimination with partial pivoting of the m rows of `a` (`cols`
// columns each, row-major); false when the system is singular.
bool gauss_jordan(std::vector<double>& a, std::size_t m, std::size_t cols) {
  auto at = [&](std::size_t r, std::size_t c) -> double& { return a[r * cols + c]; };
  for (std::size_t c = 0; c < m; ++c) {
    std::size_t pivot = c;
    for (std::size_t r = c + 1; r < m; ++r)
      if (std::fabs(at(r, c)) > std::fabs(at(pivot, c))) pivot = r;
    if (std::fabs(at(pivot, c)) < 1e-12) return false;
    if (pivot != c)
      for (std::size_t k = 0; k < cols; ++k) std::swap(at(c, k), at(pivot, k));
    const double d = at(c, c);
    for (std::size_t k = 0; k < cols; ++k) at(c, k) /= d;
    for (std::size_t r = 0; r < m; ++r) {
      if (r == c || at(r, c) == 0) continue;
      const double f = at(r, c);
      for (std::size_t k = 0; k < cols; ++k) at(r, k) -= f * at(c, k);
    }
  }
  return true;
}

}  // namespace

bool fit_shared_intercept(std::span<const FitPoint> points, std::size_t groups, SharedInterceptFit& out,
                          std::string& why) {
  const std::size_t m = groups + 1;  // parameter 0: the intercept, 1 + g: slope of group g
  if (!check_fit_points(points, groups, why)) return false;
  // Normal equations [XᵀX | Xᵀy | I], reduced to [I | θ | (XᵀX)⁻¹].
  const std::size_t cols = 2 * m + 1;
  std::vector<double> a(m * cols, 0.0);
  auto at = [&](std::size_t r, std::size_t c) -> double& { return a[r * cols + c]; };
  for (const auto& p : points) {
    const std::size_t g = 1 + p.group;
    at(0, 0) += 1;
    at(0, g) += p.x;
    at(g, 0) += p.x;
    at(g, g) += p.x * p.x;
    at(0, m) += p.y;
    at(g, m) += p.x * p.y;
  }
  for (std::size_t r = 0; r < m; ++r) at(r, m + 1 + r) = 1;
  if (!gauss_jordan(a, m, cols)) {
    why = "fit: the measurements do not determine the lines (singular system)";
    return false;
  }
  out = SharedInterceptFit{};
  out.intercept = at(0, m);
  for (std::size_t g = 0; g < groups; ++g) out.slope.push_back(at(1 + g, m));
  double rss = 0, var_sum = 0;
  for (const auto& p : points) {
    const double r = p.y - out.predict(p.group, p.x);
    rss += r * r;
    var_sum += p.var;
  }
  out.dof = points.size() - m;
  out.residual_sd = out.dof > 0 ? std::sqrt(rss / static_cast<double>(out.dof)) : 0;
  const double within = var_sum / static_cast<double>(points.size());
  const double sigma2 = std::max(out.dof > 0 ? rss / static_cast<double>(out.dof) : 0.0, within);
  out.intercept_se = std::sqrt(sigma2 * std::max(0.0, at(0, m + 1)));
  for (std::size_t g = 0; g < groups; ++g)
    out.slope_se.push_back(std::sqrt(sigma2 * std::max(0.0, at(1 + g, m + 2 + g))));
  return true;
}

}  // namespace rubato
