#include "efs/dense_newton.hpp"

#include <Eigen/LU>

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

// Solves jac · dx = rhs (jac row-major n x n) in place of rhs, by Eigen's LU
// with partial pivoting. False when jac is singular: a pivot no larger than
// 1e-14 of its largest entry (the test of the hand-written elimination it
// replaced).
bool solve_linear(const std::vector<double>& jac, std::vector<double>& rhs, std::size_t n) {
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Eigen::Map<const RowMajor> a(jac.data(), static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(n));
  const double scale = n > 0 ? a.cwiseAbs().maxCoeff() : 0.0;
  const double tiny = (scale > 0 ? scale : 1.0) * 1e-14;
  const Eigen::PartialPivLU<RowMajor> lu(a);
  for (Eigen::Index i = 0; i < static_cast<Eigen::Index>(n); ++i)
    if (!(std::fabs(lu.matrixLU()(i, i)) > tiny)) return false;
  Eigen::Map<Eigen::VectorXd> b(rhs.data(), static_cast<Eigen::Index>(n));
  const Eigen::VectorXd dx = lu.solve(b);
  b = dx;
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
