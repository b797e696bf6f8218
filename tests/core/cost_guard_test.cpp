// The cost guard (rubato's own, beyond the papers): its arithmetic against
// hand-computed cases, and its verdict against whole-machine accounting.
#include <catch2/catch.hpp>

#include <cmath>

#include "rubato/core/tempo/cost_guard.hpp"

using namespace rubato;

namespace {
CostGuard guard(std::vector<double> hz, std::vector<double> busy_w, double uncore_w, double beta) {
  return CostGuard(TempoLadder(std::move(hz)), CostModel{std::move(busy_w), uncore_w, beta});
}
}  // namespace

TEST_CASE("Core.CostGuard.TwoLevelsByHand", "[core][guard]") {
  // f 2 GHz -> 1 GHz, busy 10 W -> 3 W.
  // beta 1, no uncore: E'/E = (3 x 2) / 10 = 0.6 at twice the time: the EDP
  // ratio is 0.6 + (2 - 1) = 1.6, it does not pay.
  const CostGuard free_uncore = guard({2e9, 1e9}, {10, 3}, 0, 1.0);
  CHECK(free_uncore.energy_ratio(0, 1, 1) == Approx(0.6));
  CHECK(free_uncore.stretch(0, 1, GuardContext::among(1)) == 2.0);
  CHECK(free_uncore.edp_ratio(0, 1, 1) == Approx(1.6));
  CHECK_FALSE(free_uncore.pays(0, 1, 1));
  // beta 1, uncore 20 W: alone (3 + 20) x 2 / (10 + 20) = 1.5333; among 4
  // (3 + 5) x 2 / 15 = 1.0667; among 10 (3 + 2) x 2 / 12 = 0.8333.
  const CostGuard g = guard({2e9, 1e9}, {10, 3}, 20, 1.0);
  CHECK(g.energy_ratio(0, 1, 1) == Approx(46.0 / 30.0));
  CHECK(g.energy_ratio(0, 1, 4) == Approx(16.0 / 15.0));
  CHECK(g.energy_ratio(0, 1, 10) == Approx(10.0 / 12.0));
  CHECK(g.energy_ratio(0, 1, 0) == g.energy_ratio(0, 1, 1));  // no active worker counts as one
  CHECK_FALSE(g.pays(0, 1, 10));                              // saves 17 % of the energy for 100 % more time
  // beta 0.3: d'/d = 1 + 0.3 x (2 - 1) = 1.3. Busy 10 W -> 1 W: alone
  // (1 + 20) x 1.3 / 30 = 0.91, EDP ratio 1.21; among 4 (1 + 5) x 1.3 / 15
  // = 0.52, EDP ratio 0.82: pays.
  const CostGuard low = guard({2e9, 1e9}, {10, 1}, 20, 0.3);
  CHECK(low.energy_ratio(0, 1, 1) == Approx(0.91));
  CHECK(low.edp_ratio(0, 1, 1) == Approx(1.21));
  CHECK_FALSE(low.pays(0, 1, 1));
  CHECK(low.edp_ratio(0, 1, 4) == Approx(0.82));
  CHECK(low.pays(0, 1, 4));
}

TEST_CASE("Core.CostGuard.OpteronProfileByHand", "[core][guard]") {
  // opteron-6378 (power/profiles): 2.4 GHz 5.391 W, 1.4 GHz 1.769 W (the
  // paper's two levels there), uncore 57.5 W. d'/d = 1 + beta x (2.4/1.4 - 1).
  const double stretch1 = 2.4 / 1.4, stretch03 = 1 + 0.3 * (2.4 / 1.4 - 1);
  const CostGuard none = guard({2.4e9, 1.4e9}, {5.391, 1.769}, 0, 1.0);
  // No uncore: 0.5625 of the energy for 1.714x the time: EDP ratio 1.277.
  CHECK(none.energy_ratio(0, 1, 2) == Approx(1.769 * stretch1 / 5.391));
  CHECK(none.edp_ratio(0, 1, 2) == Approx(1.769 * stretch1 / 5.391 + stretch1 - 1));
  CHECK_FALSE(none.pays(0, 1, 2));
  const CostGuard b1 = guard({2.4e9, 1.4e9}, {5.391, 1.769}, 57.5, 1.0);
  const CostGuard b03 = guard({2.4e9, 1.4e9}, {5.391, 1.769}, 57.5, 0.3);
  // 2 workers: uncore share 28.75 W. beta 1: 1.5324; beta 0.3: 1.0855. Neither pays.
  CHECK(b1.energy_ratio(0, 1, 2) == Approx((1.769 + 28.75) * stretch1 / (5.391 + 28.75)));
  CHECK(b03.energy_ratio(0, 1, 2) == Approx((1.769 + 28.75) * stretch03 / (5.391 + 28.75)));
  CHECK_FALSE(b1.pays(0, 1, 2));
  CHECK_FALSE(b03.pays(0, 1, 2));
  // 32 workers: share 1.796875 W. beta 1: energy 0.8505, EDP ratio 1.565:
  // no; beta 0.3: energy 0.6024, EDP ratio 0.8167: pays.
  CHECK(b1.energy_ratio(0, 1, 32) == Approx((1.769 + 1.796875) * stretch1 / (5.391 + 1.796875)));
  CHECK(b03.energy_ratio(0, 1, 32) == Approx((1.769 + 1.796875) * stretch03 / (5.391 + 1.796875)));
  CHECK_FALSE(b1.pays(0, 1, 32));
  CHECK(b03.pays(0, 1, 32));
}

TEST_CASE("Core.CostGuard.RefusesASavingThatCostsMoreTimeThanItSaves", "[core][guard]") {
  // opteron-6378 at beta 0.3: among 4 workers a slowed thief saves 0.8 % of
  // the energy of its work (E'/E 0.9918) for 21 % more time; among 8, 13.5 %
  // for 21 %. Both raise the run's EDP (ratios 1.206 and 1.079): refused.
  // From about 12 on (1 + 0.3 x (2.4/1.4 - 1) = 1.2143: the share must fall
  // below 4.87 W) the saving outweighs the time: among 16, 0.939.
  const CostGuard b03 = guard({2.4e9, 1.4e9}, {5.391, 1.769}, 57.5, 0.3);
  CHECK(b03.energy_ratio(0, 1, 4) == Approx(0.9918).margin(1e-4));
  CHECK(b03.edp_ratio(0, 1, 4) == Approx(1.2061).margin(1e-4));
  CHECK_FALSE(b03.pays(0, 1, 4));
  CHECK(b03.admit(0, 1, 4) == 0);
  CHECK(b03.edp_ratio(0, 1, 8) == Approx(1.0789).margin(1e-4));
  CHECK(b03.admit(0, 1, 8) == 0);
  CHECK(b03.edp_ratio(0, 1, 16) == Approx(0.9391).margin(1e-4));
  CHECK(b03.admit(0, 1, 16) == 1);
}

TEST_CASE("Core.CostGuard.VerdictIsTheWholeMachinesEdp", "[core][guard]") {
  // The guard's verdict against whole-machine accounting done here from
  // scratch: n workers, each busy for T0 at f, share the work; one of them is
  // slowed for d' = s d of it. Its lost work (d' - d) is done by all n, so the
  // run lasts T1 = T0 + (d' - d) / n; every core at f draws P, the slowed one
  // P' for d', the uncore U throughout. For d small against the run, the sign
  // of E1 T1 - E0 T0 is the guard's verdict wherever it is not a near tie.
  const std::vector<double> hz = {2.4e9, 1.4e9}, busy = {5.391, 1.769};
  int compared = 0;
  for (double uncore : {0.0, 20.0, 57.5})
    for (double beta : {0.0, 0.1, 0.3, 0.5, 1.0})
      for (int n = 1; n <= 32; ++n) {
        const CostGuard g = guard(hz, busy, uncore, beta);
        const double s = 1 + beta * (hz[0] / hz[1] - 1), t0 = 1.0, d = 1e-4, d2 = s * d;
        const double t1 = t0 + (d2 - d) / n;
        const double e0 = (n * busy[0] + uncore) * t0;
        const double e1 = (n * busy[0] + uncore) * t1 - (busy[0] - busy[1]) * d2;
        const double edp_change = e1 * t1 / (e0 * t0) - 1;
        // First order: the slowed work's share of the run (d / (n t0)) times the guard's EDP ratio - 1.
        CHECK(edp_change == Approx(d / (n * t0) * (g.edp_ratio(0, 1, n) - 1)).epsilon(0.01).margin(1e-9));
        if (std::abs(g.edp_ratio(0, 1, n) - 1) < 1e-3) continue;
        INFO("uncore " << uncore << " W, beta " << beta << ", " << n << " workers");
        CHECK((edp_change < 0) == g.pays(0, 1, n));
        ++compared;
      }
  CHECK(compared > 400);
}

TEST_CASE("Core.CostGuard.AdmitsTheSlowestLevelThatPays", "[core][guard]") {
  // 3 GHz 12 W, 2 GHz 4 W, 1 GHz 3.5 W; beta 0.2, no uncore (d'/d 1.1, 1.4,
  // 1.2). 0 -> 1: 4 x 1.1 / 12 = 0.367, EDP ratio 0.467; 0 -> 2: 3.5 x 1.4 /
  // 12 = 0.408, 0.808; 1 -> 2: 3.5 x 1.2 / 4 = 1.05, 1.25.
  const CostGuard g = guard({3e9, 2e9, 1e9}, {12, 4, 3.5}, 0, 0.2);
  CHECK(g.edp_ratio(0, 2, 1) == Approx(0.4083333 + 0.4));
  CHECK(g.admit(0, 2, 1) == 2);
  CHECK(g.admit(1, 2, 1) == 1);  // nothing pays: the worker keeps its level
  CHECK(g.admit(2, 0, 1) == 0);  // a raise passes unchanged
  // With 6 W of uncore alone: 0 -> 2 = 9.5 x 1.4 / 18 + 0.4 = 1.139, 0 -> 1 = 10 x 1.1 / 18 + 0.1 = 0.711.
  const CostGuard u = guard({3e9, 2e9, 1e9}, {12, 4, 3.5}, 6, 0.2);
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
          CHECK(g.stretch(from, to, c) == stretch);
          CHECK(g.edp_ratio(from, to, c) == expected + (stretch - 1.0));
        }
}

TEST_CASE("Core.CostGuard.TheUncoreLevelChangesTheVerdict", "[core][guard]") {
  // 2 GHz 10 W -> 1 GHz 3 W; uncore 3 GHz 30 W or 1.5 GHz 20 W, no knee
  // (g = 3 / 1.5 = 2 at 1.5 GHz); b_c 0.2, b_u 0.6; 2 active workers.
  CostModel m({10, 3}, 30, 0.2);
  m.uncore_sensitivity = 0.6;
  m.uncore_hz = {3e9, 1.5e9};
  m.uncore_level_w = {30, 20};
  const CostGuard g(TempoLadder({2e9, 1e9}), m);
  GuardContext fast_uncore;
  fast_uncore.active = 2;
  fast_uncore.uncore_level = 0;
  // Uncore 3 GHz: T(f) = 1, T(f') = 1 + 0.2 (2 - 1) = 1.2; (3 + 15) x 1.2 / (10 + 15) = 0.864,
  // EDP ratio 1.064: costs.
  CHECK(g.energy_ratio(0, 1, fast_uncore) == Approx(18.0 * 1.2 / 25.0));
  CHECK(g.edp_ratio(0, 1, fast_uncore) == Approx(18.0 * 1.2 / 25.0 + 0.2));
  CHECK(g.admit(0, 1, fast_uncore) == 0);
  // Uncore 1.5 GHz: T(f) = 1 + 0.6 = 1.6, T(f') = 1.8; (3 + 10) x 1.125 / 20 = 0.731, EDP ratio
  // 0.856: pays (more of the time is the uncore's, which the core does not stretch).
  GuardContext slow_uncore = fast_uncore;
  slow_uncore.uncore_level = 1;
  CHECK(g.stretch(0, 1, slow_uncore) == Approx(1.8 / 1.6));
  CHECK(g.edp_ratio(0, 1, slow_uncore) == Approx(13.0 * 1.125 / 20.0 + 0.125));
  CHECK(g.admit(0, 1, slow_uncore) == 1);
  // The work's sensitivities as measured now stand for the model's: all core-bound, it costs again.
  slow_uncore.work = WorkSensitivity{1.0, 0.0};
  CHECK(g.energy_ratio(0, 1, slow_uncore) == Approx(13.0 * 2.0 / 20.0));
  CHECK(g.admit(0, 1, slow_uncore) == 0);
  CHECK_THROWS_AS(CostGuard(TempoLadder({2e9, 1e9}),
                            [] {
                              CostModel bad({10, 3}, 30, 0.5);
                              bad.uncore_hz = {3e9};
                              return bad;
                            }()),
                  std::invalid_argument);
}

TEST_CASE("Core.CostGuard.RefusesASlowingOnTheCriticalPath", "[core][guard]") {
  // 10 W -> 4 W, no uncore, beta 0.25: 4 x 1.25 / 10 = 0.5, EDP ratio 0.75,
  // a saving ... unless the program waits for this worker.
  const CostGuard g = guard({2e9, 1e9}, {10, 4}, 0, 0.25);
  GuardContext c;
  c.active = 2;
  CHECK(g.admit(0, 1, c) == 1);
  c.critical = true;
  CHECK(g.admit(0, 1, c) == 0);
  CHECK(g.admit(1, 0, c) == 0);  // a raise still passes
}
