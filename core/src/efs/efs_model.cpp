#include "rubato/core/efs/efs_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "efs/dense_newton.hpp"

namespace rubato::efs {

double solo_utilisation(double u_i, double U) noexcept {
  if (!(u_i > 0)) return 0;  // also NaN
  U = std::clamp(U, u_i, 1.0);
  u_i = std::min(u_i, 1.0);
  const double contended = u_i * (u_i + 1 - U);  // Eq. 9 numerator
  return contended / (contended + 1 - U);
}

std::string_view to_string(SolveStatus s) noexcept {
  switch (s) {
    case SolveStatus::converged: return "converged";
    case SolveStatus::not_converged: return "not_converged";
    case SolveStatus::singular: return "singular";
    case SolveStatus::invalid_input: return "invalid_input";
  }
  return "unknown";
}

double clamp_solo(double b) noexcept { return std::isnan(b) ? 0 : std::clamp(b, 0.0, kMaxSoloUtilisation); }

namespace {

// Eq. 10 residual of one thread, with a = 1 − 1/b and s = 1 − U.
double eq10(double a, double u, double s) noexcept { return a * u * u + a * u * s + s; }

}  // namespace

double eq10_residual(std::span<const double> solo, std::span<const double> u) noexcept {
  const double s = 1 - std::accumulate(u.begin(), u.end(), 0.0);
  double worst = 0;
  for (std::size_t i = 0; i < solo.size() && i < u.size(); ++i) {
    // b_i = 0 means u_i = 0 exactly (the equation multiplied through by b_i).
    const double r = solo[i] > 0 ? eq10(1 - 1 / solo[i], u[i], s) : u[i];
    worst = std::isnan(r) ? r : std::max(worst, std::fabs(r));
  }
  return worst;
}

UtilisationPrediction predict_utilisations(std::span<const double> solo, const NewtonOptions& options) {
  UtilisationPrediction out;
  out.u.assign(solo.size(), 0.0);
  std::vector<std::size_t> active;  // threads that use the bus
  for (std::size_t i = 0; i < solo.size(); ++i) {
    if (!(solo[i] >= 0 && solo[i] < 1)) return out;  // invalid_input (also NaN)
    if (solo[i] > 0) active.push_back(i);
  }
  const std::size_t n = active.size();
  std::vector<double> a(n);
  double sum_b = 0;
  for (std::size_t k = 0; k < n; ++k) {
    a[k] = 1 - 1 / solo[active[k]];
    sum_b += solo[active[k]];
  }
  // Eq. 10 and its Jacobian: ∂f_i/∂u_i = a_i u_i + a_i(1 − U) − 1, ∂f_i/∂u_j = −a_i u_i − 1.
  const detail::NewtonSystem system = [&a, n](const std::vector<double>& u, std::vector<double>& f,
                                              std::vector<double>& jac) {
    const double s = 1 - std::accumulate(u.begin(), u.end(), 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      f[i] = eq10(a[i], u[i], s);
      const double off = -a[i] * u[i] - 1;
      for (std::size_t j = 0; j < n; ++j) jac[i * n + j] = off;
      jac[i * n + i] = a[i] * u[i] + a[i] * s - 1;
    }
  };
  // The physical branch: every thread uses the bus some of the time, and the bus is not always busy.
  const detail::NewtonDomain domain = [](const std::vector<double>& u) {
    double total = 0;
    for (double e : u) {
      if (!(e > 0)) return false;
      total += e;
    }
    return total < 1;
  };
  // Start inside the domain: the solo utilisations shrunk so that U < 1.
  std::vector<double> x0(n);
  for (std::size_t k = 0; k < n; ++k) x0[k] = solo[active[k]] / (1 + sum_b);
  const detail::NewtonRun run = detail::solve_newton(system, domain, std::move(x0), options);
  out.status = run.status;
  out.iterations = run.iterations;
  out.residual = run.residual;
  for (std::size_t k = 0; k < n; ++k) out.u[active[k]] = run.x[k];
  out.total = std::accumulate(out.u.begin(), out.u.end(), 0.0);
  return out;
}

std::vector<double> slowdowns(std::span<const double> solo, std::span<const double> u) {
  std::vector<double> out(solo.size(), 1.0);
  for (std::size_t i = 0; i < solo.size() && i < u.size(); ++i)
    if (solo[i] > 0) out[i] = u[i] / solo[i];
  return out;
}

double throughput(std::span<const double> solo, std::span<const double> u, double alpha) {
  const std::vector<double> s = slowdowns(solo, u);
  return alpha * std::accumulate(s.begin(), s.end(), 0.0);
}

PowerTable::PowerTable(std::vector<double> increments_w) : increments_w_(std::move(increments_w)) {
  if (increments_w_.empty()) throw std::invalid_argument("EFS power table ([EFS] Eq. 13) needs P0..Pn, got none");
  for (double p : increments_w_)
    if (!std::isfinite(p) || p < 0)
      throw std::invalid_argument("EFS power table ([EFS] Eq. 13): every P_k must be a finite number >= 0 W");
}

std::optional<double> PowerTable::power_w(int active_cores) const noexcept {
  if (active_cores < 0 || active_cores > max_active_cores()) return std::nullopt;
  return std::accumulate(increments_w_.begin(), increments_w_.begin() + active_cores + 1, 0.0);
}

double energy_per_work(double power_w, double throughput) noexcept {
  return throughput > 0 ? power_w / throughput : std::numeric_limits<double>::infinity();
}

SetPrediction predict_set(std::span<const double> solo, const PowerTable& power, double alpha,
                          const NewtonOptions& options) {
  SetPrediction out;
  out.utilisation = predict_utilisations(solo, options);
  out.power_w = power.power_w(static_cast<int>(solo.size()));
  if (!out.utilisation.ok()) return out;
  out.slowdowns = slowdowns(solo, out.utilisation.u);
  out.throughput = alpha * std::accumulate(out.slowdowns.begin(), out.slowdowns.end(), 0.0);
  if (out.power_w) out.energy_per_work = energy_per_work(*out.power_w, out.throughput);
  return out;
}

}  // namespace rubato::efs
