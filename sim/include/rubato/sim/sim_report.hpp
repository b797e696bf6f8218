// A simulated run as the same report a real run writes (rubato/core/io/report.hpp), so
// `rubato compare` and `rubato report` read it unchanged: frontend "sim",
// backend "simulated", energy "simulated:<profile>". Nothing in it depends on
// the host or the wall clock: a seed gives the same bytes.
#pragma once

#include <string>

#include "rubato/core/io/report.hpp"
#include "rubato/sim/simulator.hpp"

namespace rubato::sim {

// `workload`: the DAG spec or trace path; `command`: how to rerun this one
// combination. Throws std::logic_error unless `sim.run()` has returned.
Report make_report(const Simulation& sim, const std::string& workload, const std::string& command);

}  // namespace rubato::sim
