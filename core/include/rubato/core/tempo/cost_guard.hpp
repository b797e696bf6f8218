// The cost guard (rubato's own, beyond the papers): a tempo policy's decision
// to slow a *working* worker is applied only where the energy model predicts
// that it saves energy. [HERMES] slows thieves whatever it costs; at β = 1 a
// slowed task takes f/f' times as long and the uncore is paid for that time.
//
// The model, for one worker moved from level `from` (frequency f) to `to`
// (f' < f) for work that takes d at f:
//   time at f'   d' = d · (1 + β · (f/f' − 1))          (β: frequency-sensitive fraction)
//   energy at f  E  = (P_busy(f)  + U/n) · d
//   energy at f' E' = (P_busy(f') + U/n) · d'
// where U/n is the uncore's share of one worker's time: the uncore power over
// the workers that are active (not waiting) when the decision is made. The
// slowing pays when E' < E; d cancels, so the verdict depends on the level
// pair, β and n only. Pure arithmetic: no clock, no OS.
#pragma once

#include <vector>

#include "rubato/core/tempo/tempo_ladder.hpp"
#include "rubato/core/base/types.hpp"

namespace rubato {

struct CostModel {
  std::vector<double> busy_w;  // per ladder level (W), from the machine profile
  double uncore_w = 0;         // the package part no core owns (W)
  double beta = 1.0;           // frequency-sensitive fraction of the work
};

class CostGuard {
 public:
  CostGuard() = default;  // no model: every slowing pays (the guard is off)
  CostGuard(const TempoLadder& ladder, CostModel model);

  bool enabled() const noexcept { return enabled_; }
  // E'/E for moving a worker from `from` to `to` with `active` workers sharing
  // the uncore (active < 1 counts as 1).
  double energy_ratio(Level from, Level to, int active) const noexcept;
  bool pays(Level from, Level to, int active) const noexcept { return energy_ratio(from, to, active) < 1.0; }
  // The slowest level in (from, to] whose slowing pays, or `from` when none
  // does: what the guard lets a decision "from → to" become. Faster targets
  // (to <= from) pass unchanged: the guard never holds a raise.
  Level admit(Level from, Level to, int active) const noexcept;
  const CostModel& model() const noexcept { return model_; }

 private:
  bool enabled_ = false;
  std::vector<double> hz_;
  CostModel model_;
};

}  // namespace rubato
