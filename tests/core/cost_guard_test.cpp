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
