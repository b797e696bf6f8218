#include "rubato/core/efs/efs_admission.hpp"

#include <algorithm>
#include <numeric>

#include "efs/dense_newton.hpp"

namespace rubato::efs {

std::string_view to_string(AdmissionStatus s) noexcept {
  switch (s) {
    case AdmissionStatus::threshold_found: return "threshold_found";
    case AdmissionStatus::admits_any: return "admits_any";
    case AdmissionStatus::admits_none: return "admits_none";
    case AdmissionStatus::no_free_core: return "no_free_core";
    case AdmissionStatus::not_converged: return "not_converged";
    case AdmissionStatus::invalid_input: return "invalid_input";
  }
  return "unknown";
}

namespace {

// Eqs. 10 + 16 in x = (u_1..u_m, u_new, b_new) for the m current threads that use
// the bus (solo b), with `idle_threads` current threads at b = 0 (slowdown 1 each).
struct JointSystem {
  std::vector<double> b;  // current bus users
  double idle_threads = 0;
  double alpha = 1;
  double target = 0;

  void operator()(const std::vector<double>& x, std::vector<double>& f, std::vector<double>& jac) const {
    const std::size_t m = b.size(), n = m + 1, dim = n + 1;
    const double b_new = x[n];
    double total = 0;
    for (std::size_t i = 0; i < n; ++i) total += x[i];
    const double s = 1 - total;
    std::fill(jac.begin(), jac.end(), 0.0);
    double slowdown_sum = idle_threads;
    for (std::size_t i = 0; i < n; ++i) {
      const double bi = i < m ? b[i] : b_new;
      const double a = 1 - 1 / bi;
      const double u = x[i];
      f[i] = a * u * u + a * u * s + s;  // Eq. 10
      for (std::size_t j = 0; j < n; ++j) jac[i * dim + j] = -a * u - 1;
      jac[i * dim + i] = a * u + a * s - 1;
      slowdown_sum += u / bi;
      jac[n * dim + i] = alpha / bi;  // ∂(Eq. 16)/∂u_i
    }
    jac[(n - 1) * dim + n] = (x[n - 1] * x[n - 1] + x[n - 1] * s) / (b_new * b_new);  // ∂a_n/∂b_n = 1/b_n²
    f[n] = alpha * slowdown_sum - target;                                             // Eq. 16
    jac[n * dim + n] = -alpha * x[n - 1] / (b_new * b_new);
  }
};

// Where Newton's x = (u_1..u_m, u_new, b_new) may go: b_new in (0, 1), every u
// positive, their sum below 1.
bool in_joint_domain(const std::vector<double>& x) {
  const double b_new = x.back();
  if (!(b_new > 0 && b_new < 1)) return false;
  double total = 0;
  for (std::size_t i = 0; i + 1 < x.size(); ++i) {
    if (!(x[i] > 0)) return false;
    total += x[i];
  }
  return total < 1;
}

// Newton's starting point for a newcomer at solo b0: the utilisations Eq. 10
// predicts with it (or b / (1 + Σb) where that fails to converge), then b0.
// `iterations` gets those the prediction took.
std::vector<double> joint_start(const JointSystem& sys, double b0, const NewtonOptions& options, int& iterations) {
  std::vector<double> with_new(sys.b);
  with_new.push_back(b0);
  const UtilisationPrediction start = predict_utilisations(with_new, options);
  iterations = start.iterations;
  std::vector<double> x0;
  if (start.ok()) {
    x0 = start.u;
  } else {
    const double sum = std::accumulate(with_new.begin(), with_new.end(), 0.0);
    for (double b : with_new) x0.push_back(b / (1 + sum));
  }
  x0.push_back(b0);
  return x0;
}

// Solves Eqs. 10 and 16 together from a newcomer at solo b0 and fills `out`
// (status, max_solo, utilisations in the caller's order).
void solve_threshold(AdmissionThreshold& out, const JointSystem& sys, double b0, std::span<const double> current_solo,
                     const NewtonOptions& options) {
  int start_iterations = 0;
  std::vector<double> x0 = joint_start(sys, b0, options, start_iterations);
  const detail::NewtonRun run = detail::solve_newton(sys, in_joint_domain, std::move(x0), options);
  out.residual = run.residual;
  out.iterations = run.iterations + start_iterations;
  if (run.status != SolveStatus::converged) {
    out.status = AdmissionStatus::not_converged;
    return;
  }
  out.status = AdmissionStatus::threshold_found;
  out.max_solo = run.x.back();
  // Back to the caller's order: current threads (0 for b = 0), then the newcomer.
  out.u.assign(current_solo.size() + 1, 0.0);
  std::size_t k = 0;
  for (std::size_t i = 0; i < current_solo.size(); ++i)
    if (current_solo[i] > 0) out.u[i] = run.x[k++];
  out.u.back() = run.x[k];
}

}  // namespace

AdmissionThreshold admission_threshold(std::span<const double> current_solo, const PowerTable& power, double alpha,
                                       const NewtonOptions& options) {
  AdmissionThreshold out;
  const int running = static_cast<int>(current_solo.size());
  const UtilisationPrediction current = predict_utilisations(current_solo, options);
  if (current.status == SolveStatus::invalid_input) return out;
  out.current_power_w = power.power_w(running).value_or(0);
  if (current.ok()) out.current_throughput = throughput(current_solo, current.u, alpha);
  const auto new_power = power.power_w(running + 1);
  if (!new_power) {
    out.status = AdmissionStatus::no_free_core;
    return out;
  }
  out.new_power_w = *new_power;
  if (!current.ok()) {
    out.status = AdmissionStatus::not_converged;
    out.residual = current.residual;
    out.iterations = current.iterations;
    return out;
  }
  if (running == 0 || out.current_throughput <= 0) {  // Energy(current) = +inf: anything helps
    out.status = AdmissionStatus::admits_any;
    out.max_solo = 1.0;
    return out;
  }
  out.target_throughput = out.current_throughput * out.new_power_w / out.current_power_w;

  JointSystem sys;
  sys.alpha = alpha;
  sys.target = out.target_throughput;
  for (double b : current_solo) {
    if (b > 0) sys.b.push_back(b);
    else sys.idle_threads += 1;
  }
  // The newcomer's limits: b_n → 0 leaves the others alone and adds slowdown 1;
  // b_n → 1 takes the whole bus (U = 1, every other bus user stalls, Eq. 10).
  const double best = out.current_throughput + alpha;
  const double worst = alpha * (1 + sys.idle_threads);
  if (out.target_throughput >= best) {
    out.status = AdmissionStatus::admits_none;
    out.max_solo = 0.0;
    return out;
  }
  if (out.target_throughput <= worst) {
    out.status = AdmissionStatus::admits_any;
    out.max_solo = 1.0;
    return out;
  }

  // Start from the b_n that linear interpolation between the limits gives.
  const double b0 = std::clamp((best - out.target_throughput) / (best - worst), 0.01, 0.99);
  solve_threshold(out, sys, b0, current_solo, options);
  return out;
}

AdmissionCheck check_admission(std::span<const double> current_solo, double candidate_solo, const PowerTable& power,
                               double alpha, const NewtonOptions& options) {
  AdmissionCheck out;
  std::vector<double> with_new(current_solo.begin(), current_solo.end());
  with_new.push_back(candidate_solo);
  const SetPrediction now = predict_set(current_solo, power, alpha, options);
  const SetPrediction next = predict_set(with_new, power, alpha, options);
  out.status = !now.utilisation.ok() ? now.utilisation.status : next.utilisation.status;
  out.throughput_current = now.throughput;
  out.throughput_new = next.throughput;
  out.energy_current = now.energy_per_work;
  out.energy_new = next.energy_per_work;
  out.admit = out.status == SolveStatus::converged && out.energy_current && out.energy_new &&
              *out.energy_new < *out.energy_current;
  return out;
}

}  // namespace rubato::efs
