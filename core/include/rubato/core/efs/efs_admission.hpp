// EFS admission of one more thread ([EFS] §3.1 Eqs. 15–16, §4.2): run an
// additional thread only if the energy per work of the new set is lower.
//
// Reconstructed from the garbled PDF text:
//   Eq. 15  Energy(new) < Energy(current)
//   Eq. 16  Σ_{k=1..n} u_k/b_k − Throughput(current) · Power(new)/Power(current) = 0
//           (α = 1 there; with α the first term is α Σ u_k/b_k), where threads
//           1..n−1 run now on n−1 cores, thread n is the hypothetical newcomer,
//           Power(new) = Power(n), Power(current) = Power(n − 1) (Eq. 13).
//   Eqs. 10 + 16: n + 1 equations in u_1..u_n and b_n; the solution b_n is the
//   threshold: a candidate whose solo utilisation is below it should run.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "rubato/core/efs/efs_model.hpp"

namespace rubato::efs {

enum class AdmissionStatus {
  threshold_found,  // 0 < max_solo < 1 solves Eqs. 10 + 16
  admits_any,       // even a thread that owns the bus lowers energy per work (max_solo = 1)
  admits_none,      // even a thread that never touches the bus raises it (max_solo = 0)
  no_free_core,     // the power table has no P_n for one more active core
  not_converged,    // Newton (Eq. 10 for the current set, or Eqs. 10 + 16) failed: see residual
  invalid_input,    // a current solo utilisation outside [0, 1)
};
std::string_view to_string(AdmissionStatus s) noexcept;

struct AdmissionThreshold {
  AdmissionStatus status = AdmissionStatus::invalid_input;
  std::optional<double> max_solo;  // b_n; nullopt when unknown (no_free_core, not_converged, invalid_input)
  double current_throughput = 0;   // Eq. 12 for the running set
  double current_power_w = 0;      // Eq. 13, n − 1 active cores
  double new_power_w = 0;          // Eq. 13, n active cores (0 when no_free_core)
  double target_throughput = 0;    // Throughput(current)·Power(new)/Power(current): break-even
  std::vector<double> u;           // u_1..u_n at the threshold (threshold_found only)
  double residual = 0;             // max |residual| of Eqs. 10 + 16 (threshold_found / not_converged)
  int iterations = 0;
  // "If the solo bandwidth of a candidate thread is below the threshold, the
  // system should run it" (§3.1); nullopt when the threshold is unknown.
  std::optional<bool> admits(double candidate_solo) const noexcept {
    if (!max_solo) return std::nullopt;
    return candidate_solo < *max_solo;
  }
};

// Eqs. 10 + 16 solved jointly by multivariate Newton for the set `current_solo`
// (one thread per active core) plus one hypothetical thread.
AdmissionThreshold admission_threshold(std::span<const double> current_solo, const PowerTable& power,
                                       double alpha = 1.0, const NewtonOptions& options = {});

// Eq. 15 evaluated directly for one candidate (what the threshold summarises).
struct AdmissionCheck {
  SolveStatus status = SolveStatus::invalid_input;  // of the two Eq. 10 solves (the worse one)
  std::optional<double> energy_current;             // Eq. 14 (+inf with nothing running)
  std::optional<double> energy_new;                 // nullopt: no core left in the power table
  double throughput_current = 0;
  double throughput_new = 0;
  bool admit = false;  // energy_new < energy_current (false when anything is unknown)
};
AdmissionCheck check_admission(std::span<const double> current_solo, double candidate_solo, const PowerTable& power,
                               double alpha = 1.0, const NewtonOptions& options = {});

}  // namespace rubato::efs
