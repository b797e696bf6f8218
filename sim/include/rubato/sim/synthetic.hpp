// Builds the lazily generated program of a synthetic DAG spec (dag_spec.hpp).
#pragma once

#include "rubato/sim/dag_spec.hpp"
#include "rubato/sim/program.hpp"

namespace rubato::sim {

// `reference_hz`: the frequency work amounts are given at (the profile's
// fastest core level, the uncore at its fastest); `defaults`: the
// sensitivities of phases that do not set beta= (b_c) or uncore= (b_u).
// Throws std::invalid_argument for a spec the shapes cannot run (e.g. a
// linear loop of more than 2^32 chunks) or a phase whose b_c + b_u, its own
// keys or the defaults, exceeds 1 (the message names the phase).
Program build_synthetic(const DagSpec& spec, double reference_hz, const WorkSensitivity& defaults);
// The β model's form: b_c = `default_beta`, b_u = 0 by default.
Program build_synthetic(const DagSpec& spec, double reference_hz, double default_beta);

}  // namespace rubato::sim
