// The affinity meta-scheduler's greedy placement step ([META] §V.E): each
// interval, decide whether to change thread affinities to relieve shared-cache
// contention (§IV.B), separate FP-intensive threads that share an FP unit
// (§IV.C) or balance load (§IV.A) — or, with core gating, to consolidate light
// load onto fewer cores (§IV.A) — acting only on patterns sustained over the
// last k intervals, and weighing every move against the predicted power of the
// next interval. At most one kind of move per interval; after a move the history
// restarts (it described the old placement).
//
// Utilisation-only mode: when no thread reports misses or FP operations (only
// /proc times exist), the cache and FP rules are skipped; balance and
// consolidation still work.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "rubato/core/affinity/affinity_history.hpp"
#include "rubato/core/affinity/affinity_metrics.hpp"

namespace rubato::affinity {

// Which cores share what. Index = core.
struct CoreTopology {
  std::vector<int> cache_group;  // cores with the same id share a last-level cache
  std::vector<int> fp_group;     // cores with the same id share an FP unit (SMT siblings)
  int cores() const noexcept { return static_cast<int>(cache_group.size()); }
  // `cores` cores, one shared cache, no SMT.
  static CoreTopology one_cache(int cores);
};

// Predicted power (W) of one core running at `frequency_hz` (0 = unknown) with
// `utilisation` in [0, 1] (0: nothing placed on it — the function decides what
// an empty core draws, e.g. gated). power/ builds it from a machine profile.
using CorePowerFn = std::function<double(int core, double frequency_hz, double utilisation)>;

struct PlacementParams {
  HistoryParams history;
  double imbalance = 0.25;         // busiest − idlest core utilisation that counts as imbalance
  double saturated = 0.9;          // a core this busy with ≥ 2 threads keeps one of them waiting
  double consolidate_below = 0.7;  // merge two cores only if the merged one stays below this
  double fp_intensive = 0.1;       // FP ops per instruction that make a thread FP-intensive
  double power_tolerance = 0.02;   // a relieving move may raise predicted power by this fraction
  bool consolidate = true;
};

enum class MoveReason { cache_contention, fp_sharing, load_balance, consolidation };
std::string_view to_string(MoveReason r) noexcept;

struct Migration {
  std::uint64_t thread = 0;
  int from = 0;
  int to = 0;
};

struct PlacementDecision {
  MoveReason reason = MoveReason::load_balance;
  std::vector<Migration> moves;
  double power_before_w = 0;  // predicted for the next interval without / with the moves
  double power_after_w = 0;
};

enum class MetricsMode { full, cache_only, fp_only, utilisation_only };
std::string_view to_string(MetricsMode m) noexcept;
MetricsMode mode_of(const MetricsHistory& history);

// Predicted power of the latest placement with `moves` applied: each core at its
// latest frequency and the sum of its threads' mean utilisations (last k), at most 1.
double predicted_power_w(const MetricsHistory& history, const CorePowerFn& power, std::span<const Migration> moves);

// The greedy step on the history (which must hold the latest interval).
std::optional<PlacementDecision> plan_placement(const MetricsHistory& history, const CoreTopology& topology,
                                                const CorePowerFn& power, const PlacementParams& params);

// History + planner, fed one interval at a time.
class AffinityScheduler {
 public:
  // Throws std::invalid_argument when the topology's two vectors differ in size or are empty.
  AffinityScheduler(CoreTopology topology, CorePowerFn power, PlacementParams params = {});
  // Records the interval; returns the moves to apply now (nullopt: keep the affinities).
  std::optional<PlacementDecision> step(const IntervalSample& sample);
  const MetricsHistory& history() const noexcept { return history_; }
  MetricsMode mode() const { return mode_of(history_); }

 private:
  CoreTopology topology_;
  CorePowerFn power_;
  PlacementParams params_;
  MetricsHistory history_;
};

}  // namespace rubato::affinity
