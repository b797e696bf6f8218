// The settings min-energy reads: the time-loss bound and the work's two
// sensitivities, with RUBATO_BETA as the older name of the core share.
#include <catch2/catch.hpp>

#include "rubato/core/config/settings.hpp"

using namespace rubato;

TEST_CASE("Settings.MinEnergy.TimeLossAsAFractionOrAPercentage", "[core][settings][min-energy]") {
  Diagnostics diag;
  CHECK(load_settings({}, diag).max_time_loss == 0.05);
  CHECK(load_settings({{"RUBATO_MAX_TIME_LOSS", "0.1"}}, diag).max_time_loss == 0.1);
  CHECK(load_settings({{"RUBATO_MAX_TIME_LOSS", "2.5%"}}, diag).max_time_loss == Approx(0.025));
  CHECK(load_settings({{"RUBATO_MAX_TIME_LOSS", "0"}}, diag).max_time_loss == 0);
  CHECK(diag.lines.empty());
  for (const char* bad : {"150%", "1.5", "-1%", "%", "5 %x"}) {
    Diagnostics d;
    INFO(bad);
    CHECK(load_settings({{"RUBATO_MAX_TIME_LOSS", bad}}, d).max_time_loss == 0.05);
    REQUIRE(d.lines.size() == 1);
    CHECK(d.lines[0].find("RUBATO_MAX_TIME_LOSS") != std::string::npos);
    CHECK(d.lines[0].find("0.05 or 5%") != std::string::npos);
  }
}

TEST_CASE("Settings.MinEnergy.SensitivitiesAndTheBetaAlias", "[core][settings][min-energy]") {
  Diagnostics diag;
  Settings s = load_settings({{"RUBATO_CORE_SENSITIVITY", "0.3"}, {"RUBATO_UNCORE_SENSITIVITY", "0.6"}}, diag);
  CHECK(diag.lines.empty());
  CHECK(s.core_sensitivity == 0.3);
  CHECK(s.beta == 0.3);  // the emulator and the guard read it as beta
  CHECK(s.uncore_sensitivity == 0.6);
  s = load_settings({{"RUBATO_BETA", "0.4"}}, diag);
  CHECK(diag.lines.empty());
  CHECK(s.beta == 0.4);
  CHECK(s.core_sensitivity == -1);
  // Both names, two values: one line, the newer name wins.
  s = load_settings({{"RUBATO_BETA", "0.4"}, {"RUBATO_CORE_SENSITIVITY", "0.2"}}, diag);
  REQUIRE(diag.lines.size() == 1);
  CHECK(diag.lines[0].find("RUBATO_CORE_SENSITIVITY") != std::string::npos);
  CHECK(diag.lines[0].find("RUBATO_BETA") != std::string::npos);
  CHECK(s.beta == 0.2);
  // Two shares of one time above 1: one line, the uncore share left to counters or the profile.
  Diagnostics over;
  s = load_settings({{"RUBATO_CORE_SENSITIVITY", "0.7"}, {"RUBATO_UNCORE_SENSITIVITY", "0.5"}}, over);
  REQUIRE(over.lines.size() == 1);
  CHECK(over.lines[0].find("RUBATO_UNCORE_SENSITIVITY") != std::string::npos);
  CHECK(over.lines[0].find("accepted: ") != std::string::npos);
  CHECK(s.uncore_sensitivity == -1);
  CHECK(s.beta == 0.7);
}
