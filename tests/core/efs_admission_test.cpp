// [EFS] §3.1 Eqs. 15–16: the admission threshold for one more thread.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "rubato/core/efs/efs_admission.hpp"

using namespace rubato::efs;

namespace {
// [EFS] Eq. 25: the i5-2500's P0..P4 (P0: no core active; P_k: the k-th active core).
PowerTable i5_2500() { return PowerTable({26.6, 22.6, 12, 12.3, 12.3}); }
}  // namespace

TEST_CASE("Efs.Admission.RejectsFourthMaxBandwidthThread", "[core][efs]") {
  // Three instances of a synthetic that misses on nearly every access (§5.2; b = 1
  // itself never leaves the bus and is outside the model) run on three cores.
  // A fourth like them is not worth P4; a compute-bound thread is.
  const double max_bandwidth = 0.99, compute_bound = 0.01;
  const std::vector<double> running(3, max_bandwidth);
  const AdmissionThreshold t = admission_threshold(running, i5_2500());
  REQUIRE(t.status == AdmissionStatus::threshold_found);
  REQUIRE(t.max_solo);
  CHECK(t.residual < 1e-12);
  CHECK(t.current_power_w == Approx(26.6 + 22.6 + 12 + 12.3));
  CHECK(t.new_power_w == Approx(26.6 + 22.6 + 12 + 12.3 + 12.3));
  CHECK(t.target_throughput == Approx(t.current_throughput * t.new_power_w / t.current_power_w));
  CHECK(t.admits(max_bandwidth) == false);
  CHECK(t.admits(compute_bound) == true);
  // Eq. 15 evaluated directly agrees.
  CHECK_FALSE(check_admission(running, max_bandwidth, i5_2500()).admit);
  CHECK(check_admission(running, compute_bound, i5_2500()).admit);
  // With nothing else running the same thread is worth its core.
  CHECK(admission_threshold(std::vector<double>{}, i5_2500()).admits(max_bandwidth) == true);
}

TEST_CASE("Efs.Admission.ThresholdIsTheBreakEven", "[core][efs]") {
  std::mt19937 rng(25);
  std::uniform_real_distribution<double> solo(0.05, 0.95);
  std::uniform_int_distribution<int> count(1, 3);
  int found = 0;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> running(static_cast<std::size_t>(count(rng)));
    for (double& b : running) b = solo(rng);
    const AdmissionThreshold t = admission_threshold(running, i5_2500());
    REQUIRE(t.status != AdmissionStatus::not_converged);
    if (t.status != AdmissionStatus::threshold_found) continue;
    ++found;
    const double b = *t.max_solo;
    // At the threshold the energy per work is unchanged (Eq. 15 with equality) ...
    const AdmissionCheck at = check_admission(running, b, i5_2500());
    REQUIRE(at.energy_new);
    CHECK(*at.energy_new == Approx(*at.energy_current).epsilon(1e-9));
    // ... below it a newcomer lowers it, above it raises it.
    if (b > 1e-3) CHECK(check_admission(running, b - 1e-3, i5_2500()).admit);
    if (b < 0.998) CHECK_FALSE(check_admission(running, b + 1e-3, i5_2500()).admit);
  }
  CHECK(found > 100);
}

TEST_CASE("Efs.Admission.NewThroughputFallsWithCandidateBandwidth", "[core][efs]") {
  // What makes a single threshold meaningful: Eq. 12 of the new set decreases in b_n.
  const std::vector<double> running{0.6, 0.3};
  double previous = 1e9;
  for (int step = 0; step <= 99; ++step) {
    std::vector<double> with = running;
    with.push_back(step / 100.0);
    const UtilisationPrediction p = predict_utilisations(with);
    REQUIRE(p.ok());
    const double t = throughput(with, p.u);
    CHECK(t < previous);
    previous = t;
  }
}

TEST_CASE("Efs.Admission.EdgeCases", "[core][efs]") {
  SECTION("nothing runs: anything is better") {
    const AdmissionThreshold t = admission_threshold(std::vector<double>{}, i5_2500());
    CHECK(t.status == AdmissionStatus::admits_any);
    CHECK(t.admits(kMaxSoloUtilisation) == true);
  }
  SECTION("every core busy") {
    const AdmissionThreshold t = admission_threshold(std::vector<double>(4, 0.1), i5_2500());
    CHECK(t.status == AdmissionStatus::no_free_core);
    CHECK_FALSE(t.admits(0.0));
    CHECK(t.current_throughput > 3.5);  // the running set is still described
  }
  SECTION("a core that costs more than a whole thread's work") {
    const AdmissionThreshold t = admission_threshold(std::vector<double>{0.1}, PowerTable({10, 10, 1000}));
    CHECK(t.status == AdmissionStatus::admits_none);
    CHECK(t.admits(0.0) == false);
  }
  SECTION("a free core") {
    const AdmissionThreshold t = admission_threshold(std::vector<double>{0.5}, PowerTable({50, 1, 0}));
    CHECK(t.status == AdmissionStatus::admits_any);
    CHECK(t.admits(0.99) == true);
  }
  SECTION("threads that never use the bus count at slowdown 1") {
    const std::vector<double> running{0.0, 0.8};
    const AdmissionThreshold t = admission_threshold(running, i5_2500());
    REQUIRE(t.status == AdmissionStatus::threshold_found);
    REQUIRE(t.u.size() == 3);
    CHECK(t.u[0] == 0);
    const AdmissionCheck at = check_admission(running, *t.max_solo, i5_2500());
    CHECK(*at.energy_new == Approx(*at.energy_current).epsilon(1e-9));
  }
  SECTION("invalid") {
    CHECK(admission_threshold(std::vector<double>{1.2}, i5_2500()).status == AdmissionStatus::invalid_input);
  }
}

TEST_CASE("Efs.Admission.NonConvergenceIsReported", "[core][efs]") {
  const std::vector<double> running{0.7, 0.4};
  const AdmissionThreshold t = admission_threshold(running, i5_2500(), 1.0, {1, 1e-14});
  CHECK(t.status == AdmissionStatus::not_converged);
  CHECK_FALSE(t.max_solo);
  CHECK_FALSE(t.admits(0.1));
  CHECK(t.residual > 1e-14);
}
