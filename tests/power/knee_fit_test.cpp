// The memory-bandwidth knee behind `rubato calibrate`'s uncore probe
// (power/calibrate/knee_fit.hpp): a curve of the time model's own form gives
// its knee and share back; a flat one gives no knee; a curve steeper than the
// form keeps its share at most 1; one that bends nowhere inside the range
// puts the knee at the fastest level.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "rubato/power/calibrate/knee_fit.hpp"

using rubato::KneePoint;

namespace {

const std::vector<double> kLevelsHz = {2.6e9, 2.2e9, 1.8e9, 1.4e9, 1.0e9};

// t(fu) / t(2.6 GHz) for a law h normalised at the fastest level.
template <class Law>
std::vector<KneePoint> curve(double share, Law h) {
  std::vector<KneePoint> points;
  for (double fu : kLevelsHz) points.push_back({fu, 1 + share * (h(fu) / h(kLevelsHz.front()) - 1)});
  return points;
}

}  // namespace

TEST_CASE("Power.KneeFit.RecoversTheModelsOwnForm") {
  const double knee = 1.9e9;
  const auto points = curve(0.6, [&](double fu) { return std::max(1.0, knee / fu); });
  const auto fit = rubato::fit_memory_bandwidth_knee(points, kLevelsHz.front());
  REQUIRE_FALSE(fit.flat);
  CHECK(fit.knee_hz == Approx(knee).margin(2e6));
  CHECK(fit.uncore_share == Approx(0.6).margin(0.005));
  CHECK(fit.residual_rms < 1e-3);
  CHECK_FALSE(fit.knee_at_top);
  REQUIRE(fit.fitted.size() == points.size());
  for (std::size_t i = 0; i < points.size(); ++i) CHECK(fit.fitted[i] == Approx(points[i].ratio).margin(2e-3));
  CHECK(fit.largest_slowdown == Approx(0.6 * (1.9 - 1)).margin(1e-9));
}

TEST_CASE("Power.KneeFit.AFlatCurveHasNoKnee") {
  // Noise of ±1 %, below the 3 % flat limit.
  const std::vector<KneePoint> points = {{2.6e9, 1.0}, {2.2e9, 1.01}, {1.8e9, 0.995}, {1.4e9, 1.008}, {1.0e9, 1.012}};
  const auto fit = rubato::fit_memory_bandwidth_knee(points, 2.6e9);
  CHECK(fit.flat);
  CHECK(fit.knee_hz == 0);
  CHECK(fit.uncore_share == 0);
  CHECK(fit.fitted.empty());
  CHECK(fit.largest_slowdown == Approx(0.012));
}

TEST_CASE("Power.KneeFit.ASteeperLawKeepsItsKneeWhereItBends") {
  // h = (f_k / fu)^1.5 below a 2 GHz knee, nearly all of the time uncore-bound:
  // the form's g = f_k / fu needs a slope beyond 1 to follow it; the knee stays
  // near the law's own (held at 1, the slope pushed the knee to 2.4 GHz).
  const auto points = curve(0.98, [](double fu) { return std::max(1.0, std::pow(2e9 / fu, 1.5)); });
  const auto fit = rubato::fit_memory_bandwidth_knee(points, kLevelsHz.front());
  REQUIRE_FALSE(fit.flat);
  CHECK(fit.uncore_share > 1.0);
  CHECK(fit.knee_hz == Approx(2e9).margin(150e6));
  CHECK(fit.residual_rms < 0.05);
}

TEST_CASE("Power.KneeFit.NoBendInsideTheRangeIsAKneeAtTheTop") {
  const auto points = curve(0.5, [](double fu) { return 1 / fu; });
  const auto fit = rubato::fit_memory_bandwidth_knee(points, kLevelsHz.front());
  REQUIRE_FALSE(fit.flat);
  CHECK(fit.knee_at_top);
  CHECK(fit.knee_hz == Approx(2.6e9));
  CHECK(fit.uncore_share == Approx(0.5).margin(0.005));
}

TEST_CASE("Power.KneeFit.TooFewPointsFitNothing") {
  const std::vector<KneePoint> one = {{2.6e9, 1.0}};
  CHECK(rubato::fit_memory_bandwidth_knee(one, 2.6e9).flat);
  const std::vector<KneePoint> two = {{2.6e9, 1.0}, {1.0e9, 1.5}};
  CHECK(rubato::fit_memory_bandwidth_knee(two, 0).flat);
}
