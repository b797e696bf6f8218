// [META] §V.E: the greedy placement step — moves only on sustained patterns,
// weighed against predicted power; utilisation-only mode.
#include <catch2/catch.hpp>

#include <optional>
#include <stdexcept>
#include <vector>

#include "rubato/core/affinity/affinity_placement.hpp"

using namespace rubato::affinity;

namespace {

struct Load {
  std::uint64_t id;
  int core;
  double utilisation;
  std::optional<double> miss_rate = std::nullopt;     // per instruction
  std::optional<double> fp_intensity = std::nullopt;  // per instruction
};

IntervalSample interval(const std::vector<Load>& loads, int cores) {
  IntervalSample s;
  s.elapsed_s = 0.1;
  s.core_frequency_hz.assign(static_cast<std::size_t>(cores), 2e9);
  for (const Load& l : loads) {
    ThreadSample t;
    t.id = l.id;
    t.core = l.core;
    t.busy_s = l.utilisation * s.elapsed_s;  // /proc times
    if (l.miss_rate || l.fp_intensity) t.instructions = 1e8;
    if (l.miss_rate) t.llc_misses = *l.miss_rate * 1e8;
    if (l.fp_intensity) t.fp_ops = *l.fp_intensity * 1e8;
    s.threads.push_back(t);
  }
  return s;
}

// A core draws 3 W + 7 W × utilisation while it hosts work; an empty one is gated.
double gated_w(int, double, double u) { return u > 0 ? 3 + 7 * u : 0.2; }
// The same without gating: moving load between cores changes nothing.
double ungated_w(int, double, double u) { return 3 + 7 * u; }

PlacementParams params_k4() {
  PlacementParams p;
  p.history.recent = 4;
  p.history.baseline = 4;
  p.history.tolerance = 0.5;
  return p;
}

// Two shared caches (cores 0–1, 2–3), no SMT.
CoreTopology two_caches() { return {{0, 0, 1, 1}, {0, 1, 2, 3}}; }

std::vector<Load> three_threads(double miss_on_core0) {
  return {{1, 0, 0.6, miss_on_core0}, {2, 1, 0.6, 0.01}, {3, 2, 0.6, 0.01}};
}

}  // namespace

TEST_CASE("Affinity.Placement.ContentionSpikeOfOneIntervalDoesNotMigrate", "[core][affinity]") {
  AffinityScheduler s(two_caches(), gated_w, params_k4());
  for (int i = 0; i < 4; ++i) CHECK_FALSE(s.step(interval(three_threads(0.01), 4)));
  CHECK_FALSE(s.step(interval(three_threads(0.10), 4)));  // the spike
  bool mean_test_fired = false;
  for (int i = 0; i < 12; ++i) {
    CHECK_FALSE(s.step(interval(three_threads(0.01), 4)));
    mean_test_fired |= s.history().cache_contention(0).elevated;
  }
  CHECK(mean_test_fired);  // the k-interval mean alone would have moved a thread
  CHECK(s.mode() == MetricsMode::cache_only);
}

TEST_CASE("Affinity.Placement.ContentionLastingKIntervalsMigrates", "[core][affinity]") {
  AffinityScheduler s(two_caches(), gated_w, params_k4());
  for (int i = 0; i < 4; ++i) CHECK_FALSE(s.step(interval(three_threads(0.01), 4)));
  for (int i = 0; i < 3; ++i) CHECK_FALSE(s.step(interval(three_threads(0.10), 4)));
  const auto d = s.step(interval(three_threads(0.10), 4));  // the k-th interval
  REQUIRE(d);
  CHECK(d->reason == MoveReason::cache_contention);
  REQUIRE(d->moves.size() == 1);
  CHECK(d->moves[0].thread == 1);  // the thread whose misses rose
  CHECK(d->moves[0].from == 0);
  CHECK(d->moves[0].to == 3);  // behind the other cache, on the idle core
  CHECK(d->power_after_w <= d->power_before_w * 1.02);
  CHECK(s.history().empty());  // the old series described the old placement
}

TEST_CASE("Affinity.Placement.UtilisationOnlyBalances", "[core][affinity]") {
  // Only /proc times: two threads share core 0 while core 1 idles.
  const std::vector<Load> crowded{{1, 0, 0.5}, {2, 0, 0.5}};
  AffinityScheduler s(CoreTopology::one_cache(2), ungated_w, params_k4());
  for (int i = 0; i < 3; ++i) CHECK_FALSE(s.step(interval(crowded, 2)));
  CHECK(s.mode() == MetricsMode::utilisation_only);
  const auto d = s.step(interval(crowded, 2));
  REQUIRE(d);
  CHECK(d->reason == MoveReason::load_balance);
  REQUIRE(d->moves.size() == 1);
  CHECK(d->moves[0].from == 0);
  CHECK(d->moves[0].to == 1);
  // Not applied (the caller's job): the pattern must build up again over k intervals.
  for (int i = 0; i < 3; ++i) CHECK_FALSE(s.step(interval(crowded, 2)));
  CHECK(s.step(interval(crowded, 2)));
}

TEST_CASE("Affinity.Placement.ImbalanceForFewerThanKIntervalsStays", "[core][affinity]") {
  const std::vector<Load> crowded{{1, 0, 0.5}, {2, 0, 0.5}}, spread{{1, 0, 0.5}, {2, 1, 0.5}};
  AffinityScheduler s(CoreTopology::one_cache(2), ungated_w, params_k4());
  for (int round = 0; round < 5; ++round) {
    for (int i = 0; i < 3; ++i) CHECK_FALSE(s.step(interval(crowded, 2)));
    CHECK_FALSE(s.step(interval(spread, 2)));
  }
}

TEST_CASE("Affinity.Placement.PowerVetoesAMove", "[core][affinity]") {
  const std::vector<Load> crowded{{1, 0, 0.5}, {2, 0, 0.5}};
  const auto core1_expensive = [](int core, double, double u) { return core == 1 && u > 0 ? 50.0 : 3 + 7 * u; };
  AffinityScheduler s(CoreTopology::one_cache(2), core1_expensive, params_k4());
  for (int i = 0; i < 8; ++i) CHECK_FALSE(s.step(interval(crowded, 2)));
}

TEST_CASE("Affinity.Placement.ConsolidatesWhenGatingSavesPower", "[core][affinity]") {
  const std::vector<Load> light{{1, 0, 0.2}, {2, 1, 0.25}};
  SECTION("gated idle cores: consolidate") {
    AffinityScheduler s(CoreTopology::one_cache(4), gated_w, params_k4());
    for (int i = 0; i < 3; ++i) CHECK_FALSE(s.step(interval(light, 4)));
    const auto d = s.step(interval(light, 4));
    REQUIRE(d);
    CHECK(d->reason == MoveReason::consolidation);
    REQUIRE(d->moves.size() == 1);
    CHECK(d->moves[0].thread == 1);
    CHECK(d->moves[0].to == 1);
    CHECK(d->power_after_w < d->power_before_w);
  }
  SECTION("no gating: nothing to gain") {
    AffinityScheduler s(CoreTopology::one_cache(4), ungated_w, params_k4());
    for (int i = 0; i < 8; ++i) CHECK_FALSE(s.step(interval(light, 4)));
  }
  SECTION("switched off") {
    PlacementParams p = params_k4();
    p.consolidate = false;
    AffinityScheduler s(CoreTopology::one_cache(4), gated_w, p);
    for (int i = 0; i < 8; ++i) CHECK_FALSE(s.step(interval(light, 4)));
  }
}

TEST_CASE("Affinity.Placement.SeparatesFpThreadsSharingAnFpUnit", "[core][affinity]") {
  // Cores 0–1 and 2–3 are SMT siblings sharing an FP unit.
  const CoreTopology smt{{0, 0, 0, 0}, {0, 0, 1, 1}};
  const std::vector<Load> fp_pair{
      {1, 0, 0.8, std::nullopt, 0.4}, {2, 1, 0.8, std::nullopt, 0.4}, {3, 2, 0.3, std::nullopt, 0.0}};
  AffinityScheduler s(smt, ungated_w, params_k4());
  for (int i = 0; i < 3; ++i) CHECK_FALSE(s.step(interval(fp_pair, 4)));
  CHECK(s.mode() == MetricsMode::fp_only);
  const auto d = s.step(interval(fp_pair, 4));
  REQUIRE(d);
  CHECK(d->reason == MoveReason::fp_sharing);
  REQUIRE(d->moves.size() == 1);
  CHECK(d->moves[0].from <= 1);
  CHECK(d->moves[0].to == 3);  // the other FP unit, least busy core
}

TEST_CASE("Affinity.Placement.BadSetup", "[core][affinity]") {
  CHECK_THROWS_AS(AffinityScheduler(CoreTopology{{0, 0}, {0}}, ungated_w), std::invalid_argument);
  CHECK_THROWS_AS(AffinityScheduler(CoreTopology{}, ungated_w), std::invalid_argument);
  CHECK_THROWS_AS(AffinityScheduler(CoreTopology::one_cache(2), CorePowerFn{}), std::invalid_argument);
  // A thread bound outside the topology: no decision rather than a wrong one.
  AffinityScheduler s(CoreTopology::one_cache(2), ungated_w, params_k4());
  for (int i = 0; i < 8; ++i) CHECK_FALSE(s.step(interval({{1, 0, 0.5}, {2, 0, 0.5}, {3, 3, 0.5}}, 4)));
}
