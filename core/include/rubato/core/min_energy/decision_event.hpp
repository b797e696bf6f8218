// A min-energy decision as the run report records it: one shape for the live
// runner and the simulator.
#pragma once

#include <string>

#include "rubato/core/io/report.hpp"
#include "rubato/core/min_energy/learner.hpp"
#include "rubato/core/min_energy/min_energy_controller.hpp"

namespace rubato::min_energy {

// `model`: the energy model's label ("modeled:<profile>", "simulated:<profile>").
FrequencyPairEvent to_report_event(const Decision& d, const std::string& model);
// A closed-loop decision: levels and hz from `levels` (the learner's model),
// the sensitivities' source "durations", the stage in the reason; its time
// factor and energy ratio are the probes' (learning_probes), not modelled here.
FrequencyPairEvent to_report_event(const LearnerDecision& d, const FrequencyModel& levels, const std::string& model);

}  // namespace rubato::min_energy
