// The `affinity` policy's periodic controller ([META] §V.E): every control
// interval it turns the interval's counter readings into the synthesised
// metrics (§IV), keeps them in the history table and lets the greedy step
// (affinity_placement.hpp) decide whether a target changes core. It keeps the
// placement it decided — which core each target is bound to — and returns the
// moves for the caller (power/) to carry out. A target is a worker thread, or
// a whole program of a `rubato run --mix`.
//
// Pure: readings and core frequencies come from the caller.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>

#include "rubato/core/affinity/affinity_placement.hpp"
#include "rubato/core/counters/counter_sample.hpp"

namespace rubato::affinity {

class AffinityController {
 public:
  // Throws std::invalid_argument as AffinityScheduler does.
  AffinityController(CoreTopology topology, CorePowerFn power, PlacementParams params = {});

  // A target bound to `core` appears (its core can be changed later by a move), or goes.
  void add_target(std::uint64_t id, int core);
  void remove_target(std::uint64_t id);

  // One interval ended: `sample` holds its readings (thread ids = target ids),
  // `core_hz` each core's current frequency (empty or 0: unknown). Returns the
  // moves to carry out now; the placement already reflects them.
  std::optional<PlacementDecision> step(const counters::CounterSample& sample, std::span<const double> core_hz);

  std::optional<int> core_of(std::uint64_t id) const;
  MetricsMode mode() const { return scheduler_.mode(); }
  int cores() const noexcept { return topology_cores_; }

 private:
  int topology_cores_;
  AffinityScheduler scheduler_;
  std::map<std::uint64_t, int> placement_;
};

}  // namespace rubato::affinity
