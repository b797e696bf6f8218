// The live side of min-energy (rubato/core/min_energy/min_energy_controller.hpp),
// on the controller host's thread: each interval it reads the workers'
// activity from the engine, steps the pure controller with the interval's
// counters, and carries out a new decision — the engine's core ceiling, the
// uncore through an UncoreControl (rate-limited there), the guard's view of
// the uncore and the work — and keeps the record the report shows: each
// decision, the time the uncore spent at each frequency (for the power
// model), the time-weighted levels. Never on a task's path.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rubato/core/io/report.hpp"
#include "rubato/core/min_energy/learner.hpp"
#include "rubato/core/min_energy/min_energy_controller.hpp"
#include "rubato/core/min_energy/type_stats_delta.hpp"
#include "rubato/core/tempo/engine.hpp"
#include "rubato/power/frequency/uncore_control.hpp"
#include "rubato/power/session/operating_point.hpp"

namespace rubato {

// What the closed loop reads besides the engine: the meter (joules since the
// run's start, nullopt where none reads), and the names of the task types.
struct ClosedLoopSensors {
  std::function<std::optional<double>()> energy_j;
  std::function<std::vector<std::string>()> type_names;
};

class MinEnergyRunner {
 public:
  // `engine` must outlive this; `uncore` (nullptr: the uncore is not moved)
  // and `point` (nullptr: none) too. `model_label`: "modeled:<profile>".
  // `learner`: the closed loop's parameters (docs/min-energy.md "The closed
  // loop"; the engine then records task types); nullopt: the open loop.
  MinEnergyRunner(min_energy::ControllerParams params, Engine& engine, UncoreControl* uncore, OperatingPoint* point,
                  std::string model_label, std::optional<min_energy::LearnerParams> learner = std::nullopt,
                  ClosedLoopSensors sensors = {});

  // One interval ending at `now_s` (since the run's start); `sample`: its counters, nullptr: none.
  void step(const counters::CounterSample* sample, double now_s);
  // Closes the time accounting at `now_s`; later steps do nothing.
  void finish(double now_s);

  // The uncore's time at each frequency rubato set, seconds (0 Hz: before its first setting).
  std::vector<std::pair<double, double>> uncore_s_at_hz() const;
  // Decisions, parameters (sources, values, time-weighted levels, transitions) and notes.
  void fill_report(Report& r, const std::vector<std::string>& counter_lines) const;

 private:
  void apply(const min_energy::Decision& d, double now_s);
  void step_closed(const counters::CounterSample* sample, double now_s);
  void apply(const min_energy::LearnerDecision& d);
  void record(const min_energy::Decision& d);
  void account(double now_s);  // the time since the last account at the levels then in force

  min_energy::Controller controller_;
  std::optional<min_energy::Learner> learner_;
  ClosedLoopSensors sensors_;
  min_energy::TypeStatsDelta durations_;
  std::optional<double> last_energy_j_;
  double last_energy_s_ = 0;  // when last_energy_j_ was read
  bool type_ceilings_ = false;
  Engine& engine_;
  UncoreControl* uncore_;
  OperatingPoint* point_;
  std::string model_label_;
  std::vector<FrequencyPairEvent> events_;
  bool finished_ = false;
  // Time accounting: since `since_s`, the ceiling at `core_hz_` and the uncore at `uncore_hz_`.
  double since_s_ = -1;
  double core_hz_ = 0, uncore_hz_ = 0;
  WorkSensitivity sensitivity_{};
  std::map<double, double> uncore_s_at_hz_;
  double core_hz_s_ = 0, uncore_hz_s_ = 0, uncore_timed_s_ = 0, timed_s_ = 0;
  double core_share_s_ = 0, uncore_share_s_ = 0;
};

}  // namespace rubato
