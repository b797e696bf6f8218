// What min-energy says a profile lacks (power/session/min_energy_setup.hpp):
// one note per missing field, with the calibration's reason where the
// profile gives one, and what the loop does instead.
#include <catch2/catch.hpp>

#include "rubato/power/session/min_energy_setup.hpp"

using rubato::MachineProfile;
using rubato::min_energy_profile_gaps;

TEST_CASE("Power.MinEnergyProfileGaps.NamesWhatIsMissingAndWhatItDoesInstead") {
  MachineProfile p;
  p.name = "calibrated-node";
  p.not_measured["uncore_power"] = "no intel_uncore_frequency domain";
  SECTION("no uncore lever: nothing to say") { CHECK(min_energy_profile_gaps(p, false, true, true).empty()); }
  SECTION("no ladder, no knee; closed loop without a meter keeps the uncore at its fastest") {
    const auto lines = min_energy_profile_gaps(p, true, true, false);
    REQUIRE(lines.size() == 2);
    CHECK(lines[0].find("profile calibrated-node has no uncore_power ladder") != std::string::npos);
    CHECK(lines[0].find("not measured: no intel_uncore_frequency domain") != std::string::npos);
    CHECK(lines[0].find("stays at its fastest level") != std::string::npos);
    CHECK(lines[1].find("memory_bandwidth_knee_hz (not in the profile)") != std::string::npos);
  }
  SECTION("with a meter, the meter decides") {
    const auto lines = min_energy_profile_gaps(p, true, true, true);
    REQUIRE_FALSE(lines.empty());
    CHECK(lines[0].find("only where the meter measures less energy") != std::string::npos);
  }
  SECTION("a profile with both says nothing") {
    p.uncore_power = {{2.6e9, 20}, {1.0e9, 8}};
    p.memory_bandwidth_knee_hz = 1.9e9;
    CHECK(min_energy_profile_gaps(p, true, true, false).empty());
  }
}
