// The core + uncore model of a machine profile
// (rubato/power/energy/profile_frequency_model.hpp): the same powers as the
// profile's power model, the uncore ladder of its uncore_power table, and
// the decisions on Cuttlefish's machine.
#include <catch2/catch.hpp>

#include "rubato/core/model/frequency_pair.hpp"
#include "rubato/power/energy/power_model.hpp"
#include "rubato/power/energy/profile_frequency_model.hpp"
#include "rubato/power/machine/profile.hpp"

using namespace rubato;

namespace {

MachineProfile load(const std::string& name) {
  std::string error;
  auto p = load_profile(name, {RUBATO_TEST_PROFILES_DIR}, error);
  INFO(error);
  REQUIRE(p);
  return *p;
}

}  // namespace

TEST_CASE("Power.FrequencyModel.HaswellLevelsAreThePowerModels") {
  const MachineProfile profile = load("haswell-e5-2650v3");
  const PowerModel power(profile);
  const LevelPowers levels = level_powers(profile);
  CHECK(levels.core_hz == profile.frequencies_hz);
  REQUIRE(levels.uncore_hz.size() == 19);  // 3.0 ... 1.2 GHz in 100 MHz steps
  CHECK(levels.uncore_hz.front() == 3.0e9);
  CHECK(levels.uncore_hz.back() == 1.2e9);
  for (std::size_t i = 0; i < levels.core_hz.size(); ++i) {
    CHECK(levels.busy_w[i] == power.busy_w(levels.core_hz[i]));
    CHECK(levels.idle_w[i] == power.idle_w(levels.core_hz[i]));
  }
  for (std::size_t i = 0; i < levels.uncore_hz.size(); ++i)
    CHECK(levels.uncore_w[i] == power.uncore_w(levels.uncore_hz[i]));
  CHECK(levels.uncore_fixed_w == profile.uncore_w);
  const FrequencyModel model = frequency_model(profile);
  CHECK(model.reference().memory_bandwidth_knee_hz == Approx(2.195e9));
  // Between levels the model interpolates as the power model does.
  for (double hz : {2.25e9, 1.75e9, 1.23e9}) CHECK(model.busy_w(hz) == Approx(power.busy_w(hz)));
  for (double hz : {2.95e9, 2.5e9, 1.61e9}) CHECK(model.uncore_w(hz) == Approx(power.uncore_w(hz)));
  CHECK(default_sensitivity(profile).core == profile.beta);
  CHECK(default_sensitivity(profile).uncore == 0.0);
}

TEST_CASE("Power.FrequencyModel.NoUncoreTableNoUncoreLadder") {
  const MachineProfile profile = load("opteron-6378");
  const FrequencyModel model = frequency_model(profile);
  CHECK(model.uncore_levels() == 0);
  CHECK(model.powers().uncore_fixed_w == profile.uncore_w);
  CHECK(model.reference().memory_bandwidth_knee_hz == 0);
  // The β model, unchanged: only the core moves.
  const auto chosen = choose_frequency_pair(default_sensitivity(profile), model, 32, 0);
  CHECK(chosen.uncore_hz == 0);
  CHECK(chosen.time_factor <= 1.05);
}

TEST_CASE("Power.FrequencyModel.CuttlefishMachineDecisions") {
  const FrequencyModel model = frequency_model(load("haswell-e5-2650v3"));
  // benchmarks/cuttlefish/programs.json: HPCCG memory-bound, UTS compute-bound.
  const auto hpccg = choose_frequency_pair({0.0724, 0.7285}, model, 20, 0);
  CHECK(hpccg.core_hz <= 1.5e9);
  CHECK(hpccg.uncore_hz >= 2.195e9);
  CHECK(hpccg.time_factor <= 1.05);
  const auto uts = choose_frequency_pair({0.9647, 0.022}, model, 20, 0);
  CHECK(uts.core_hz == 2.3e9);
  CHECK(uts.uncore_hz == 1.2e9);
}
