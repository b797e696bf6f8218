// [EFS] §4.3 Eqs. 21–24: starvation freedom (cl = 20, cg = 5 as in the paper).
#include <catch2/catch.hpp>

#include <vector>

#include "rubato/core/efs/efs_starvation.hpp"

using namespace rubato::efs;

TEST_CASE("Efs.Starvation.Eq21Period", "[core][efs]") {
  for (int nc = 0; nc < 5; ++nc) CHECK(period_s(nc) == Approx(0.018));
  CHECK(period_s(5) == Approx(0.020));
  CHECK(period_s(8) == Approx(0.032));
}

TEST_CASE("Efs.Starvation.Eq22To24Thresholds", "[core][efs]") {
  const StarvationParams paper;  // cl = 20, cg = 5
  CHECK(paper.cl == 20);
  CHECK(paper.cg == 5);
  CHECK(local_threshold_s(2) == Approx(20 * 0.018));
  CHECK(local_threshold_s(6) == Approx(20 * 0.024));
  CHECK(global_threshold_s(4) == Approx(5 * 0.018));
  CHECK(global_threshold_s(8) == Approx(5 * 0.032));
  CHECK(max_wait_s(4) == Approx(4 * 0.018));
  CHECK(max_wait_s(8) == Approx(8 * 0.032));
  StarvationParams other;
  other.cl = 10;
  other.cg = 2;
  CHECK(local_threshold_s(2, other) == Approx(10 * 0.018));
  CHECK(global_threshold_s(8, other) == Approx(2 * 0.032));
}

TEST_CASE("Efs.Starvation.LocalAndGlobal", "[core][efs]") {
  // Core 0: A runs; B and C wait. Core 1: D runs; E waits. np = 5 → t_global = 90 ms.
  // nc(core 0) = 3 → t_local = 360 ms.
  const double now = 10.0;
  std::vector<RunnableThread> t = {
      {1, 0, 2.00, 9.99, true},   // A
      {2, 0, 1.50, 9.95, false},  // B: 0.5 s behind A → local; ran 50 ms ago
      {3, 0, 1.60, 9.00, false},  // C: not CFS's next pick on core 0
      {4, 1, 1.00, 9.99, true},   // D
      {5, 1, 1.00, 9.80, false},  // E: no lag, but not run for 200 ms → global
  };
  const StarvationVerdict b = starvation_of(t, 1, now);
  CHECK(b.candidate);
  CHECK(b.local);
  CHECK_FALSE(b.global);
  CHECK(b.starved());
  const StarvationVerdict c = starvation_of(t, 2, now);
  CHECK_FALSE(c.candidate);
  CHECK(c.global);
  CHECK_FALSE(c.starved());
  const StarvationVerdict e = starvation_of(t, 4, now);
  CHECK(e.candidate);
  CHECK_FALSE(e.local);
  CHECK(e.global);
  CHECK_FALSE(starvation_of(t, 0, now).starved());  // running threads are not starved
  CHECK(starved_threads(t, now) == std::vector<std::size_t>{1, 4});
  // The longest starved is the one that has not run for longest: E.
  REQUIRE(longest_starved(t, now));
  CHECK(*longest_starved(t, now) == 4);
  // Its timeslice: min(t_period(2) = 18 ms, lag 0) — alone in lag, no compensation.
  CHECK(starved_timeslice_s(t, 4) == Approx(0.0));
  // B's: min(t_period(3) = 18 ms, lag 0.5 s).
  CHECK(starved_timeslice_s(t, 1) == Approx(0.018));
  // Just inside the thresholds nothing is starved.
  t[1].vruntime_s = 2.0 - 0.359;
  t[2] = {3, 0, 1.90, now - 0.05, false};
  t[4].last_ran_s = now - 0.089;
  CHECK(starved_threads(t, now).empty());
  CHECK_FALSE(longest_starved(t, now));
}
