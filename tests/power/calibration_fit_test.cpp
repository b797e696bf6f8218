// The shared-intercept line fit behind `rubato calibrate` (power/calibration_fit.hpp).
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "rubato/power/calibrate/calibration_fit.hpp"

using rubato::FitPoint;
using rubato::SharedInterceptFit;

TEST_CASE("Power.CalibrationFit.RecoversLinesWithASharedIntercept") {
  // Two groups with slopes 3 and 0.5 from one intercept 7, x = 0..4, small
  // alternating noise.
  std::vector<FitPoint> points;
  for (int x = 0; x <= 4; ++x) {
    const double e = (x % 2 ? 0.01 : -0.01);
    points.push_back({static_cast<double>(x), 7 + 3.0 * x + e, 0, 0});
    if (x > 0) points.push_back({static_cast<double>(x), 7 + 0.5 * x - e, 1, 0});
  }
  SharedInterceptFit fit;
  std::string why;
  REQUIRE(rubato::fit_shared_intercept(points, 2, fit, why));
  CHECK(fit.intercept == Approx(7).margin(0.02));
  CHECK(fit.slope[0] == Approx(3).margin(0.01));
  CHECK(fit.slope[1] == Approx(0.5).margin(0.01));
  CHECK(fit.dof == points.size() - 3);
  CHECK(fit.slope_se[0] > 0);
  CHECK(fit.slope_se[0] < 0.05);
  CHECK(fit.predict(1, 2) == Approx(fit.intercept + 2 * fit.slope[1]));
}

TEST_CASE("Power.CalibrationFit.ExactFitTakesTheWithinMeasurementSpread") {
  // One line through exactly its points (no residual degrees of freedom):
  // the standard errors come from the points' own variance.
  const std::vector<FitPoint> points = {{0, 10, 0, 0.04}, {1, 12, 0, 0.04}};
  SharedInterceptFit fit;
  std::string why;
  REQUIRE(rubato::fit_shared_intercept(points, 1, fit, why));
  CHECK(fit.dof == 0);
  CHECK(fit.slope[0] == Approx(2));
  CHECK(fit.slope_se[0] == Approx(std::sqrt(0.04 * 2)));  // (XᵀX)⁻¹ slope entry is 2 here
}

TEST_CASE("Power.CalibrationFit.RefusesAGroupWithoutLoadedPoints") {
  const std::vector<FitPoint> points = {{0, 10, 0, 0}, {1, 12, 0, 0}, {0, 10, 1, 0}};
  SharedInterceptFit fit;
  std::string why;
  CHECK_FALSE(rubato::fit_shared_intercept(points, 2, fit, why));
  CHECK(why.find("group 1") != std::string::npos);
}
