// The affinity controller ([META] §V.E) driven through recorded counter
// series: a contention spike lasting one interval moves nothing, one lasting k
// intervals moves a thread; utilisation-only mode balances load.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "rubato/core/affinity/affinity_controller.hpp"
#include "rubato/core/counters/counter_series.hpp"

using namespace rubato;
using namespace rubato::affinity;
using counters::CounterSample;

namespace {

constexpr double kInterval = 0.01;

// Core power: idle 2 W, busy 10 W (equal cores: moves that keep the total load keep the power).
double core_power(int, double, double utilisation) { return 2 + 8 * utilisation; }

std::vector<CounterSample> parse(const std::string& rows, const std::string& columns) {
  std::string error;
  auto s = counters::parse_counter_series("rubato-counters 1\ninterval,scope,elapsed_s," + columns + "\n" + rows,
                                          "test", error);
  REQUIRE(s);
  return s->intervals;
}

// Threads 0 and 1, each busy half the interval, with `misses` LLC misses per 1e6 instructions.
std::string cache_interval(int i, double misses0, double misses1) {
  const std::string n = std::to_string(i);
  return n + ",chip,0.01,,,,\n" + n + ",0,,0.005,1e6," + std::to_string(misses0) + ",0\n" + n + ",1,,0.005,1e6," +
         std::to_string(misses1) + ",0\n";
}

int moves(AffinityController& c, const std::vector<CounterSample>& samples,
          std::vector<PlacementDecision>* out = nullptr) {
  int n = 0;
  for (const CounterSample& s : samples)
    if (auto d = c.step(s, {})) {
      n += static_cast<int>(d->moves.size());
      if (out) out->push_back(*d);
    }
  return n;
}

// Cores 0-1 share one last-level cache, cores 2-3 another.
CoreTopology two_caches() {
  CoreTopology t = CoreTopology::one_cache(4);
  t.cache_group = {0, 0, 1, 1};
  return t;
}

}  // namespace

TEST_CASE("Affinity.Controller.OneIntervalSpikeMovesNothing", "[core][affinity]") {
  AffinityController c(two_caches(), core_power);  // k = 4 recent, j = 8 baseline intervals
  c.add_target(0, 0);
  c.add_target(1, 1);
  std::string rows;
  int i = 0;
  for (; i < 8; ++i) rows += cache_interval(i, 1000, 1000);
  rows += cache_interval(i++, 50000, 40000);  // one interval of heavy misses on the shared cache
  for (; i < 20; ++i) rows += cache_interval(i, 1000, 1000);
  CHECK(moves(c, parse(rows, "busy_s,instructions,llc_misses,fp_ops")) == 0);
  CHECK(c.mode() == MetricsMode::full);
  CHECK(*c.core_of(0) == 0);
  CHECK(*c.core_of(1) == 1);
}

TEST_CASE("Affinity.Controller.SustainedContentionMovesOneThread", "[core][affinity]") {
  AffinityController c(two_caches(), core_power);
  c.add_target(0, 0);
  c.add_target(1, 1);
  std::string rows;
  int i = 0;
  for (; i < 8; ++i) rows += cache_interval(i, 1000, 1000);
  for (int k = 0; k < 3; ++k) rows += cache_interval(i++, 50000, 40000);
  const auto first = parse(rows, "busy_s,instructions,llc_misses,fp_ops");
  CHECK(moves(c, first) == 0);  // three intervals of contention: not yet k = 4
  std::vector<PlacementDecision> decisions;
  CHECK(moves(c, parse(cache_interval(0, 50000, 40000), "busy_s,instructions,llc_misses,fp_ops"), &decisions) == 1);
  REQUIRE(decisions.size() == 1);
  CHECK(decisions[0].reason == MoveReason::cache_contention);
  // The hungriest thread (0) goes behind the other cache.
  CHECK(decisions[0].moves[0].thread == 0);
  CHECK(*c.core_of(0) >= 2);
  CHECK(*c.core_of(1) == 1);
  CHECK(decisions[0].power_after_w <= decisions[0].power_before_w * 1.02);
}

TEST_CASE("Affinity.Controller.UtilisationOnlyBalancesLoad", "[core][affinity]") {
  // Only CPU times (as /proc gives): threads 0 and 1 share core 0 while core 1
  // idles. Light intervals (core 0 at 40 %) move nothing; one saturated
  // interval among them moves nothing; k = 4 saturated ones move one thread.
  // (Two threads on one core share its time: their busy times add up to at most
  // the interval.)
  AffinityController c(CoreTopology::one_cache(2), core_power);
  c.add_target(0, 0);
  c.add_target(1, 0);
  const auto busy = [](int i, double share0, double share1) {
    const std::string n = std::to_string(i);
    return n + ",chip," + std::to_string(kInterval) + ",\n" + n + ",0,," + std::to_string(share0 * kInterval) + "\n" +
           n + ",1,," + std::to_string(share1 * kInterval) + "\n";
  };
  std::string spike;
  for (int i = 0; i < 10; ++i) spike += i == 5 ? busy(i, 0.5, 0.5) : busy(i, 0.2, 0.2);
  CHECK(moves(c, parse(spike, "busy_s")) == 0);
  CHECK(c.mode() == MetricsMode::utilisation_only);
  std::string sustained;
  for (int i = 0; i < 3; ++i) sustained += busy(i, 0.5, 0.5);
  CHECK(moves(c, parse(sustained, "busy_s")) == 0);  // three intervals: not yet k = 4
  std::vector<PlacementDecision> decisions;
  CHECK(moves(c, parse(busy(0, 0.5, 0.5), "busy_s"), &decisions) == 1);
  REQUIRE(decisions.size() == 1);
  CHECK(decisions[0].reason == MoveReason::load_balance);
  CHECK(decisions[0].moves[0].from == 0);
  CHECK(*c.core_of(decisions[0].moves[0].thread) == 1);
  CHECK(*c.core_of(1 - decisions[0].moves[0].thread) == 0);
}

TEST_CASE("Affinity.Controller.TargetsOutsideTheTopologyAreRefused", "[core][affinity]") {
  AffinityController c(CoreTopology::one_cache(2), core_power);
  CHECK_THROWS_AS(c.add_target(0, 2), std::invalid_argument);
  CHECK_FALSE(c.core_of(0).has_value());
}
