// EFS contention and energy model ([EFS] §3.1, Eqs. 1–14): memory-bus
// collisions between threads, the throughput they leave, the additive power
// model and energy per work. Pure math; utilisations are fractions of the bus
// (accesses ÷ (µ·Δt), see efs_counters.hpp), solo utilisations b_i in [0, 1).
//
// Reconstructed from the garbled PDF text (derivation: Eqs. 2, 4, 6–8):
//   Eq. 9   b_i = u_i(u_i + 1 − U) / (u_i(u_i + 1 − U) + 1 − U),  U = Σ_k u_k (Eq. 5)
//           [from 1/u_i = 1/(1 − ρ_i) + 1/b_i − 1 with ρ_i = U − u_i]
//   Eq. 10  u_i²(1 − 1/b_i) + u_i(1 − U)(1 − 1/b_i) + 1 − U = 0,  i = 1..n
//   Eq. 11  Slowdown_i = t_solo,i / t_parallel,i = u_i / b_i   (1 = unhindered)
//   Eq. 12  Throughput = α Σ_k Slowdown_k
//   Eq. 13  Power(n) = Σ_{k=0..n} P_k   (P0: no core active; P_k: what the k-th active core adds)
//   Eq. 14  Energy = Power / Throughput   (energy per unit of work)
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace rubato::efs {

// Eq. 9: a thread's solo bus utilisation from its measured utilisation u_i and
// the measured total U while others interfere. Measured inputs are clamped to
// the model's range (0 ≤ u_i ≤ U ≤ 1: counter noise can put U above 1); at U = 1
// (saturated bus) every thread with u_i > 0 has b_i = 1, and u_i = 0 gives 0.
double solo_utilisation(double u_i, double U) noexcept;

enum class SolveStatus {
  converged,
  not_converged,  // iteration bound reached or no step reduced the residual
  singular,       // the Jacobian could not be inverted
  invalid_input,  // a solo utilisation outside [0, 1) or not a number
};
std::string_view to_string(SolveStatus s) noexcept;

// The paper's kernel stops after 4 iterations (§4.1) in integer arithmetic; in
// double precision from the starting point used here 3–7 iterations reach 1e-14.
struct NewtonOptions {
  int max_iterations = 50;
  double tolerance = 1e-14;  // on max_i |Eq. 10 residual_i| (an O(1) quantity)
};

struct UtilisationPrediction {
  SolveStatus status = SolveStatus::invalid_input;
  std::vector<double> u;  // per thread; the last iterate when not converged
  double total = 0;       // U = Σ u_i
  double residual = 0;    // max_i |Eq. 10 residual_i| at u
  int iterations = 0;
  bool ok() const noexcept { return status == SolveStatus::converged; }
};

// Eq. 10 solved for u_1..u_n given b_1..b_n by multivariate Newton. A thread with
// b_i = 0 never uses the bus (u_i = 0, slowdown 1) and is left out of the system.
// b_i ≥ 1 (a thread that never leaves the bus) is outside the model: invalid_input
// (clamp estimates with clamp_solo first).
UtilisationPrediction predict_utilisations(std::span<const double> solo, const NewtonOptions& options = {});

// max_i |Eq. 10 residual_i| of utilisations u for solo utilisations b (same size).
double eq10_residual(std::span<const double> solo, std::span<const double> u) noexcept;

// The largest solo utilisation the model accepts, and measured estimates clamped to [0, it].
inline constexpr double kMaxSoloUtilisation = 0.999;
double clamp_solo(double b) noexcept;

// Eq. 11 for each thread (b_i = 0 → 1).
std::vector<double> slowdowns(std::span<const double> solo, std::span<const double> u);
// Eq. 12.
double throughput(std::span<const double> solo, std::span<const double> u, double alpha = 1.0);

// Eq. 13: P0..Pn, each P_k ≥ 0 ([EFS] Eq. 25 for the i5-2500: 26.6, 22.6, 12, 12.3, 12.3 W).
class PowerTable {
 public:
  // Throws std::invalid_argument when empty or any entry is negative or not finite.
  explicit PowerTable(std::vector<double> increments_w);
  int max_active_cores() const noexcept { return static_cast<int>(increments_w_.size()) - 1; }
  // Σ_{k=0..active_cores} P_k; nullopt beyond the table (or below 0).
  std::optional<double> power_w(int active_cores) const noexcept;
  const std::vector<double>& increments_w() const noexcept { return increments_w_; }

 private:
  std::vector<double> increments_w_;
};

// Eq. 14 (J per unit of work when power is in W and throughput in work/s);
// +infinity when throughput is 0 (nothing runs: all power is wasted).
double energy_per_work(double power_w, double throughput) noexcept;

// Everything the model says about running `solo.size()` threads, one per core.
struct SetPrediction {
  UtilisationPrediction utilisation;
  std::vector<double> slowdowns;  // Eq. 11 (empty unless utilisation.ok())
  double throughput = 0;          // Eq. 12
  std::optional<double> power_w;  // Eq. 13 with n = number of threads; nullopt: more threads than the table's cores
  std::optional<double> energy_per_work;  // Eq. 14
};
SetPrediction predict_set(std::span<const double> solo, const PowerTable& power, double alpha = 1.0,
                          const NewtonOptions& options = {});

}  // namespace rubato::efs
