// A min-energy decision as the run report records it: one shape for the live
// runner and the simulator.
#pragma once

#include <string>

#include "rubato/core/io/report.hpp"
#include "rubato/core/min_energy/min_energy_controller.hpp"

namespace rubato::min_energy {

// `model`: the energy model's label ("modeled:<profile>", "simulated:<profile>").
FrequencyPairEvent to_report_event(const Decision& d, const std::string& model);

}  // namespace rubato::min_energy
