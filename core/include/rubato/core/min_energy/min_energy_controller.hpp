// min-energy (rubato's own, after EAR's min_energy policy; docs/min-energy.md):
// each control interval, for the work now running, the core level of the
// working workers and the uncore level that minimise modelled energy within
// a bound on the time lost (choose_frequency_pair, rubato/core/model/
// frequency_pair.hpp). What rubato knows and [Cuttlefish] does not is the
// scheduler: waiting workers sit at the slowest core level (slack) and are
// counted at its idle power; the uncore is shared, so it follows the workers
// that run, and when none runs it goes to its lowest level.
//
// Pure: the live controller host (power/src/session/controller_host.cpp),
// the simulator and the tests drive step() with the workers' activity and
// the interval's counters, and carry out what it decides (the engine's core
// ceiling, an UncoreControl).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>

#include "rubato/core/counters/counter_sample.hpp"
#include "rubato/core/min_energy/sensitivity_source.hpp"
#include "rubato/core/model/frequency_model.hpp"
#include "rubato/core/model/frequency_pair.hpp"
#include "rubato/core/tempo/engine.hpp"

namespace rubato::min_energy {

struct ControllerParams {
  explicit ControllerParams(FrequencyModel frequency_model) : model(std::move(frequency_model)) {}

  // Core levels: the engine's tempo ladder (a decision's core_level is a
  // ladder level); uncore levels: the uncore lever's (none: the uncore is
  // not moved, only the core level is chosen).
  FrequencyModel model;
  double max_time_loss = kDefaultMaxTimeLoss;
  SensitivityFallbacks fallbacks;
  // The counter relation b_u = R / R_sat (sensitivity_source.hpp); 0: counters are not used.
  double saturated_transaction_rate_per_s = 0;
  // A pair is left for another only when that one saves at least this share
  // of the fastest pair's energy, or the pair in force breaks the time bound:
  // a worker more or less at one interval must not move the uncore back and
  // forth for savings below the model's own error (benchmarks/cuttlefish/
  // RESULTS.md: energy median 1.5 %).
  double switch_margin = 0.01;
  // A sensitivity that moved at least this much is a new decision in the
  // record even where the pair stays.
  double sensitivity_step = 0.02;
};

struct Input {
  double now_s = 0;
  WorkerActivity activity;
  const counters::CounterSample* sample = nullptr;  // this interval's counters; nullptr: none
};

struct Decision {
  double t_s = 0;
  SensitivityReading sensitivity;
  double transaction_rate_per_s = -1;  // counters: the rate b_u came from; -1: not counted
  int working = 0;
  int waiting = 0;
  FrequencyPairEstimate pair;  // core_level: the ceiling's ladder level; uncore_level: the lever's level
  std::string reason;          // why this pair (the first, a better one, the bound, nothing runs)
};

class Controller {
 public:
  // Throws std::invalid_argument for a max_time_loss that is negative or not finite.
  explicit Controller(ControllerParams params);

  // One interval. Returns the new decision when the pair changed, the
  // sensitivity (by sensitivity_step or its source), or whether any worker
  // runs; nullopt when the decision in force stands. The first step always decides.
  std::optional<Decision> step(const Input& input);
  // The decision in force; nullopt before the first step.
  const std::optional<Decision>& current() const noexcept { return current_; }
  const ControllerParams& params() const noexcept { return params_; }

 private:
  std::optional<double> counter_uncore_share(const counters::CounterSample* sample, double& rate) const;
  FrequencyPairEstimate choose(const SensitivityReading& s, const WorkerActivity& a, std::string& reason) const;
  bool sensitivity_moved(const SensitivityReading& s) const noexcept;

  ControllerParams params_;
  std::optional<Decision> current_;
};

}  // namespace rubato::min_energy
