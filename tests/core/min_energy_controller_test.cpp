// The min-energy controller (rubato/core/min_energy/min_energy_controller.hpp):
// its decisions, its re-decisions when the work's sensitivity changes, the
// order of the sensitivity's sources, and the uncore following the workers
// that run.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "rubato/core/min_energy/min_energy_controller.hpp"

using namespace rubato;
using namespace rubato::min_energy;

namespace {

// Cuttlefish's machine (power/profiles/haswell-e5-2650v3.json) on a two-level
// tempo ladder, 2.3 and 1.4 GHz, and the 19 uncore levels 3.0 ... 1.2 GHz.
LevelPowers two_level_haswell() {
  LevelPowers p;
  p.core_hz = {2.3e9, 1.4e9};
  p.busy_w = {2.802, 1.291};
  p.idle_w = {2.409, 1.052};
  for (int i = 0; i < 19; ++i) {
    const double ghz = (30 - i) / 10.0;
    p.uncore_hz.push_back((30 - i) * 1e8);
    p.uncore_w.push_back(ghz >= 2.1 ? 59.73 + (ghz - 2.1) / 0.9 * (86.1 - 59.73)
                                    : 48.16 + (ghz - 1.2) / 0.9 * (59.73 - 48.16));
  }
  return p;
}

constexpr double kKneeHz = 2.195e9;
constexpr double kSaturatedRate = 6.549e9;  // R_sat, benchmarks/cuttlefish/RESULTS.md
constexpr std::size_t kLowestUncore = 18;

ControllerParams params(SensitivityFallbacks fallbacks = {}) {
  ControllerParams p(FrequencyModel(two_level_haswell(), kKneeHz));
  p.fallbacks = fallbacks;
  p.saturated_transaction_rate_per_s = kSaturatedRate;
  return p;
}

// One interval of `seconds` whose chip made `rate` memory transactions per second.
counters::CounterSample chip_rate(double rate, double seconds = 0.01) {
  counters::CounterSample s;
  s.elapsed_s = seconds;
  s.chip.mem_accesses = rate * seconds;
  return s;
}

Input at(double t_s, int working, int waiting, const counters::CounterSample* sample = nullptr) {
  return Input{t_s, WorkerActivity{working, waiting}, sample};
}

}  // namespace

TEST_CASE("MinEnergy.Controller.DecidesTheLeastEnergyPairWithinTheBound", "[core][min-energy]") {
  SensitivityFallbacks memory_bound;
  memory_bound.settings_core = 0.07;
  memory_bound.settings_uncore = 0.73;  // HPCCG's shares (benchmarks/cuttlefish/programs.json)
  Controller c(params(memory_bound));
  const auto d = c.step(at(0.01, 20, 0));
  REQUIRE(d);
  const FrequencyPairEstimate expected =
      choose_frequency_pair({0.07, 0.73}, c.params().model, 20, 0, c.params().max_time_loss);
  CHECK(d->pair.core_level == expected.core_level);
  CHECK(d->pair.uncore_level == expected.uncore_level);
  CHECK(d->pair.core_level == 1);      // the core barely matters: 1.4 GHz
  CHECK(d->pair.uncore_hz >= 2.1e9);   // the uncore does: at or near the knee, not 1.2 GHz
  CHECK(d->pair.time_factor <= 1.05);  // within the 5 % bound
  CHECK(d->pair.energy_ratio < 1.0);
  CHECK(d->sensitivity.uncore_source == SensitivitySource::settings);
  CHECK(d->reason == "the first interval");
  CHECK_FALSE(c.step(at(0.02, 20, 0)));  // the same inputs: the decision stands

  SensitivityFallbacks compute_bound;
  compute_bound.settings_core = 0.96;
  compute_bound.settings_uncore = 0.02;  // UTS
  Controller u(params(compute_bound));
  const auto e = u.step(at(0.01, 20, 0));
  REQUIRE(e);
  CHECK(e->pair.core_level == 0);
  CHECK(e->pair.uncore_level == kLowestUncore);  // 1.2 GHz: +2 % time, the uncore's power saved
}

TEST_CASE("MinEnergy.Controller.RedecidesWhenTheSensitivityChanges", "[core][min-energy]") {
  Controller c(params());
  const counters::CounterSample memory = chip_rate(0.75 * kSaturatedRate);
  const counters::CounterSample compute = chip_rate(0.01 * kSaturatedRate);
  const auto first = c.step(at(0.01, 20, 0, &compute));
  REQUIRE(first);
  CHECK(first->sensitivity.uncore_source == SensitivitySource::counters);
  CHECK(first->sensitivity.value.uncore == Approx(0.01));
  CHECK(first->transaction_rate_per_s == Approx(0.01 * kSaturatedRate));
  CHECK(first->pair.uncore_level == kLowestUncore);
  // The work turns memory-bound: b_u 0.75, b_c capped at 1 - 0.75 (the profile's beta 1).
  const auto second = c.step(at(0.02, 20, 0, &memory));
  REQUIRE(second);
  CHECK(second->sensitivity.value.uncore == Approx(0.75));
  CHECK(second->sensitivity.value.core == Approx(0.25));
  CHECK(second->pair.uncore_hz >= 2.1e9);
  CHECK(second->pair.uncore_level < kLowestUncore);
  CHECK_FALSE(c.step(at(0.03, 20, 0, &memory)));
  // A small drift within the step neither moves the pair nor makes a record.
  const counters::CounterSample drift = chip_rate(0.76 * kSaturatedRate);
  CHECK_FALSE(c.step(at(0.04, 20, 0, &drift)));
  // Back to compute-bound: the uncore goes down again.
  const auto third = c.step(at(0.05, 20, 0, &compute));
  REQUIRE(third);
  CHECK(third->pair.uncore_level == kLowestUncore);
  CHECK(c.current()->t_s == 0.05);
}

TEST_CASE("MinEnergy.Controller.SensitivitySourcesInOrder", "[core][min-energy]") {
  SensitivityFallbacks all;
  all.settings_core = 0.5;
  all.settings_uncore = 0.3;
  all.profile = {0.9, 0.0};
  const counters::CounterSample counted = chip_rate(0.2 * kSaturatedRate);
  const counters::CounterSample uncounted = [] {
    counters::CounterSample s;
    s.elapsed_s = 0.01;
    s.thread_or_add(0).busy_s = 0.01;  // CPU time only, as /proc gives
    return s;
  }();
  // Counters first (b_u), the settings for b_c.
  Controller c(params(all));
  auto d = c.step(at(0.01, 4, 0, &counted));
  REQUIRE(d);
  CHECK(d->sensitivity.uncore_source == SensitivitySource::counters);
  CHECK(d->sensitivity.value.uncore == Approx(0.2));
  CHECK(d->sensitivity.core_source == SensitivitySource::settings);
  CHECK(d->sensitivity.value.core == Approx(0.5));
  // An interval without them: the settings.
  d = c.step(at(0.02, 4, 0, &uncounted));
  REQUIRE(d);  // the source changed: a new record
  CHECK(d->sensitivity.uncore_source == SensitivitySource::settings);
  CHECK(d->sensitivity.value.uncore == Approx(0.3));
  // No settings: the profile's.
  SensitivityFallbacks profile_only;
  profile_only.profile = {0.9, 0.0};
  Controller p(params(profile_only));
  d = p.step(at(0.01, 4, 0, &uncounted));
  REQUIRE(d);
  CHECK(d->sensitivity.uncore_source == SensitivitySource::profile);
  CHECK(d->sensitivity.core_source == SensitivitySource::profile);
  CHECK(d->sensitivity.value.core == 0.9);
  CHECK(d->sensitivity.value.uncore == 0.0);
  // Counters, where the machine part has no relation for them, are not used.
  ControllerParams no_relation = params(profile_only);
  no_relation.saturated_transaction_rate_per_s = 0;
  Controller n(no_relation);
  d = n.step(at(0.01, 4, 0, &counted));
  REQUIRE(d);
  CHECK(d->sensitivity.uncore_source == SensitivitySource::profile);
  // The threads' LLC misses stand in for the chip's accesses.
  counters::CounterSample misses;
  misses.elapsed_s = 0.01;
  misses.thread_or_add(0).llc_misses = 0.3 * kSaturatedRate * 0.01;
  misses.thread_or_add(1).llc_misses = 0.1 * kSaturatedRate * 0.01;
  Controller m(params(profile_only));
  d = m.step(at(0.01, 2, 0, &misses));
  REQUIRE(d);
  CHECK(d->sensitivity.uncore_source == SensitivitySource::counters);
  CHECK(d->sensitivity.value.uncore == Approx(0.4));
}

TEST_CASE("MinEnergy.Controller.TheUncoreFollowsTheWorkersThatRun", "[core][min-energy]") {
  SensitivityFallbacks memory_bound;
  memory_bound.settings_core = 0.07;
  memory_bound.settings_uncore = 0.73;
  Controller c(params(memory_bound));
  const auto working = c.step(at(0.01, 8, 0));
  REQUIRE(working);
  REQUIRE(working->pair.uncore_level < kLowestUncore);
  const auto none = c.step(at(0.02, 0, 8));
  REQUIRE(none);
  CHECK(none->pair.uncore_level == kLowestUncore);
  CHECK(none->pair.core_level == working->pair.core_level);  // the ceiling stays
  CHECK(none->reason == "no worker runs: the uncore at its lowest level");
  const auto again = c.step(at(0.03, 1, 7));
  REQUIRE(again);
  CHECK(again->pair.uncore_level ==
        choose_frequency_pair({0.07, 0.73}, c.params().model, 1, 7, c.params().max_time_loss).uncore_level);
  CHECK(again->pair.uncore_level < kLowestUncore);
  CHECK(again->reason == "workers run again");
}

TEST_CASE("MinEnergy.Controller.WaitingWorkersChangeThePairOnlyBeyondTheMargin", "[core][min-energy]") {
  // Who runs changes the energy's weights (busy cores against the shared
  // uncore); a change that saves less than switch_margin keeps the pair.
  SensitivityFallbacks mixed;
  mixed.settings_core = 0.5;
  mixed.settings_uncore = 0.3;
  ControllerParams p = params(mixed);
  Controller c(p);
  const auto first = c.step(at(0.01, 20, 0));
  REQUIRE(first);
  for (int working = 19; working >= 1; --working) {
    const auto d = c.step(at(0.01 * (21 - working), working, 20 - working));
    const FrequencyPairEstimate in_force = estimate_frequency_pair(
        {0.5, 0.3}, p.model, working, 20 - working, c.current()->pair.core_level, c.current()->pair.uncore_level);
    const FrequencyPairEstimate best = choose_frequency_pair({0.5, 0.3}, p.model, working, 20 - working);
    CHECK(in_force.time_factor <= 1.05 + 1e-12);
    CHECK(in_force.energy_ratio <= best.energy_ratio + p.switch_margin + 1e-12);
    if (d) CHECK(d->reason == "a pair that saves more energy within the bound");
  }
  CHECK_THROWS_AS(Controller([] {
                    ControllerParams bad = params();
                    bad.max_time_loss = -0.1;
                    return bad;
                  }()),
                  std::invalid_argument);
}

TEST_CASE("MinEnergy.Sensitivity.CounterRelation", "[core][min-energy]") {
  CHECK(uncore_share_from_rate(3.2745e9, kSaturatedRate) == Approx(0.5));
  CHECK(uncore_share_from_rate(2 * kSaturatedRate, kSaturatedRate) == 1.0);  // clamped
  CHECK(uncore_share_from_rate(1e9, 0) == 0.0);
  std::string why;
  counters::CounterSample none;
  CHECK_FALSE(memory_transaction_rate(none, why));
  CHECK(why == "no interval");
  none.elapsed_s = 0.5;
  CHECK_FALSE(memory_transaction_rate(none, why));
  CHECK(why.find("neither") != std::string::npos);
  CHECK(to_string(SensitivitySource::counters) == "counters");
  CHECK(to_string(SensitivitySource::settings) == "settings");
  CHECK(to_string(SensitivitySource::profile) == "profile");
}

TEST_CASE("MinEnergy.Controller.WorkersStartingIsARecordEvenWhereThePairStays", "[core][min-energy]") {
  // Compute-bound work: the lowest uncore level whether or not anyone runs,
  // but the record says when work began.
  SensitivityFallbacks compute_bound;
  compute_bound.settings_uncore = 0.0;
  Controller c(params(compute_bound));
  const auto none = c.step(at(0.001, 0, 0));
  REQUIRE(none);
  CHECK(none->pair.uncore_level == kLowestUncore);
  const auto runs = c.step(at(0.002, 2, 0));
  REQUIRE(runs);
  CHECK(runs->pair.uncore_level == kLowestUncore);
  CHECK(runs->working == 2);
  CHECK(runs->reason == "workers run again; the pair stands");
  CHECK_FALSE(c.step(at(0.003, 1, 1)));
}
