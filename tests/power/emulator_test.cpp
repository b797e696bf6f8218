#include <catch2/catch.hpp>

#include "rubato/power/emulated_frequency.hpp"
#include "rubato/power/emulator_accuracy.hpp"

using namespace rubato;

TEST_CASE("Power.Emulator.StretchFormula") {
  CHECK(emulated_stretch_ns(1000, 1.2e9, 2.4e9, 1.0) == 1000);  // f_max/2: d more
  CHECK(emulated_stretch_ns(1000, 1.2e9, 2.4e9, 0.5) == 500);
  CHECK(emulated_stretch_ns(1000, 1.6e9, 2.4e9, 1.0) == 500);
  CHECK(emulated_stretch_ns(1000, 2.4e9, 2.4e9, 1.0) == 0);  // at f_max: nothing
  CHECK(emulated_stretch_ns(1000, 3.0e9, 2.4e9, 1.0) == 0);  // above: never negative
  CHECK(emulated_stretch_ns(1000, 1.2e9, 2.4e9, 0.0) == 0);
}

TEST_CASE("Power.Emulator.AccountsDelayPerWorkerAndLevel") {
  EmulatedFrequency e(1.0, 2.0e9);
  DomainPlan plan;
  plan.cpus_of_domain = {{0}, {1}};
  plan.ladder = TempoLadder({2.0e9, 1.0e9});
  plan.max_workers = 2;
  std::string why;
  REQUIRE(e.save(plan, why));
  e.segment_end(1, 200'000, 1.0e9, 2.0e9);  // 200 us at half speed: 200 us burnt
  CHECK(e.added_busy_s(1, 1) == Approx(200e-6));
  CHECK(e.added_busy_s(1, 0) == 0);
  CHECK(e.added_busy_s(0, 1) == 0);
  e.segment_end(7, 1000, 1.0e9, 2.0e9);  // beyond max_workers: ignored, no crash
  e.domain_level_changed(0, 0, 2.0e9, 0);
  e.domain_level_changed(0, 1, 1.0e9, 0);
  e.domain_level_changed(0, 1, 1.0e9, 0);
  CHECK(e.applied_transitions(0) == 1);
}

// Behaviour, not accuracy: at half the top frequency the emulator really
// burns about the segment's own length again, so the emulated segments take
// about twice as long — not 1x (no burn) nor 3x (burnt twice). The bound is
// wide because this is wall time on a shared machine under CI's parallel
// load (it once missed 2x by 5.8 % there); the accuracy figure (within a few
// percent of the requested slowdown on a quiet machine) is a benchmark:
// benchmarks/emulator/emulator_accuracy.
TEST_CASE("Power.Emulator.HalfFrequencyTakesTwiceAsLong") {
  double best_error = 1e9;
  for (int attempt = 0; attempt < 5 && best_error > 0.05; ++attempt) {
    const auto m = measure_emulated_slowdown(1.2e9, 2.4e9, 1.0, 200'000, 30, 3);
    CHECK(m.requested == Approx(2.0));
    best_error = std::min(best_error, std::abs(m.achieved - m.requested) / m.requested);
  }
  CHECK(best_error <= 0.25);
}
