// The affinity meta-scheduler's history table ([META] §V.E: "resource usage
// data from the last k intervals") and the patterns read from it: shared-cache
// contention (§IV.B) and whether a condition is sustained rather than a spike
// (§I.3: "make placement decisions only when a broad pattern change has been
// detected").
//
// Contention (§IV.B): the mean miss rate of a core's shared cache over the last
// k intervals is significantly greater — by more than a tolerance — than its
// mean over the previous j intervals. A short spike can lift a k-interval mean
// on its own, so placement acts only on *sustained* contention: each of the
// last k intervals above the previous-j baseline by the tolerance.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <vector>

#include "rubato/core/affinity/affinity_metrics.hpp"

namespace rubato::affinity {

struct HistoryParams {
  int recent = 4;           // k
  int baseline = 8;         // j
  double tolerance = 0.5;   // "significantly greater": recent > (1 + tolerance) · baseline
  double min_increase = 0;  // and recent − baseline > this (misses per instruction): ignores noise on idle caches
};

struct ContentionVerdict {
  bool known = false;        // k + j intervals with a miss rate on this core
  double recent_mean = 0;    // last k
  double baseline_mean = 0;  // previous j
  bool elevated = false;     // the paper's test on the means
  bool sustained = false;    // every one of the last k intervals passes it
};

// Means over the intervals of the last k in which the thread appeared.
struct ThreadHistory {
  int intervals = 0;
  double utilisation = 0;
  std::optional<double> miss_rate;
  std::optional<double> misses_per_s;
  std::optional<double> fp_intensity;
};

class MetricsHistory {
 public:
  explicit MetricsHistory(HistoryParams params = {});

  void push(IntervalMetrics interval);
  void clear() noexcept { table_.clear(); }
  const HistoryParams& params() const noexcept { return params_; }
  std::size_t size() const noexcept { return table_.size(); }
  bool empty() const noexcept { return table_.empty(); }
  const IntervalMetrics& latest() const { return table_.back(); }
  // At least k intervals: a pattern can be called sustained.
  bool has_recent_window() const noexcept { return table_.size() >= static_cast<std::size_t>(params_.recent); }

  // `holds` is true for each of the last k intervals (false with fewer than k).
  bool sustained(const std::function<bool(const IntervalMetrics&)>& holds) const;

  ContentionVerdict cache_contention(int core) const;
  double mean_core_utilisation(int core) const;               // over the last k
  std::optional<double> mean_core_miss_rate(int core) const;  // over the last k intervals that have one
  ThreadHistory thread(std::uint64_t id) const;

  // Any miss rate / FP intensity in the last k intervals. Neither: utilisation-only mode.
  bool has_miss_metrics() const;
  bool has_fp_metrics() const;

 private:
  std::size_t recent_begin() const noexcept;
  HistoryParams params_;
  std::deque<IntervalMetrics> table_;  // oldest first, at most k + j
};

}  // namespace rubato::affinity
