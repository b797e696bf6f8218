// A small safeguarded multivariate Newton solver (dense Jacobian, Eigen's LU
// with partial pivoting) for the EFS model's systems of equations
// ([EFS] Eqs. 10 and 16). The paper runs "at most 4 iterations, stopping
// earlier if the computation converges" (§4.1); here the bound is a parameter and
// a run that does not converge says so, with its residual.
#pragma once

#include <functional>
#include <vector>

#include "rubato/core/efs/efs_model.hpp"

namespace rubato::efs::detail {

// Fills f (size n) and the row-major Jacobian jac (n x n) at x.
using NewtonSystem =
    std::function<void(const std::vector<double>& x, std::vector<double>& f, std::vector<double>& jac)>;
// True when x lies where the equations describe the physical model.
using NewtonDomain = std::function<bool(const std::vector<double>& x)>;

struct NewtonRun {
  SolveStatus status = SolveStatus::not_converged;
  std::vector<double> x;  // the last iterate (the solution when converged)
  double residual = 0;    // max |f_i(x)|
  int iterations = 0;
};

// Newton from x0 (which must lie in the domain). A full step that leaves the
// domain or does not reduce the residual max |f_i| is halved (at most 40 times):
// the damped-Newton safeguard that keeps the iterate on the physical branch.
NewtonRun solve_newton(const NewtonSystem& system, const NewtonDomain& domain, std::vector<double> x0,
                       const NewtonOptions& options);

// max |v_i|
double max_abs(const std::vector<double>& v) noexcept;

}  // namespace rubato::efs::detail
