// The frequency-pair chooser: for the work now running, the core level of the
// working workers and the uncore level that minimise the work's modelled
// energy within a bound on the time it loses — the uncore-aware part of the
// `eco` policy. [Cuttlefish] searches the same two levers per TIPI slab by
// measurement; EAR's `min_energy` policy bounds the time loss the same way
// (default 5 %). Here the search is over the model (frequency_model.hpp):
//
//   E(c, u) = T(c, u) · [ active · busy_w(c) + waiting · idle_w(slowest) + uncore_w(u) ]
//
// Waiting workers sit at the slowest core level meanwhile (slack), in every
// pair alike; the uncore is shared, so one level serves all. Ratios are
// against the fastest pair (core level 0, uncore level 0). Pure arithmetic.
#pragma once

#include <cstddef>

#include "rubato/core/model/frequency_model.hpp"
#include "rubato/core/model/work_sensitivity.hpp"

namespace rubato {

// EAR's min_energy default: at most 5 % more time than at the fastest pair.
inline constexpr double kDefaultMaxTimeLoss = 0.05;

// One (core level, uncore level) pair as the model sees it.
struct FrequencyPairEstimate {
  std::size_t core_level = 0;    // of the working workers
  std::size_t uncore_level = 0;  // 0 also where there is no uncore ladder
  double core_hz = 0;
  double uncore_hz = 0;       // 0: no uncore ladder
  double time_factor = 1.0;   // T / T at the fastest pair
  double power_w = 0;         // the segment's power at this pair (W)
  double energy_ratio = 1.0;  // E / E at the fastest pair
};

// The pair (core_level, uncore_level), levels past the slowest clamped, for
// `active_workers` running and `waiting_workers` waiting (negative counts: 0).
// Needs a valid sensitivity (sensitivity_error); no throw.
FrequencyPairEstimate estimate_frequency_pair(const WorkSensitivity& sensitivity, const FrequencyModel& model,
                                              int active_workers, int waiting_workers, std::size_t core_level,
                                              std::size_t uncore_level) noexcept;

// The pair of least modelled energy among those with time_factor <= 1 +
// max_time_loss; on a tie (within 1e-12) the faster one, so that the fastest
// pair comes back when nothing saves energy. No active worker: nothing runs,
// the fastest pair. Throws std::invalid_argument for an invalid sensitivity
// or a max_time_loss that is negative or not finite.
FrequencyPairEstimate choose_frequency_pair(const WorkSensitivity& sensitivity, const FrequencyModel& model,
                                            int active_workers, int waiting_workers,
                                            double max_time_loss = kDefaultMaxTimeLoss);

}  // namespace rubato
