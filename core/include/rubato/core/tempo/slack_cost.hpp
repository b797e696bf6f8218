// slack's cost test (rubato's own; docs/slack.md "The cost test"): a waiting
// worker is lowered only once the saving of its lowered wait can pay for the
// raise at its wake-up. Every number comes from the machine profile (the
// cost model the guard shares, rubato/core/tempo/cost_guard.hpp).
//
// The raise. At the wake-up the worker's work runs at the slow level f' until
// the raise lands, one transition latency L later: in L it does L/s of work
// (s = T(f', fu) / T(f, fu), the time model the guard's stretch uses, f the
// level it wakes to), l = L·(1 − 1/s) less than at f. As in the guard's
// derivation, the m workers that then work (the woken one among them) share
// that lost work: the run lasts l/m longer (m = 1: the others wait for this
// work, the critical path), and over that time the uncore and the n − m
// waiting cores draw on:
//   ΔE = (P_busy(f') − P_busy(f))·L + P_busy(f)·l + (U + (n − m)·P_idle(f))·l/m
// with U the uncore's power at its level now and n the run's workers (with
// m = n this is the guard's E' − E for L/s of work). Valued by the run's
// energy-delay product as the guard values a slowing (ΔE/E_run + ΔT/T_run,
// the run's power taken as n·P_busy(f) + U), the raise costs
//   C = ΔE + (n·P_busy(f) + U)·l/m    (J).
// The saving. Lowered, the worker draws P_idle(f') instead of P_idle(f) from
// the moment the lowering lands (L after the sweep) to the wake-up: a wait
// that goes on r after the lowering saves ΔP·(r − L), ΔP = P_idle(f) − P_idle(f').
// The rule. r is not known when the sweeper decides. The deterministic rule
// that never pays more than twice what the best choice in hindsight pays is
// the break-even one (ski rental, [SkiRental]): stay fast until what staying fast has cost
// equals what lowering costs, ΔP·(t − L) = C, that is, take the wait's length
// so far as the prediction of what is left of it, and lower once
//   t ≥ L + C / ΔP
// (and the dwell). With ΔP ≤ 0 (nothing to save) a wait is never lowered.
// Pure arithmetic: no clock, no OS.
#pragma once

#include <optional>
#include <vector>

#include "rubato/core/base/types.hpp"
#include "rubato/core/model/work_sensitivity.hpp"
#include "rubato/core/tempo/cost_guard.hpp"
#include "rubato/core/tempo/tempo_ladder.hpp"

namespace rubato {

// What a lowering is weighed in, beyond the level the worker wakes to.
struct SlackContext {
  int workers = 1;                      // n: the run's workers (< 1 counts as 1)
  double sharing = 1;                   // m: the workers that share the lost work, the woken one included (1..n)
  int uncore_level = -1;                // the uncore's level now (CostModel::uncore_hz); -1: not known (uncore_w)
  std::optional<WorkSensitivity> work;  // the work's sensitivities now; none: the model's
};

class SlackCost {
 public:
  SlackCost() = default;  // no model: the dwell alone decides
  // Throws std::invalid_argument unless the model has a busy and an idle
  // power per ladder level and one power per uncore level.
  SlackCost(const TempoLadder& ladder, CostModel model);

  bool enabled() const noexcept { return enabled_; }
  // ΔP: what a worker that would wait at `from` saves per second lowered (W).
  double saving_w(Level from) const noexcept;
  // C: what the raise at the wake-up of a worker that wakes to `from` costs (J).
  double raise_cost_j(Level from, const SlackContext& context) const noexcept;
  // How long a wait must have lasted before lowering it pays: L + C/ΔP (s);
  // +infinity where nothing is saved; 0 with no model.
  double lower_after_s(Level from, const SlackContext& context) const noexcept;

 private:
  bool enabled_ = false;
  CostGuard guard_;  // the shared time model, for the stretch
  std::vector<double> busy_w_, idle_w_;
  double uncore_w_ = 0;
  std::vector<double> uncore_level_w_;
  double latency_s_ = 0;
  Level slowest_ = 0;
};

}  // namespace rubato
