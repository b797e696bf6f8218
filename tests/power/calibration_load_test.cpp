// How `rubato calibrate` decides that its timing loop follows the frequency
// (power/calibration_load.hpp): every alternating pair must show it.
#include <catch2/catch.hpp>

#include <vector>

#include "rubato/power/calibrate/calibration_load.hpp"

using rubato::loop_follows_frequency;

TEST_CASE("Power.CalibrationLoad.LoopFollowsFrequencyInEveryPair") {
  const double fast = 2.4e9, slow = 1.2e9;  // the loop should run up to 2x faster
  // A real DVFS machine: every pair shows (nearly) the full ratio.
  CHECK(loop_follows_frequency({2.0e8, 1.98e8, 2.01e8}, {1.0e8, 1.01e8, 0.99e8}, fast, slow));
  // At least half the frequency ratio is enough (1.5x for a 2x ratio).
  CHECK(loop_follows_frequency({1.5e8}, {1.0e8}, fast, slow));
  // A machine whose speed never changes.
  CHECK_FALSE(loop_follows_frequency({1.0e8, 1.0e8, 1.0e8}, {1.0e8, 1.0e8, 1.0e8}, fast, slow));
  // The shared host seen in CI: one slow window made one pair look like a
  // frequency change; the other pairs do not.
  CHECK_FALSE(loop_follows_frequency({1.0e8, 1.0e8, 1.0e8}, {0.66e8, 1.0e8, 1.0e8}, fast, slow));
}

TEST_CASE("Power.CalibrationLoad.LoopFollowsFrequencyNeedsUsableInput") {
  CHECK_FALSE(loop_follows_frequency({}, {}, 2.4e9, 1.2e9));
  CHECK_FALSE(loop_follows_frequency({2.0e8}, {1.0e8, 1.0e8}, 2.4e9, 1.2e9));
  CHECK_FALSE(loop_follows_frequency({2.0e8}, {0.0}, 2.4e9, 1.2e9));
  CHECK_FALSE(loop_follows_frequency({2.0e8}, {-1.0}, 2.4e9, 1.2e9));   // loop could not pin
  CHECK_FALSE(loop_follows_frequency({2.0e8}, {1.0e8}, 1.2e9, 1.2e9));  // one frequency only
}
