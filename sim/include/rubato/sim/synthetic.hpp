// Builds the lazily generated program of a synthetic DAG spec (dag_spec.hpp).
#pragma once

#include "rubato/sim/dag_spec.hpp"
#include "rubato/sim/program.hpp"

namespace rubato::sim {

// `reference_hz`: the frequency work amounts are given at (the profile's
// fastest); `default_beta`: the frequency-sensitive fraction of phases that do
// not set beta=. Throws std::invalid_argument for a spec the shapes cannot run
// (e.g. a linear loop of more than 2^32 chunks).
Program build_synthetic(const DagSpec& spec, double reference_hz, double default_beta);

}  // namespace rubato::sim
