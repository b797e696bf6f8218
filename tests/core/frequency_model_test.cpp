// The core + uncore model's power side and its checks
// (rubato/core/model/frequency_model.hpp), by hand.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <vector>

#include "rubato/core/model/frequency_model.hpp"

using namespace rubato;

namespace {

// Two core levels, three uncore levels, round numbers.
LevelPowers small_levels() {
  LevelPowers p;
  p.core_hz = {2e9, 1e9};
  p.busy_w = {10, 4};
  p.idle_w = {6, 2};
  p.uncore_hz = {3e9, 2e9, 1e9};
  p.uncore_w = {60, 40, 30};
  p.uncore_fixed_w = 60;
  return p;
}

}  // namespace

TEST_CASE("Core.FrequencyModel.PowersAtAndBetweenLevels", "[core][model]") {
  const FrequencyModel m(small_levels(), 2.5e9);
  CHECK(m.core_levels() == 2);
  CHECK(m.uncore_levels() == 3);
  CHECK(m.reference().core_hz == 2e9);
  CHECK(m.reference().uncore_hz == 3e9);
  CHECK(m.reference().memory_bandwidth_knee_hz == 2.5e9);
  CHECK(m.core_hz(1) == 1e9);
  CHECK(m.core_hz(7) == 1e9);  // past the slowest: the slowest
  CHECK(m.uncore_hz(9) == 1e9);
  CHECK(m.busy_w(2e9) == 10);
  CHECK(m.busy_w(1.5e9) == Approx(7));
  CHECK(m.idle_w(1.25e9) == Approx(3));
  CHECK(m.busy_w(5e9) == 10);  // clamped at the ends
  CHECK(m.idle_w(0.5e9) == 2);
  CHECK(m.uncore_w(2.5e9) == Approx(50));
  CHECK(m.uncore_w(0) == 60);  // no uncore frequency set: the fixed part
}

TEST_CASE("Core.FrequencyModel.SegmentPowerSumsBusyWaitingUncore", "[core][model]") {
  const FrequencyModel m(small_levels());
  // 3 busy at 2 GHz (30 W), 2 waiting at 1 GHz (4 W), uncore at 2 GHz (40 W).
  CHECK(m.segment_power_w(3, 2e9, 2, 1e9, 2e9) == Approx(74));
  const std::vector<double> busy = {2e9, 2e9, 1e9}, waiting = {1e9};
  // 10 + 10 + 4 busy, 2 waiting, 30 uncore.
  CHECK(m.segment_power_w(busy, waiting, 1e9) == Approx(56));
  CHECK(m.segment_power_w(-1, 2e9, -4, 1e9, 3e9) == Approx(60));  // negative counts: none
}

TEST_CASE("Core.FrequencyModel.NoUncoreLadder", "[core][model]") {
  LevelPowers p = small_levels();
  p.uncore_hz.clear();
  p.uncore_w.clear();
  p.uncore_fixed_w = 25;
  const FrequencyModel m(p, 2.5e9);
  CHECK(m.uncore_levels() == 0);
  CHECK(m.uncore_hz(0) == 0);
  CHECK(m.reference().uncore_hz == 0);
  CHECK(m.uncore_w(1e9) == 25);
  CHECK(m.time_factor({0.2, 0.8}, 2e9, 1e9) == 1.0);  // the uncore term stays 1
  CHECK(m.time_factor({0.5, 0.5}, 1e9, 0) == Approx(1.5));
}

TEST_CASE("Core.FrequencyModel.RejectsUnusableLevels", "[core][model]") {
  const auto rejects = [](LevelPowers p, const char* what, double knee = 0) {
    INFO(what);
    CHECK_THROWS_AS(FrequencyModel(std::move(p), knee), std::invalid_argument);
  };
  LevelPowers p = small_levels();
  p.core_hz.clear();
  rejects(p, "no core level");
  p = small_levels();
  p.core_hz = {1e9, 2e9};
  rejects(p, "ascending core levels");
  p = small_levels();
  p.busy_w.pop_back();
  rejects(p, "a busy power missing");
  p = small_levels();
  p.idle_w[0] = -1;
  rejects(p, "a negative power");
  p = small_levels();
  p.uncore_hz = {3e9, 3e9, 1e9};
  rejects(p, "repeated uncore levels");
  p = small_levels();
  p.uncore_w.push_back(1);
  rejects(p, "an uncore power too many");
  rejects(small_levels(), "a negative knee", -1);
  CHECK(level_powers_error(small_levels()).empty());
  CHECK(level_powers_error(LevelPowers{}).find("no core level") != std::string::npos);
}
