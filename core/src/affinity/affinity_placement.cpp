#include "rubato/core/affinity/affinity_placement.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace rubato::affinity {

std::string_view to_string(MoveReason r) noexcept {
  switch (r) {
    case MoveReason::cache_contention: return "cache_contention";
    case MoveReason::fp_sharing: return "fp_sharing";
    case MoveReason::load_balance: return "load_balance";
    case MoveReason::consolidation: return "consolidation";
  }
  return "unknown";
}

std::string_view to_string(MetricsMode m) noexcept {
  switch (m) {
    case MetricsMode::full: return "full";
    case MetricsMode::cache_only: return "cache_only";
    case MetricsMode::fp_only: return "fp_only";
    case MetricsMode::utilisation_only: return "utilisation_only";
  }
  return "unknown";
}

CoreTopology CoreTopology::one_cache(int cores) {
  CoreTopology t;
  for (int c = 0; c < cores; ++c) {
    t.cache_group.push_back(0);
    t.fp_group.push_back(c);
  }
  return t;
}

MetricsMode mode_of(const MetricsHistory& history) {
  const bool miss = history.has_miss_metrics(), fp = history.has_fp_metrics();
  if (miss && fp) return MetricsMode::full;
  if (miss) return MetricsMode::cache_only;
  if (fp) return MetricsMode::fp_only;
  return MetricsMode::utilisation_only;
}

namespace {

// The latest placement and each thread's means over the last k intervals.
struct Placed {
  std::uint64_t id;
  int core;
  ThreadHistory mean;
};

std::vector<Placed> placed_threads(const MetricsHistory& history) {
  std::vector<Placed> out;
  for (const ThreadMetrics& t : history.latest().threads) out.push_back({t.id, t.core, history.thread(t.id)});
  return out;
}

int core_after(const Placed& t, std::span<const Migration> moves) {
  for (const Migration& m : moves)
    if (m.thread == t.id) return m.to;
  return t.core;
}

}  // namespace

double predicted_power_w(const MetricsHistory& history, const CorePowerFn& power, std::span<const Migration> moves) {
  if (history.empty()) return 0;
  const IntervalMetrics& latest = history.latest();
  std::vector<double> load(latest.cores.size(), 0.0);
  for (const Placed& t : placed_threads(history)) {
    const int c = core_after(t, moves);
    if (c >= 0 && static_cast<std::size_t>(c) < load.size()) load[static_cast<std::size_t>(c)] += t.mean.utilisation;
  }
  double total = 0;
  for (std::size_t c = 0; c < load.size(); ++c)
    total += power(static_cast<int>(c), latest.cores[c].frequency_hz, std::min(1.0, load[c]));
  return total;
}

namespace {

class Planner {
 public:
  Planner(const MetricsHistory& h, const CoreTopology& topo, const CorePowerFn& power, const PlacementParams& p)
      : h_(h), topo_(topo), power_(power), p_(p), threads_(placed_threads(h)) {
    const int n = topo_.cores();
    for (int c = 0; c < n; ++c) util_.push_back(h_.mean_core_utilisation(c));
    before_w_ = predicted_power_w(h_, power_, {});
  }

  // [META] §IV.B: sustained contention on a shared cache → move its most
  // cache-hungry thread to a core behind another, uncontended, cache.
  std::optional<PlacementDecision> relieve_cache() const {
    std::vector<int> contended;
    for (int c = 0; c < topo_.cores(); ++c)
      if (h_.cache_contention(c).sustained) contended.push_back(c);
    const auto group_contended = [&](int group) {
      return std::any_of(contended.begin(), contended.end(), [&](int c) { return group_of(c) == group; });
    };
    for (int c : contended) {
      const int group = group_of(c);
      const Placed* hungry = nullptr;
      for (const Placed& t : threads_)
        if (group_of(t.core) == group && (!hungry || hunger(t) > hunger(*hungry))) hungry = &t;
      if (!hungry) continue;
      std::optional<int> best;
      double best_miss = 0;
      for (int target = 0; target < topo_.cores(); ++target) {
        const int tg = group_of(target);
        if (tg == group || group_contended(tg)) continue;
        const double miss = group_miss_rate(tg);
        if (!best || miss < best_miss || (miss == best_miss && util(target) < util(*best))) {
          best = target;
          best_miss = miss;
        }
      }
      if (!best) continue;
      if (auto d = weigh(MoveReason::cache_contention, {{hungry->id, hungry->core, *best}})) return d;
    }
    return std::nullopt;
  }

  // [META] §IV.C: FP-intensive threads sharing one FP unit, in every one of the
  // last k intervals → move one to a core whose FP unit no FP-intensive thread uses.
  std::optional<PlacementDecision> separate_fp() const {
    for (const int group : distinct(topo_.fp_group)) {
      const auto shares = [&](const IntervalMetrics& m) {
        int intensive = 0;
        for (const ThreadMetrics& t : m.threads)
          if (fp_group_of(t.core) == group && t.fp_intensity && *t.fp_intensity >= p_.fp_intensive) ++intensive;
        return intensive >= 2;
      };
      if (!h_.sustained(shares)) continue;
      const Placed* mover = nullptr;
      for (const Placed& t : threads_)
        if (fp_group_of(t.core) == group && fp_intensive(t) &&
            (!mover || *t.mean.fp_intensity > *mover->mean.fp_intensity))
          mover = &t;
      if (!mover) continue;
      std::optional<int> best;
      for (int target = 0; target < topo_.cores(); ++target) {
        const int tg = fp_group_of(target);
        if (tg == group || std::any_of(threads_.begin(), threads_.end(),
                                       [&](const Placed& t) { return fp_group_of(t.core) == tg && fp_intensive(t); }))
          continue;
        if (!best || util(target) < util(*best)) best = target;
      }
      if (!best) continue;
      if (auto d = weigh(MoveReason::fp_sharing, {{mover->id, mover->core, *best}})) return d;
    }
    return std::nullopt;
  }

  // [META] §IV.A / §V.B: a saturated core with several threads while another
  // core idles, in every one of the last k intervals → move the thread that best
  // evens the two out.
  std::optional<PlacementDecision> balance() const {
    const auto imbalanced = [&](const IntervalMetrics& m) {
      if (m.cores.size() < 2) return false;
      const auto [lo, hi] = std::minmax_element(
          m.cores.begin(), m.cores.end(), [](const auto& a, const auto& b) { return a.utilisation < b.utilisation; });
      return hi->utilisation - lo->utilisation > p_.imbalance && hi->utilisation >= p_.saturated && hi->threads >= 2;
    };
    if (!h_.sustained(imbalanced)) return std::nullopt;
    std::optional<int> src, dst;
    for (int c = 0; c < topo_.cores(); ++c) {
      if (threads_on(c) >= 2 && (!src || util(c) > util(*src))) src = c;
      if (!dst || util(c) < util(*dst)) dst = c;
    }
    if (!src || !dst || *src == *dst) return std::nullopt;
    const double gap = util(*src) - util(*dst);
    const Placed* mover = nullptr;
    double best_gap = gap;
    for (const Placed& t : threads_) {
      if (t.core != *src) continue;
      const double after = std::fabs(gap - 2 * t.mean.utilisation);
      if (after < best_gap) {
        best_gap = after;
        mover = &t;
      }
    }
    if (!mover) return std::nullopt;
    return weigh(MoveReason::load_balance, {{mover->id, *src, *dst}});
  }

  // [META] §IV.A: "with core gating it may be beneficial to consolidate the load
  // into a subset of the cores" — the lightest busy core's threads join another
  // busy core when the two together stayed below `consolidate_below` in every one
  // of the last k intervals, and only if predicted power drops.
  std::optional<PlacementDecision> consolidate() const {
    if (!p_.consolidate) return std::nullopt;
    std::optional<int> src;
    for (int c = 0; c < topo_.cores(); ++c)
      if (threads_on(c) > 0 && (!src || util(c) < util(*src))) src = c;
    if (!src) return std::nullopt;
    std::vector<int> targets;
    for (int c = 0; c < topo_.cores(); ++c)
      if (c != *src && threads_on(c) > 0) targets.push_back(c);
    // Same shared cache first (threads may share data), then the busiest that fits.
    std::sort(targets.begin(), targets.end(), [&](int a, int b) {
      const bool sa = group_of(a) == group_of(*src), sb = group_of(b) == group_of(*src);
      return sa != sb ? sa : util(a) > util(b);
    });
    for (int dst : targets) {
      const auto fits = [&](const IntervalMetrics& m) {
        const auto s = static_cast<std::size_t>(*src), d = static_cast<std::size_t>(dst);
        return s < m.cores.size() && d < m.cores.size() &&
               m.cores[s].utilisation + m.cores[d].utilisation <= p_.consolidate_below;
      };
      if (!h_.sustained(fits)) continue;
      std::vector<Migration> moves;
      for (const Placed& t : threads_)
        if (t.core == *src) moves.push_back({t.id, *src, dst});
      PlacementDecision d = decision(MoveReason::consolidation, std::move(moves));
      if (d.power_after_w < d.power_before_w) return d;
    }
    return std::nullopt;
  }

 private:
  int group_of(int core) const { return topo_.cache_group[static_cast<std::size_t>(core)]; }
  int fp_group_of(int core) const { return topo_.fp_group[static_cast<std::size_t>(core)]; }
  double util(int core) const { return util_[static_cast<std::size_t>(core)]; }
  int threads_on(int core) const {
    return static_cast<int>(
        std::count_if(threads_.begin(), threads_.end(), [&](const Placed& t) { return t.core == core; }));
  }
  bool fp_intensive(const Placed& t) const { return t.mean.fp_intensity && *t.mean.fp_intensity >= p_.fp_intensive; }
  static double hunger(const Placed& t) { return t.mean.misses_per_s.value_or(t.mean.miss_rate.value_or(0)); }
  double group_miss_rate(int group) const {
    double sum = 0;
    int n = 0;
    for (int c = 0; c < topo_.cores(); ++c)
      if (group_of(c) == group)
        if (const auto r = h_.mean_core_miss_rate(c)) {
          sum += *r;
          ++n;
        }
    return n > 0 ? sum / n : 0;
  }
  static std::vector<int> distinct(std::vector<int> v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
  }
  PlacementDecision decision(MoveReason reason, std::vector<Migration> moves) const {
    PlacementDecision d;
    d.reason = reason;
    d.power_before_w = before_w_;
    d.power_after_w = predicted_power_w(h_, power_, moves);
    d.moves = std::move(moves);
    return d;
  }
  // [META] §V.E: "All decisions are weighed against the predicted power
  // consumption for the next time slice."
  std::optional<PlacementDecision> weigh(MoveReason reason, std::vector<Migration> moves) const {
    PlacementDecision d = decision(reason, std::move(moves));
    if (d.power_after_w <= d.power_before_w * (1 + p_.power_tolerance)) return d;
    return std::nullopt;
  }

  const MetricsHistory& h_;
  const CoreTopology& topo_;
  const CorePowerFn& power_;
  const PlacementParams& p_;
  std::vector<Placed> threads_;
  std::vector<double> util_;
  double before_w_ = 0;
};

}  // namespace

std::optional<PlacementDecision> plan_placement(const MetricsHistory& history, const CoreTopology& topology,
                                                const CorePowerFn& power, const PlacementParams& params) {
  if (!history.has_recent_window() || topology.cores() == 0) return std::nullopt;
  // Threads bound to cores the topology does not know cannot be reasoned about.
  for (const ThreadMetrics& t : history.latest().threads)
    if (t.core < 0 || t.core >= topology.cores()) return std::nullopt;
  const Planner planner(history, topology, power, params);
  const MetricsMode mode = mode_of(history);
  if (mode == MetricsMode::full || mode == MetricsMode::cache_only)
    if (auto d = planner.relieve_cache()) return d;
  if (mode == MetricsMode::full || mode == MetricsMode::fp_only)
    if (auto d = planner.separate_fp()) return d;
  if (auto d = planner.balance()) return d;
  return planner.consolidate();
}

AffinityScheduler::AffinityScheduler(CoreTopology topology, CorePowerFn power, PlacementParams params)
    : topology_(std::move(topology)), power_(std::move(power)), params_(params), history_(params.history) {
  if (topology_.cache_group.empty() || topology_.cache_group.size() != topology_.fp_group.size())
    throw std::invalid_argument("affinity topology: cache_group and fp_group need one entry per core");
  if (!power_) throw std::invalid_argument("affinity scheduler needs a core power function");
}

std::optional<PlacementDecision> AffinityScheduler::step(const IntervalSample& sample) {
  history_.push(synthesise(sample));
  auto decision = plan_placement(history_, topology_, power_, params_);
  if (decision) history_.clear();  // the old series described the old placement
  return decision;
}

}  // namespace rubato::affinity
