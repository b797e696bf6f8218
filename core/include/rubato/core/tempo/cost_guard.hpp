// The cost guard (rubato's own, beyond the papers): a tempo policy's decision
// to slow a *working* worker is applied only where the model predicts that it
// lowers the run's energy-delay product (EDP, what eco is judged by; [HERMES]
// §4.1 normalises energy, time and EDP). [HERMES] slows thieves whatever it
// costs; at β = 1 a slowed task takes f/f' times as long and the uncore is
// paid for that time.
//
// The model, for one worker moved from level `from` (frequency f) to `to`
// (f' < f) for work that takes d at f, with the uncore at fu and n workers
// active (docs/slack.md "The cost guard" derives it):
//   time at f'   d' = s · d,  s = T(f', fu) / T(f, fu)   (T: rubato/core/model/time_model.hpp)
//   energy at f  E  = (P_busy(f)  + U(fu)/n) · d
//   energy at f' E' = (P_busy(f') + U(fu)/n) · d'
// with the work's shares (b_c = β, b_u) taken at (f, the fastest uncore
// level), so that with b_u = 0 the stretch is exactly 1 + β · (f/f' − 1).
// E' − E is what the whole machine pays: in a work-stealing run whose n
// workers are busy, the work the slowed one does not do in d' is done by the
// others, so the run lasts (d' − d)/n longer, and n · P_busy(f) + U pays for
// that time. The run's EDP then changes, to first order, by
// ΔE/E_run + ΔT/T_run ∝ E'/E − 1 + (s − 1): the slowing pays when
// edp_ratio = E'/E + (s − 1) < 1, i.e. when the work's relative energy
// saving exceeds its relative stretch. d cancels: the verdict depends on the
// level pair, the sensitivities, fu and n only.
//
// The critical path: the others absorb the lost work only while they have
// work. Where the program waits for this worker (the others are out of work,
// or it holds the only work left to run), its extra time costs the whole
// uncore and every waiting core, and delays the program by all of d' − d:
// such a slowing is not a saving, and the guard refuses it.
// Pure arithmetic: no clock, no OS.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "rubato/core/base/types.hpp"
#include "rubato/core/model/work_sensitivity.hpp"
#include "rubato/core/tempo/tempo_ladder.hpp"

namespace rubato {

struct CostModel {
  CostModel() = default;
  // The β-only model: no uncore term, the uncore at `uncore_w`.
  CostModel(std::vector<double> busy_w_per_level, double uncore_w_, double beta_)
      : busy_w(std::move(busy_w_per_level)), uncore_w(uncore_w_), beta(beta_) {}

  std::vector<double> busy_w;  // per ladder level (W), from the machine profile
  double uncore_w = 0;         // the package part no core owns (W), where the uncore's level is not known
  double beta = 1.0;           // b_c: frequency-sensitive fraction of the work
  // The uncore side of the time model: the work's uncore share b_u, the
  // uncore levels (Hz, fastest first; empty: no uncore ladder) with their
  // power, and the memory-bandwidth knee (0: none).
  double uncore_sensitivity = 0;
  std::vector<double> uncore_hz;
  std::vector<double> uncore_level_w;
  double memory_bandwidth_knee_hz = 0;
  int initial_uncore_level = -1;  // the uncore's level at the start (RUBATO_UNCORE); -1: not known
  // slack's cost test (rubato/core/tempo/slack_cost.hpp): a waiting core's
  // power per ladder level (W; empty: no test) and how long a raise takes to
  // land (s, the profile's transition latency).
  std::vector<double> idle_w;
  double raise_latency_s = 0;
};

// What a decision is weighed in, beyond its two levels.
struct GuardContext {
  double active = 1;      // workers sharing the uncore, on average (< 1 counts as 1)
  int uncore_level = -1;  // the uncore's level now (CostModel::uncore_hz); -1: not known (uncore_w, no uncore term)
  std::optional<WorkSensitivity> work;  // the work's sensitivities now; none: the model's (beta, uncore_sensitivity)
  bool critical = false;                // the program waits for this worker

  static GuardContext among(int active) noexcept {
    GuardContext c;
    c.active = active;
    return c;
  }
};

class CostGuard {
 public:
  CostGuard() = default;  // no model: every slowing pays (the guard is off)
  // Throws std::invalid_argument unless there is one busy power per ladder
  // level and one power per uncore level.
  CostGuard(const TempoLadder& ladder, CostModel model);

  bool enabled() const noexcept { return enabled_; }
  // E'/E for moving a worker from `from` to `to` (1 where nothing moves).
  double energy_ratio(Level from, Level to, const GuardContext& context) const noexcept {
    return weigh(from, to, context).energy_ratio;
  }
  double energy_ratio(Level from, Level to, int active) const noexcept {
    return energy_ratio(from, to, GuardContext::among(active));
  }
  // s = d'/d, how much longer the work takes at `to` (1 where nothing moves).
  double stretch(Level from, Level to, const GuardContext& context) const noexcept {
    return weigh(from, to, context).stretch;
  }
  // E'/E + (s − 1): below 1 the run's energy-delay product falls.
  double edp_ratio(Level from, Level to, const GuardContext& context) const noexcept {
    const Weighed w = weigh(from, to, context);
    return w.energy_ratio + (w.stretch - 1.0);
  }
  double edp_ratio(Level from, Level to, int active) const noexcept {
    return edp_ratio(from, to, GuardContext::among(active));
  }
  bool pays(Level from, Level to, const GuardContext& context) const noexcept {
    return edp_ratio(from, to, context) < 1.0;
  }
  bool pays(Level from, Level to, int active) const noexcept { return pays(from, to, GuardContext::among(active)); }
  // The slowest level in (from, to] whose slowing pays, or `from` when none
  // does or the worker is on the critical path: what the guard lets a
  // decision "from → to" become. Faster targets (to <= from) pass unchanged:
  // the guard never holds a raise.
  Level admit(Level from, Level to, const GuardContext& context) const noexcept;
  Level admit(Level from, Level to, int active) const noexcept { return admit(from, to, GuardContext::among(active)); }
  const CostModel& model() const noexcept { return model_; }
  int uncore_levels() const noexcept { return static_cast<int>(model_.uncore_hz.size()); }

 private:
  struct Weighed {
    double energy_ratio = 1.0;  // E'/E
    double stretch = 1.0;       // d'/d
  };
  Weighed weigh(Level from, Level to, const GuardContext& context) const noexcept;

  bool enabled_ = false;
  std::vector<double> hz_;
  CostModel model_;
};

}  // namespace rubato
