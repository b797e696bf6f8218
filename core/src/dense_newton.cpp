#include "dense_newton.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>

namespace rubato::efs::detail {

double max_abs(const std::vector<double>& v) noexcept {
  double m = 0;
  for (double e : v) m = std::isnan(e) ? e : std::max(m, std::fabs(e));
  return m;
}

namespace {

// Solves jac · dx = rhs in place (jac destroyed). False when jac is singular.
bool solve_linear(std::vector<double>& jac, std::vector<double>& rhs, std::size_t n) {
  double scale = 0;
  for (double e : jac) scale = std::max(scale, std::fabs(e));
  const double tiny = (scale > 0 ? scale : 1.0) * 1e-14;
  for (std::size_t col = 0; col < n; ++col) {
    std::size_t pivot = col;
    for (std::size_t r = col + 1; r < n; ++r)
      if (std::fabs(jac[r * n + col]) > std::fabs(jac[pivot * n + col])) pivot = r;
    if (!(std::fabs(jac[pivot * n + col]) > tiny)) return false;
    if (pivot != col) {
      for (std::size_t c = 0; c < n; ++c) std::swap(jac[col * n + c], jac[pivot * n + c]);
      std::swap(rhs[col], rhs[pivot]);
    }
    for (std::size_t r = col + 1; r < n; ++r) {
      const double factor = jac[r * n + col] / jac[col * n + col];
      if (factor == 0) continue;
      for (std::size_t c = col; c < n; ++c) jac[r * n + c] -= factor * jac[col * n + c];
      rhs[r] -= factor * rhs[col];
    }
  }
  for (std::size_t i = n; i-- > 0;) {
    double s = rhs[i];
    for (std::size_t c = i + 1; c < n; ++c) s -= jac[i * n + c] * rhs[c];
    rhs[i] = s / jac[i * n + i];
  }
  return true;
}

}  // namespace

NewtonRun solve_newton(const NewtonSystem& system, const NewtonDomain& domain, std::vector<double> x0,
                       const NewtonOptions& options) {
  const std::size_t n = x0.size();
  NewtonRun run;
  run.x = std::move(x0);
  std::vector<double> f(n), jac(n * n), trial(n), trial_f(n), trial_jac(n * n);
  system(run.x, f, jac);
  run.residual = max_abs(f);
  while (true) {
    if (run.residual <= options.tolerance) {
      run.status = SolveStatus::converged;
      return run;
    }
    if (!std::isfinite(run.residual)) {
      run.status = SolveStatus::not_converged;
      return run;
    }
    if (run.iterations >= options.max_iterations) {
      run.status = SolveStatus::not_converged;
      return run;
    }
    std::vector<double> step = f;  // J·dx = f, x_next = x - dx
    if (!solve_linear(jac, step, n)) {
      run.status = SolveStatus::singular;
      return run;
    }
    ++run.iterations;
    double lambda = 1.0;
    bool accepted = false;
    for (int halvings = 0; halvings <= 40; ++halvings, lambda *= 0.5) {
      for (std::size_t i = 0; i < n; ++i) trial[i] = run.x[i] - lambda * step[i];
      if (!domain(trial)) continue;
      system(trial, trial_f, trial_jac);
      const double r = max_abs(trial_f);
      if (std::isfinite(r) && r < run.residual) {
        accepted = true;
        break;
      }
    }
    if (!accepted) {
      run.status = SolveStatus::not_converged;
      return run;
    }
    run.x.swap(trial);
    f.swap(trial_f);
    jac.swap(trial_jac);
    run.residual = max_abs(f);
  }
}

}  // namespace rubato::efs::detail
