#include "rubato/core/tempo/slack_cost.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace rubato {

SlackCost::SlackCost(const TempoLadder& ladder, CostModel model)
    : enabled_(true),
      guard_(ladder, model),
      busy_w_(model.busy_w),
      idle_w_(model.idle_w),
      uncore_w_(model.uncore_w),
      uncore_level_w_(model.uncore_level_w),
      latency_s_(std::max(0.0, model.raise_latency_s)),
      slowest_(ladder.slowest()) {
  if (idle_w_.size() != busy_w_.size())
    throw std::invalid_argument("slack cost: one idle power per ladder level is needed");
}

double SlackCost::saving_w(Level from) const noexcept {
  if (!enabled_ || from < 0 || from >= slowest_) return 0;
  return idle_w_[static_cast<std::size_t>(from)] - idle_w_[static_cast<std::size_t>(slowest_)];
}

double SlackCost::raise_cost_j(Level from, const SlackContext& c) const noexcept {
  if (!enabled_ || from < 0 || from >= slowest_) return 0;
  GuardContext at;
  at.uncore_level = c.uncore_level;
  at.work = c.work;
  const double s = guard_.stretch(from, slowest_, at);
  const bool uncore_known = c.uncore_level >= 0 && c.uncore_level < static_cast<int>(uncore_level_w_.size());
  const double u = uncore_known ? uncore_level_w_[static_cast<std::size_t>(c.uncore_level)] : uncore_w_;
  const double n = std::max(1, c.workers);
  const double m = std::clamp(c.sharing, 1.0, n);
  const double busy = busy_w_[static_cast<std::size_t>(from)], idle = idle_w_[static_cast<std::size_t>(from)];
  const double done = s > 0 ? latency_s_ / s : latency_s_;  // work done in L at f', in time at f
  const double lost = latency_s_ - done;                    // l: the work not done
  const double longer = lost / m;                           // what the run lasts longer
  const double energy =
      (busy_w_[static_cast<std::size_t>(slowest_)] - busy) * latency_s_ + busy * lost + (u + (n - m) * idle) * longer;
  return energy + (n * busy + u) * longer;
}

double SlackCost::lower_after_s(Level from, const SlackContext& c) const noexcept {
  if (!enabled_) return 0;
  const double saving = saving_w(from);
  if (!(saving > 0)) return std::numeric_limits<double>::infinity();
  return latency_s_ + std::max(0.0, raise_cost_j(from, c)) / saving;
}

}  // namespace rubato
