// [EFS] §3.2 Eqs. 17–19 (bus utilisation from counters) and §4.1 Eq. 20 (predictor).
#include <catch2/catch.hpp>

#include <cmath>

#include "rubato/core/efs/efs_counters.hpp"
#include "rubato/core/efs/efs_model.hpp"
#include "rubato/core/efs/efs_predictor.hpp"

using namespace rubato::efs;

TEST_CASE("Efs.Counters.Eq17QuotedBandwidth", "[core][efs]") {
  // 1.333 GT/s on a 64-bit channel, 64-byte lines: the paper's 166,625,000 accesses/s.
  CHECK(bus_accesses_per_s(1.333e9, 64, 64) == Approx(166625000.0));
  CHECK(bus_accesses_per_s(1e9, 64, 0) == 0);
}

TEST_CASE("Efs.Counters.Eq18Eq19", "[core][efs]") {
  BusCounts c;
  c.interval_s = 0.01;
  c.chip_accesses = 1.2e6;  // of which 0.2e6 writes, 1.0e6 reads
  c.chip_writes = 0.2e6;
  c.core_reads = {0.6e6, 0.4e6};
  const double mu = 150e6;  // §5.1
  const BusUtilisation u = measure_bus(c, mu);
  CHECK(u.total == Approx(1.2e6 / 1.5e6));
  // core 0 had 60 % of the reads, so it is charged 60 % of the writes
  CHECK(u.per_core[0] == Approx((0.6e6 + 0.2e6 * 0.6) / 1.5e6));
  CHECK(u.per_core[0] + u.per_core[1] == Approx(u.total));  // the reads cover the chip's
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(u.solo[i] == Approx(solo_utilisation(u.per_core[i], u.total)));
    CHECK(u.solo[i] > u.per_core[i]);  // contention hid part of each thread's demand
  }
  CHECK(core_utilisation(1000, 500, 500, mu, 0.01) == Approx(1000 / 1.5e6));  // no chip reads: no write share
  CHECK(chip_utilisation(100, mu, 0) == 0);
}

TEST_CASE("Efs.Predictor.Eq20Window", "[core][efs]") {
  SoloBandwidthPredictor p = SoloBandwidthPredictor::for_cores(4);  // B0 = 25 %, t0 = 1 ms
  CHECK(p.prediction() == Approx(0.25));
  CHECK(p.window_s() == Approx(1e-3));
  // A quarter-window interval moves a quarter of the way.
  CHECK(p.update(0.85, 0.25e-3) == Approx(0.25 + 0.25 * (0.85 - 0.25)));
  // An interval of at least t0 replaces the prediction.
  CHECK(p.update(0.1, 1e-3) == Approx(0.1));
  CHECK(p.update(0.7, 5e-3) == Approx(0.7));
  // An empty interval carries no information.
  CHECK(p.update(0.0, 0.0) == Approx(0.7));
  // Repeated short intervals approach the new level geometrically.
  SoloBandwidthPredictor q(1e-3, 0.2);
  for (int i = 0; i < 10; ++i) q.update(0.6, 0.1e-3);
  CHECK(q.prediction() == Approx(0.6 - 0.4 * std::pow(0.9, 10)));
}

TEST_CASE("Efs.Predictor.LongerWindowSmoothsASpike", "[core][efs]") {
  // §4.1: low t0 reacts quickly, high t0 smooths out short-lived changes.
  SoloBandwidthPredictor quick(0.2e-3, 0.2), steady(5e-3, 0.2);
  for (SoloBandwidthPredictor* p : {&quick, &steady}) {
    p->update(0.2, 0.1e-3);
    p->update(0.9, 0.1e-3);  // a one-interval burst
  }
  CHECK(quick.prediction() > 0.5);
  CHECK(steady.prediction() < 0.22);
  CHECK(steady.prediction() > 0.2);
}
