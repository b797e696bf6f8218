#include <catch2/catch.hpp>

#include "rubato/core/tempo/workload_thresholds.hpp"

using namespace rubato;

TEST_CASE("Workload.Thresholds.PaperExampleMean15K2", "[core][workload]") {
  // [HERMES] §3.2: mean deque size 15, 2 thresholds -> 10 and 20.
  std::array<double, kMaxThresholds> t{};
  thresholds_from_mean(15, 2, t);
  CHECK(t[0] == Approx(10));
  CHECK(t[1] == Approx(20));
  // fastest if no less than 20, medium between 10 and 20, slowest otherwise
  CHECK(band_of(20, t, 2) == 2);
  CHECK(band_of(19, t, 2) == 1);
  CHECK(band_of(10, t, 2) == 1);
  CHECK(band_of(9, t, 2) == 0);
}

TEST_CASE("Workload.Thresholds.GeneralK", "[core][workload]") {
  std::array<double, kMaxThresholds> t{};
  thresholds_from_mean(8, 3, t);  // 2*8/4 * i = 4, 8, 12
  CHECK(t[0] == Approx(4));
  CHECK(t[1] == Approx(8));
  CHECK(t[2] == Approx(12));
}

TEST_CASE("Workload.Sampler.MeanOfEachWindow", "[core][workload]") {
  DepthSampler s(4);
  double mean = -1;
  CHECK_FALSE(s.add(1, mean));
  CHECK_FALSE(s.add(2, mean));
  CHECK_FALSE(s.add(3, mean));
  REQUIRE(s.add(6, mean));
  CHECK(mean == Approx(3));
  // a new window starts afresh
  CHECK_FALSE(s.add(10, mean));
  CHECK_FALSE(s.add(10, mean));
  CHECK_FALSE(s.add(10, mean));
  REQUIRE(s.add(10, mean));
  CHECK(mean == Approx(10));
}

TEST_CASE("Workload.Thresholds.AnEmptyDequeReachesNone", "[core][workload]") {
  // L = 0 (no queued work over a whole window): every threshold is 0, and an
  // empty deque is still below the first (Fig. 4(b)); one task reaches them all.
  std::array<double, kMaxThresholds> t{};
  thresholds_from_mean(0, 2, t);
  CHECK(t[0] == 0.0);
  CHECK(t[1] == 0.0);
  CHECK(band_of(0, t, 2) == 0);
  CHECK(band_of(1, t, 2) == 2);
  CHECK_FALSE(reaches_threshold(0, 0));
  CHECK(reaches_threshold(1, 0));
  CHECK(reaches_threshold(3, 3));
  CHECK_FALSE(reaches_threshold(2.9, 3));
}
