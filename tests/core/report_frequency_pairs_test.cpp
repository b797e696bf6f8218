// min-energy's record in the report: its decisions and the guard's critical
// raises round-trip through the JSON, and reports without them still read.
#include <catch2/catch.hpp>

#include "rubato/core/io/report.hpp"

using namespace rubato;

TEST_CASE("Report.Json.FrequencyPairsRoundTrip", "[core][report][min-energy]") {
  Report r;
  r.policy = "eco";
  r.wall_s = 1;
  WorkerReport w;
  w.critical_raises = 3;
  r.workers.push_back(w);
  FrequencyPairEvent e;
  e.t_s = 0.25;
  e.core_sensitivity = 0.07;
  e.uncore_sensitivity = 0.73;
  e.core_sensitivity_source = "settings";
  e.uncore_sensitivity_source = "counters";
  e.transaction_rate_per_s = 4.8e9;
  e.working = 18;
  e.waiting = 2;
  e.core_level = 1;
  e.core_hz = 1.4e9;
  e.uncore_level = 8;
  e.uncore_hz = 2.2e9;
  e.time_factor = 1.03;
  e.energy_ratio = 0.82;
  e.model = "modeled:haswell-e5-2650v3";
  e.reason = "the first interval";
  r.frequency_pairs.push_back(e);
  FrequencyPairEvent uncounted = e;
  uncounted.transaction_rate_per_s.reset();
  r.frequency_pairs.push_back(uncounted);
  std::string error;
  const auto back = report_from_json(to_json(r), error);
  REQUIRE(back);
  REQUIRE(back->frequency_pairs.size() == 2);
  const FrequencyPairEvent& b = back->frequency_pairs[0];
  CHECK(b.t_s == 0.25);
  CHECK(b.uncore_sensitivity == 0.73);
  CHECK(b.uncore_sensitivity_source == "counters");
  REQUIRE(b.transaction_rate_per_s);
  CHECK(*b.transaction_rate_per_s == 4.8e9);
  CHECK(b.uncore_level == 8);
  CHECK(b.uncore_hz == 2.2e9);
  CHECK(b.energy_ratio == 0.82);
  CHECK(b.model == "modeled:haswell-e5-2650v3");
  CHECK_FALSE(back->frequency_pairs[1].transaction_rate_per_s);
  CHECK(back->workers.at(0).critical_raises == 3);
  // An older report, without the field.
  const auto old = report_from_json(R"({"schema_version":1,"policy":{"name":"hermes"},"wall_s":1})", error);
  REQUIRE(old);
  CHECK(old->frequency_pairs.empty());
}
