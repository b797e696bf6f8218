// What a piece of work is sensitive to: the share of its time, at the
// reference (fastest) core and uncore setting, that scales with the core
// clock (b_c) and the share spent moving data through the uncore at the
// memory system's bandwidth (b_u); the rest scales with neither (memory
// latency: nanoseconds, not cycles). [Cuttlefish] sorts work by the same two
// levers (its TIPI slabs); the two-share form is fitted to its published
// measurements ([Cuttlefish-data]) in benchmarks/cuttlefish (README.md, "The model").
#pragma once

#include <string>

namespace rubato {

struct WorkSensitivity {
  double core = 1.0;    // b_c: today's β (a profile's `beta` is the default)
  double uncore = 0.0;  // b_u: 0 where nothing is known (the β-only model)
};

// Empty when 0 <= core, 0 <= uncore and core + uncore <= 1 (all finite, the
// sum with 1e-9 of rounding slack); else one line saying which share is wrong.
std::string sensitivity_error(const WorkSensitivity& sensitivity);

}  // namespace rubato
