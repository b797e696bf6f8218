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
//    transactions as the counter sensor reads them from the plant
//    (sensors.hpp): present or absent, biased and noisy as the run asks.
// The simulator carries out a decision as the live runner does: the engine's
// core ceiling and work sensitivity (for the guard), the uncore's level.
#pragma once

#include <optional>
#include <string>

#include "rubato/core/io/report.hpp"
#include "rubato/core/min_energy/learner.hpp"
#include "rubato/core/min_energy/min_energy_controller.hpp"
#include "rubato/core/min_energy/type_stats_delta.hpp"
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

  bool closed_loop() const noexcept { return learner_.has_value(); }
  // Open loop: the interval ending at `now_s`, with the counters' reading of
  // it (nullptr: none): the controller's new decision, or nullopt when the
  // one in force stands.
  std::optional<min_energy::Decision> step(double now_s, const WorkerActivity& activity,
                                           const counters::CounterSample* sample) {
    return controller_.step({now_s, activity, sample});
  }
  // Closed loop: the same with the engine's segment durations since the
  // last step, the uncore level in force and the meter's energy.
  std::optional<min_energy::LearnerDecision> step(min_energy::LearnerInput input,
                                                  const std::vector<TaskTypeCell>& durations_now) {
    input.segments = delta_.since_last(durations_now);
    return learner_->step(input);
  }
  const min_energy::Learner* learner() const noexcept { return learner_ ? &*learner_ : nullptr; }
  const min_energy::ControllerParams& params() const noexcept { return controller_.params(); }

 private:
  min_energy::Controller controller_;
  std::optional<min_energy::Learner> learner_;
  min_energy::TypeStatsDelta delta_;
};

}  // namespace rubato::sim::detail
