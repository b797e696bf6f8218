// eco's min-energy part in the simulator: the live controller's own decision
// (rubato/core/min_energy/min_energy_controller.hpp, its model built as the
// live session builds it: rubato/power/session/min_energy_setup.hpp), stepped
// every control interval with what a live run would hand it:
//  - the engine's working and waiting workers at the step (Engine::activity);
//  - the work's sensitivities from the settings the simulated user gave
//    (SimOptions::min_energy: RUBATO_CORE_SENSITIVITY / RUBATO_UNCORE_SENSITIVITY
//    in a live run), else the profile's β and b_u 0;
//  - where the profile gives the counter relation b_u = R / R_sat
//    (memory_transaction_rate_saturated_per_s), the interval's memory
//    transactions as counters would count them: work of uncore share b_u
//    makes b_u · R_sat / cores transactions per second of reference work, so
//    all the profile's cores running such work at the reference setting read
//    back b_u, and work slowed by its frequencies makes fewer per second, as
//    on the machine.
// The simulator carries out a decision as the live runner does: the engine's
// core ceiling and work sensitivity (for the guard), the uncore's level.
#pragma once

#include <optional>
#include <string>

#include "rubato/core/io/report.hpp"
#include "rubato/core/min_energy/min_energy_controller.hpp"
#include "rubato/core/tempo/tempo_ladder.hpp"
#include "rubato/power/frequency/uncore_ladder.hpp"
#include "rubato/sim/simulator.hpp"

namespace rubato::sim::detail {

class SimMinEnergy {
 public:
  // `lever`: the uncore levels min-energy may set (empty: the uncore is not
  // moved; it draws the profile's power at `o.uncore_hz`, 0: its constant).
  // Throws std::invalid_argument for a bad time-loss bound or levels.
  SimMinEnergy(const SimOptions& o, const TempoLadder& ladder, const UncoreLadder& lever);

  bool counts_transactions() const noexcept { return transactions_per_ns_ > 0; }
  // `reference_ns` of work of class `wc` done since the last call.
  void add_work(double reference_ns, const WorkClass& wc) noexcept {
    transactions_ += reference_ns * wc.uncore * transactions_per_ns_;
  }
  // The interval of `interval_s` ending at `now_s`: the controller's new
  // decision, or nullopt when the one in force stands. The tally starts over.
  std::optional<min_energy::Decision> step(double now_s, double interval_s, const WorkerActivity& activity);

  const min_energy::ControllerParams& params() const noexcept { return controller_.params(); }

 private:
  min_energy::Controller controller_;
  double transactions_per_ns_ = 0;  // per ns of reference work at b_u = 1: R_sat / cores / 1e9
  double transactions_ = 0;
};

}  // namespace rubato::sim::detail
