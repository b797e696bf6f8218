// [EFS] §3.1, Eqs. 9–14: the collision model, throughput, power, energy per work.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "rubato/core/efs/efs_model.hpp"

using namespace rubato::efs;

namespace {

// n identical threads with solo b: Eq. 10 with U = n·u is one quadratic,
// a(1 − n)u² + (a − n)u + 1 = 0 (a = 1 − 1/b); the physical root is the smaller one.
double identical_threads_u(double b, int n) {
  const double a = 1 - 1 / b;
  if (n == 1) return b;
  const double qa = a * (1 - n), qb = a - n;
  return (-qb - std::sqrt(qb * qb - 4 * qa)) / (2 * qa);
}

}  // namespace

TEST_CASE("Efs.Model.Eq9AndEq10AreInverses", "[core][efs]") {
  std::mt19937 rng(20160301);
  std::uniform_real_distribution<double> solo(0.0, 0.99);
  std::uniform_int_distribution<int> count(1, 12);
  int sets = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<double> b(static_cast<std::size_t>(count(rng)));
    for (double& x : b) x = solo(rng);
    const UtilisationPrediction p = predict_utilisations(b);
    REQUIRE(p.ok());
    CHECK(p.total < 1);
    // Eq. 10 → Eq. 9: the measured (u_i, U) give back each solo utilisation.
    for (std::size_t i = 0; i < b.size(); ++i) {
      CHECK(std::fabs(solo_utilisation(p.u[i], p.total) - b[i]) < 1e-9);
      CHECK(p.u[i] <= b[i] + 1e-12);  // interference never speeds a thread up
    }
    // Eq. 9 → Eq. 10: solo estimates from those measurements predict the same utilisations.
    std::vector<double> estimated;
    for (double u : p.u) estimated.push_back(solo_utilisation(u, p.total));
    const UtilisationPrediction again = predict_utilisations(estimated);
    REQUIRE(again.ok());
    for (std::size_t i = 0; i < b.size(); ++i) CHECK(std::fabs(again.u[i] - p.u[i]) < 1e-9);
    ++sets;
  }
  CHECK(sets == 3000);
}

TEST_CASE("Efs.Model.Fig4FourIdenticalThreads", "[core][efs]") {
  // Fig. 4 (solid curve): throughput of four identical threads approaches 4 at low
  // solo utilisation and 1 at high.
  double previous = 5;
  for (int step = 1; step <= 99; ++step) {
    const double b = step / 100.0;
    const std::vector<double> solo(4, b);
    const UtilisationPrediction p = predict_utilisations(solo);
    REQUIRE(p.ok());
    for (double u : p.u) CHECK(u == Approx(identical_threads_u(b, 4)).epsilon(1e-9));
    const double t = throughput(solo, p.u);
    CHECK(t < previous);  // more bus per thread, less parallelism
    previous = t;
  }
  const auto thr = [](double b) {
    const std::vector<double> solo(4, b);
    return throughput(solo, predict_utilisations(solo).u);
  };
  CHECK(thr(0.01) > 3.95);
  CHECK(thr(0.99) < 1.05);
  CHECK(thr(0.99) > 1.0);
  // §3.1's example: four threads taking twice their solo time (slowdowns 0.5)
  // give a throughput of 2; without interference, 4.
  const std::vector<double> solo(4, 0.5);
  CHECK(throughput(solo, std::vector<double>(4, 0.25)) == Approx(2.0));
  CHECK(throughput(solo, solo) == Approx(4.0));
  CHECK(throughput(solo, solo, 0.5) == Approx(2.0));  // α converts to work per unit time
}

TEST_CASE("Efs.Model.PaperIterationBudget", "[core][efs]") {
  // §4.1: the kernel stops after at most 4 Newton iterations. From our starting
  // point Fig. 4's sets are within 1e-9 after 4.
  for (int step = 1; step <= 9; ++step) {
    const std::vector<double> solo(4, step / 10.0);
    const UtilisationPrediction p = predict_utilisations(solo, {4, 1e-9});
    CHECK(p.ok());
    CHECK(p.iterations <= 4);
  }
}

TEST_CASE("Efs.Model.OneThreadRunsAtItsSoloUtilisation", "[core][efs]") {
  for (double b : {0.05, 0.5, 0.95}) {
    const std::vector<double> solo{b};
    const UtilisationPrediction p = predict_utilisations(solo);
    REQUIRE(p.ok());
    CHECK(p.u[0] == Approx(b).epsilon(1e-12));
    CHECK(slowdowns(solo, p.u)[0] == Approx(1.0));
  }
}

TEST_CASE("Efs.Model.ThreadsThatNeverUseTheBus", "[core][efs]") {
  const std::vector<double> solo{0.0, 0.6, 0.0};
  const UtilisationPrediction p = predict_utilisations(solo);
  REQUIRE(p.ok());
  CHECK(p.u[0] == 0);
  CHECK(p.u[2] == 0);
  CHECK(p.u[1] == Approx(0.6));
  CHECK(throughput(solo, p.u) == Approx(3.0));
  CHECK(predict_utilisations(std::vector<double>{}).ok());
}

TEST_CASE("Efs.Model.NonConvergenceIsReported", "[core][efs]") {
  const std::vector<double> solo{0.9, 0.7, 0.5, 0.3};
  const UtilisationPrediction p = predict_utilisations(solo, {1, 1e-14});
  CHECK(p.status == SolveStatus::not_converged);
  CHECK_FALSE(p.ok());
  CHECK(p.iterations == 1);
  CHECK(p.residual > 1e-14);
  CHECK(p.residual == Approx(eq10_residual(solo, p.u)));
  REQUIRE(p.u.size() == 4);  // the last iterate is there for inspection
  // Given enough iterations the same set converges.
  CHECK(predict_utilisations(solo).ok());
}

TEST_CASE("Efs.Model.OutsideTheModelIsInvalid", "[core][efs]") {
  for (double bad : {1.0, 1.5, -0.1, std::numeric_limits<double>::quiet_NaN()}) {
    const std::vector<double> solo{0.3, bad};
    CHECK(predict_utilisations(solo).status == SolveStatus::invalid_input);
  }
  CHECK(clamp_solo(1.0) == kMaxSoloUtilisation);
  CHECK(clamp_solo(-0.2) == 0);
  CHECK(predict_utilisations(std::vector<double>{clamp_solo(1.0), clamp_solo(1.0)}).ok());
}

TEST_CASE("Efs.Model.Eq9MeasurementEdges", "[core][efs]") {
  CHECK(solo_utilisation(0.3, 0.3) == Approx(0.3));  // alone: measured = solo
  CHECK(solo_utilisation(0.0, 0.8) == 0);
  CHECK(solo_utilisation(0.2, 1.0) == Approx(1.0));  // saturated bus
  CHECK(solo_utilisation(0.2, 1.3) == Approx(1.0));  // noise above saturation
  CHECK(solo_utilisation(0.4, 0.3) == Approx(0.4));  // U below u_i: taken as u_i
  // Fig. 6: a 57 % thread next to an interferer. The additive model (solo = measured)
  // falls further behind as interference grows; Eq. 9 recovers 0.57.
  double previous_measured = 1;
  for (double other : {0.1, 0.3, 0.5, 0.7, 0.9}) {
    const std::vector<double> solo{0.57, other};
    const UtilisationPrediction p = predict_utilisations(solo);
    REQUIRE(p.ok());
    CHECK(p.u[0] < previous_measured);
    previous_measured = p.u[0];
    CHECK(solo_utilisation(p.u[0], p.total) == Approx(0.57).epsilon(1e-9));
  }
  CHECK(previous_measured < 0.4);
}

TEST_CASE("Efs.Model.PowerTableEq13", "[core][efs]") {
  const PowerTable i5({26.6, 22.6, 12, 12.3, 12.3});  // [EFS] Eq. 25
  CHECK(i5.max_active_cores() == 4);
  CHECK(*i5.power_w(0) == Approx(26.6));
  CHECK(*i5.power_w(1) == Approx(26.6 + 22.6));
  CHECK(*i5.power_w(4) == Approx(26.6 + 22.6 + 12 + 12.3 + 12.3));
  CHECK_FALSE(i5.power_w(5));
  CHECK_FALSE(i5.power_w(-1));
  CHECK_THROWS_AS(PowerTable({}), std::invalid_argument);
  CHECK_THROWS_AS(PowerTable({10, -1}), std::invalid_argument);
}

TEST_CASE("Efs.Model.EnergyPerWorkEq14", "[core][efs]") {
  CHECK(energy_per_work(80, 2) == Approx(40));
  CHECK(std::isinf(energy_per_work(26.6, 0)));
  const PowerTable i5({26.6, 22.6, 12, 12.3, 12.3});
  const std::vector<double> solo(4, 0.5);
  const SetPrediction s = predict_set(solo, i5);
  REQUIRE(s.utilisation.ok());
  REQUIRE(s.power_w);
  REQUIRE(s.energy_per_work);
  CHECK(*s.energy_per_work == Approx(*s.power_w / s.throughput));
  CHECK(s.slowdowns.size() == 4);
  CHECK_FALSE(predict_set(std::vector<double>(5, 0.1), i5).power_w);  // five threads, four cores
}
