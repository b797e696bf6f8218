// Plant and beliefs apart (sim/src/plant.hpp, sensors.hpp): the simulated
// machine's truth times the work and draws the power; the policies believe
// SimOptions::profile and read only the sensors — counters present, absent,
// biased or noisy, a meter or none.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "../../sim/src/sensors.hpp"
#include "rubato/sim/sim_report.hpp"
#include "sim_fixture.hpp"

using namespace rubato;
using namespace rubato::sim;
using namespace rubato::sim::test;

namespace {

MachineProfile haswell() { return shipped_profile("haswell-e5-2650v3"); }

// The same machine with another power law: every power doubled and the
// uncore's table made flat (a plant no profile describes).
MachineProfile doubled_power(MachineProfile p) {
  p.name = "plant-doubled";
  for (CorePowerPoint& c : p.core_power) {
    c.busy_w *= 2;
    c.idle_w *= 2;
  }
  p.uncore_w *= 2;
  for (UncorePowerPoint& u : p.uncore_power) u.w = p.uncore_w;
  return p;
}

Program memory_bound(double b_c, double b_u, const std::string& extra = "") {
  std::string error;
  auto d = parse_dag_spec(
      "loop:400:grain=1:iter=1ms:beta=" + std::to_string(b_c) + ":uncore=" + std::to_string(b_u) + extra, error);
  if (!d) throw std::invalid_argument(error);
  return build_synthetic(*d, 2.3e9, WorkSensitivity{b_c, b_u});
}

SimOptions haswell_options(const std::string& policy_text) {
  SimOptions o;
  o.profile = haswell();
  o.workers = 4;
  o.engine.policy = policy(policy_text);
  o.engine.ladder = TempoLadder({2.3e9, 1.7e9, 1.2e9});
  return o;
}

SimResult run(const SimOptions& o, const Program& prog) {
  Simulation s(o, prog);
  return s.run();
}

}  // namespace

TEST_CASE("Sim.Plant.EnergyComesFromThePlantTimeFromItsLaw", "[sim][plant]") {
  const Program prog = memory_bound(0.5, 0.0);
  SimOptions model = haswell_options("baseline");
  SimOptions other = model;
  other.plant.profile = doubled_power(model.profile);
  const SimResult a = run(model, prog);
  const SimResult b = run(other, prog);
  CHECK(a.makespan_ns == b.makespan_ns);  // no uncore share: the power law does not change time
  CHECK(b.energy_j == Approx(2 * a.energy_j).epsilon(1e-9));
  Simulation s(other, prog);
  s.run();
  const Report rep = make_report(s, "w", "c");
  CHECK(rep.energy.source == "simulated:plant-doubled");
  CHECK(rep.profile == "haswell-e5-2650v3");  // what the policies believed
  CHECK(rep.parameters.at("plant") == "plant-doubled");
}

TEST_CASE("Sim.Plant.UncoreExponentShapesOnlyThePlantsTime", "[sim][plant]") {
  // Pinned far below the knee: g(1.2 GHz) = 2.195 / 1.2 = 1.83; the plant with
  // γ = 2 stretches the uncore part by g² instead.
  const Program prog = memory_bound(0.1, 0.6);
  SimOptions o = haswell_options("baseline");
  o.uncore_hz = 1.2e9;
  SimOptions squared = o;
  squared.plant.uncore_time_exponent = 2.0;
  SimOptions fast = o;
  fast.uncore_hz = 3.0e9;
  const double t_fast = static_cast<double>(run(fast, prog).makespan_ns);
  const double t_model = static_cast<double>(run(o, prog).makespan_ns);
  const double t_squared = static_cast<double>(run(squared, prog).makespan_ns);
  const double g = 2.195 / 1.2;
  CHECK(t_model / t_fast == Approx(1 + 0.6 * (g - 1)).epsilon(0.01));
  CHECK(t_squared / t_fast == Approx(1 + 0.6 * (g * g - 1)).epsilon(0.01));
}

TEST_CASE("Sim.Plant.ControllersDoNotReadThePlant", "[sim][plant]") {
  // Without counters eco's open-loop decisions rest on its beliefs alone:
  // the same on two plants that draw different power and slow differently.
  SimOptions o = haswell_options("eco");
  o.sensors.counters = false;
  o.min_energy.closed_loop = false;
  const Program prog = memory_bound(0.2, 0.5);
  SimOptions other = o;
  other.plant.profile = doubled_power(o.profile);
  other.plant.uncore_time_exponent = 1.7;
  const SimResult a = run(o, prog);
  const SimResult b = run(other, prog);
  REQUIRE(!a.frequency_pairs.empty());
  REQUIRE(a.frequency_pairs.size() == b.frequency_pairs.size());
  for (std::size_t i = 0; i < a.frequency_pairs.size(); ++i) {
    CHECK(a.frequency_pairs[i].uncore_level == b.frequency_pairs[i].uncore_level);
    CHECK(a.frequency_pairs[i].core_level == b.frequency_pairs[i].core_level);
    CHECK(a.frequency_pairs[i].uncore_sensitivity_source == "profile");
  }
  CHECK(a.makespan_ns != b.makespan_ns);  // the plants really differ
}

TEST_CASE("Sim.Plant.CountersPresentAbsentBiased", "[sim][plant]") {
  // haswell has the counter relation b_u = R / R_sat (R over all 20 cores):
  // exact counters read back the plant's b_u × 4/20 on 4 busy workers,
  // biased ones that × bias, none leaves the profile's b_u = 0.
  const Program prog = memory_bound(0.1, 0.4);
  auto first_reading = [&](const SensorOptions& sensors) {
    SimOptions o = haswell_options("eco");
    o.sensors = sensors;
    o.min_energy.closed_loop = false;  // the open loop reports the counters' reading in each decision
    const SimResult r = run(o, prog);
    REQUIRE(!r.frequency_pairs.empty());
    return r.frequency_pairs.front();  // decided on the first interval's counts
  };
  SensorOptions exact;
  const FrequencyPairEvent e = first_reading(exact);
  CHECK(e.uncore_sensitivity_source == "counters");
  CHECK(e.uncore_sensitivity == Approx(0.4 * 4 / 20).epsilon(0.02));
  SensorOptions biased;
  biased.counter_bias = 1.5;
  const FrequencyPairEvent b = first_reading(biased);
  CHECK(b.uncore_sensitivity_source == "counters");
  CHECK(b.uncore_sensitivity == Approx(std::min(1.0, 1.5 * e.uncore_sensitivity)).epsilon(1e-6));
  SensorOptions none;
  none.counters = false;
  const FrequencyPairEvent n = first_reading(none);
  CHECK(n.uncore_sensitivity_source == "profile");
  CHECK(n.uncore_sensitivity == 0.0);
}

TEST_CASE("Sim.Plant.SensorsAreDeterministicAndNoisyAsAsked", "[sim][plant]") {
  SensorOptions o;
  o.meter_noise = 0.1;
  o.counter_noise = 0.2;
  detail::MeterSensor m1(o, 7), m2(o, 7), exact(SensorOptions{}, 7);
  double spread = 0;
  double plant_j = 0;
  for (int i = 0; i < 200; ++i) {
    plant_j += 10;
    const double a = *m1.read(plant_j), b = *m2.read(plant_j);
    CHECK(a == b);  // same seed, same readings
    CHECK(*exact.read(plant_j) == Approx(10));
    spread += (a - 10) * (a - 10);
  }
  CHECK(std::sqrt(spread / 200) == Approx(1.0).epsilon(0.3));  // 10 % of 10 J
  SensorOptions off;
  off.meter = false;
  off.counters = false;
  detail::MeterSensor absent(off, 1);
  CHECK_FALSE(absent.read(5).has_value());
  detail::CounterSensor no_counters(off, 1e-3, 1);
  no_counters.add_work(1e6, 0.5);
  CHECK_FALSE(no_counters.present());
  CHECK_FALSE(no_counters.read(0.01).has_value());
  detail::CounterSensor counters(SensorOptions{}, 1e-3, 1);
  counters.add_work(1e6, 0.5);
  const auto sample = counters.read(0.01);
  REQUIRE(sample.has_value());
  CHECK(*sample->chip.mem_accesses == Approx(500));
  CHECK(*counters.read(0.01)->chip.mem_accesses == 0);  // the tally starts over
}
