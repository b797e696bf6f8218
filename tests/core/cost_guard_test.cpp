// The cost guard (rubato's own, beyond the papers): its arithmetic against
// hand-computed cases.
#include <catch2/catch.hpp>

#include "rubato/core/tempo/cost_guard.hpp"

using namespace rubato;

namespace {
CostGuard guard(std::vector<double> hz, std::vector<double> busy_w, double uncore_w, double beta) {
  return CostGuard(TempoLadder(std::move(hz)), CostModel{std::move(busy_w), uncore_w, beta});
}
}  // namespace

TEST_CASE("Core.CostGuard.TwoLevelsByHand", "[core][guard]") {
  // f 2 GHz -> 1 GHz, busy 10 W -> 3 W.
  // beta 1, no uncore: (3 x 2) / 10 = 0.6: pays.
  CHECK(guard({2e9, 1e9}, {10, 3}, 0, 1.0).energy_ratio(0, 1, 1) == Approx(0.6));
  // beta 1, uncore 20 W: alone (3 + 20) x 2 / (10 + 20) = 1.5333; among 4
  // (3 + 5) x 2 / 15 = 1.0667; among 10 (3 + 2) x 2 / 12 = 0.8333.
  const CostGuard g = guard({2e9, 1e9}, {10, 3}, 20, 1.0);
  CHECK(g.energy_ratio(0, 1, 1) == Approx(46.0 / 30.0));
  CHECK(g.energy_ratio(0, 1, 4) == Approx(16.0 / 15.0));
  CHECK(g.energy_ratio(0, 1, 10) == Approx(10.0 / 12.0));
  CHECK_FALSE(g.pays(0, 1, 1));
  CHECK_FALSE(g.pays(0, 1, 4));
  CHECK(g.pays(0, 1, 10));
  CHECK(g.energy_ratio(0, 1, 0) == g.energy_ratio(0, 1, 1));  // no active worker counts as one
  // beta 0.3: d'/d = 1 + 0.3 x (2 - 1) = 1.3; alone 23 x 1.3 / 30 = 0.99667: pays, barely.
  const CostGuard low = guard({2e9, 1e9}, {10, 3}, 20, 0.3);
  CHECK(low.energy_ratio(0, 1, 1) == Approx(29.9 / 30.0));
  CHECK(low.pays(0, 1, 1));
}

TEST_CASE("Core.CostGuard.OpteronProfileByHand", "[core][guard]") {
  // opteron-6378 (power/profiles): 2.4 GHz 5.391 W, 1.4 GHz 1.769 W (the
  // paper's two levels there), uncore 57.5 W. d'/d = 1 + beta x (2.4/1.4 - 1).
  const double stretch1 = 2.4 / 1.4, stretch03 = 1 + 0.3 * (2.4 / 1.4 - 1);
  const CostGuard none = guard({2.4e9, 1.4e9}, {5.391, 1.769}, 0, 1.0);
  CHECK(none.energy_ratio(0, 1, 2) == Approx(1.769 * stretch1 / 5.391));  // 0.5625: pays
  CHECK(none.pays(0, 1, 2));
  const CostGuard b1 = guard({2.4e9, 1.4e9}, {5.391, 1.769}, 57.5, 1.0);
  const CostGuard b03 = guard({2.4e9, 1.4e9}, {5.391, 1.769}, 57.5, 0.3);
  // 2 workers: uncore share 28.75 W. beta 1: 1.5324; beta 0.3: 1.0855. Neither pays.
  CHECK(b1.energy_ratio(0, 1, 2) == Approx((1.769 + 28.75) * stretch1 / (5.391 + 28.75)));
  CHECK(b03.energy_ratio(0, 1, 2) == Approx((1.769 + 28.75) * stretch03 / (5.391 + 28.75)));
  CHECK_FALSE(b1.pays(0, 1, 2));
  CHECK_FALSE(b03.pays(0, 1, 2));
  // 32 workers: share 1.796875 W. beta 1: 0.8505; beta 0.3: 0.6024. Both pay.
  CHECK(b1.energy_ratio(0, 1, 32) == Approx((1.769 + 1.796875) * stretch1 / (5.391 + 1.796875)));
  CHECK(b03.energy_ratio(0, 1, 32) == Approx((1.769 + 1.796875) * stretch03 / (5.391 + 1.796875)));
  CHECK(b1.pays(0, 1, 32));
  CHECK(b03.pays(0, 1, 32));
}

TEST_CASE("Core.CostGuard.AdmitsTheSlowestLevelThatPays", "[core][guard]") {
  // 3 GHz 12 W, 2 GHz 4 W, 1 GHz 3 W; beta 1, no uncore. 0 -> 1: 4 x 1.5 / 12
  // = 0.5; 0 -> 2: 3 x 3 / 12 = 0.75; 1 -> 2: 3 x 2 / 4 = 1.5.
  const CostGuard g = guard({3e9, 2e9, 1e9}, {12, 4, 3}, 0, 1.0);
  CHECK(g.admit(0, 2, 1) == 2);
  CHECK(g.admit(1, 2, 1) == 1);  // nothing pays: the worker keeps its level
  CHECK(g.admit(2, 0, 1) == 0);  // a raise passes unchanged
  // With 6 W of uncore alone: 0 -> 2 = 9 x 3 / 18 = 1.5, 0 -> 1 = 10 x 1.5 / 18 = 0.833.
  const CostGuard u = guard({3e9, 2e9, 1e9}, {12, 4, 3}, 6, 1.0);
  CHECK(u.admit(0, 2, 1) == 1);  // as slow as pays, not slower
  CHECK_FALSE(CostGuard().enabled());
  CHECK(CostGuard().admit(0, 2, 1) == 2);  // no model: the decision as it was
}

TEST_CASE("Core.CostGuard.WithoutAnUncoreShareItIsTheBetaModelBitForBit", "[core][guard]") {
  // The time model (rubato/core/model/time_model.hpp) with b_u = 0 and the
  // uncore at any level gives the β model's stretch 1 + β (f/f' − 1) exactly.
  CostModel m({12, 4, 3}, 20, 0.3);
  m.uncore_hz = {3e9, 2e9, 1.2e9};
  m.uncore_level_w = {20, 15, 10};
  m.memory_bandwidth_knee_hz = 2.2e9;
  const CostGuard g(TempoLadder({3e9, 2e9, 1e9}), m);
  const double hz[] = {3e9, 2e9, 1e9}, busy[] = {12, 4, 3};
  for (int uncore = -1; uncore < 3; ++uncore)
    for (Level from = 0; from < 3; ++from)
      for (Level to = from + 1; to < 3; ++to)
        for (int active : {1, 4}) {
          const double uncore_w = uncore < 0 ? 20.0 : m.uncore_level_w[static_cast<std::size_t>(uncore)];
          const double share = uncore_w / active;
          const double stretch = 1.0 + 0.3 * (hz[from] / hz[to] - 1.0);
          const double expected = (busy[to] + share) * stretch / (busy[from] + share);
          GuardContext c;
          c.active = active;
          c.uncore_level = uncore;
          CHECK(g.energy_ratio(from, to, c) == expected);  // exactly, not Approx
        }
}

TEST_CASE("Core.CostGuard.TheUncoreLevelChangesTheVerdict", "[core][guard]") {
  // 2 GHz 10 W -> 1 GHz 3 W; uncore 3 GHz 30 W or 1.5 GHz 20 W, no knee
  // (g = 3 / 1.5 = 2 at 1.5 GHz); b_c 0.5, b_u 0.4; 2 active workers.
  CostModel m({10, 3}, 30, 0.5);
  m.uncore_sensitivity = 0.4;
  m.uncore_hz = {3e9, 1.5e9};
  m.uncore_level_w = {30, 20};
  const CostGuard g(TempoLadder({2e9, 1e9}), m);
  GuardContext fast_uncore;
  fast_uncore.active = 2;
  fast_uncore.uncore_level = 0;
  // Uncore 3 GHz: T(f) = 1, T(f') = 1 + 0.5 (2 - 1) = 1.5; (3 + 15) x 1.5 / (10 + 15) = 1.08: costs.
  CHECK(g.energy_ratio(0, 1, fast_uncore) == Approx(18.0 * 1.5 / 25.0));
  CHECK(g.admit(0, 1, fast_uncore) == 0);
  // Uncore 1.5 GHz: T(f) = 1 + 0.4 = 1.4, T(f') = 1.9; (3 + 10) x 1.9 / 1.4 / 20 = 0.882: pays
  // (more of the time is the uncore's, which the core does not stretch).
  GuardContext slow_uncore = fast_uncore;
  slow_uncore.uncore_level = 1;
  CHECK(g.energy_ratio(0, 1, slow_uncore) == Approx(13.0 * (1.9 / 1.4) / 20.0));
  CHECK(g.admit(0, 1, slow_uncore) == 1);
  // The work's sensitivities as measured now stand for the model's: all core-bound, it costs again.
  slow_uncore.work = WorkSensitivity{1.0, 0.0};
  CHECK(g.energy_ratio(0, 1, slow_uncore) == Approx(13.0 * 2.0 / 20.0));
  CHECK_THROWS_AS(CostGuard(TempoLadder({2e9, 1e9}),
                            [] {
                              CostModel bad({10, 3}, 30, 0.5);
                              bad.uncore_hz = {3e9};
                              return bad;
                            }()),
                  std::invalid_argument);
}

TEST_CASE("Core.CostGuard.RefusesASlowingOnTheCriticalPath", "[core][guard]") {
  // 10 W -> 4 W, no uncore, beta 1: 4 x 2 / 10 = 0.8, a saving ... unless the program waits for this worker.
  const CostGuard g = guard({2e9, 1e9}, {10, 4}, 0, 1.0);
  GuardContext c;
  c.active = 2;
  CHECK(g.admit(0, 1, c) == 1);
  c.critical = true;
  CHECK(g.admit(0, 1, c) == 0);
  CHECK(g.admit(1, 0, c) == 0);  // a raise still passes
}
