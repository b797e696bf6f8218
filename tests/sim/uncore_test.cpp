// The uncore in the simulator: work's time by the one core + uncore model
// (rubato/core/model/time_model.hpp), the uncore as a shared level over time
// with the live back-end's rate limit, energy at the level it had, and eco's
// periodic core + uncore decision, on the profile fitted to [Cuttlefish]'s
// machine (haswell-e5-2650v3: core 2.3-1.2 GHz, uncore 3.0-1.2 GHz, knee 2.195 GHz).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "rubato/power/energy/power_model.hpp"
#include "rubato/sim/sim_report.hpp"
#include "sim_fixture.hpp"

using namespace rubato;
using namespace rubato::sim;
using namespace rubato::sim::test;

namespace {

MachineProfile haswell() { return shipped_profile("haswell-e5-2650v3"); }

// Every other core level of the profile, and the slowest (a ladder holds at most 8).
const std::vector<double> kLadder = {2.3e9, 2.1e9, 1.9e9, 1.7e9, 1.5e9, 1.3e9, 1.2e9};

Program sensitive_program(const std::string& spec, const WorkSensitivity& s) {
  std::string error;
  auto d = parse_dag_spec(spec, error);
  if (!d) throw std::invalid_argument(error);
  return build_synthetic(*d, 2.3e9, s);
}

// `core_share`: the b_c the simulated user gives min-energy (RUBATO_CORE_SENSITIVITY);
// b_u it reads from the simulated memory-transaction counters. The open loop:
// these tests are of the model's choice (tests/sim/closed_loop_test.cpp: the loop's).
SimOptions haswell_options(std::size_t workers, const std::string& policy_text, double core_share = -1) {
  SimOptions o;
  o.profile = haswell();
  o.workers = workers;
  o.engine.policy = policy(policy_text);
  o.engine.ladder = TempoLadder(kLadder);
  if (core_share >= 0) o.min_energy.core_sensitivity = core_share;
  o.min_energy.closed_loop = false;
  return o;
}

SimResult run(const SimOptions& o, const Program& prog) {
  Simulation s(o, prog);
  return s.run();
}

// Three parallel regions of 2000 one-millisecond iterations: 100 ms each on 20 workers.
const std::string kRegions = "loop:2000:grain=1:iter=1ms:jitter=0.1:rep=3";

}  // namespace

TEST_CASE("Sim.Uncore.ZeroUncoreShareIsTheBetaModelBitForBit", "[sim][uncore]") {
  // b_u = 0: the uncore changes nothing in time, wherever it is pinned, and
  // the run is the β model's, through either way of giving the work's shares.
  const std::string spec = "fib:14:work=2us,loop:4000:grain=8:iter=3us:jitter=0.3";
  const Program beta_only = program(spec, 2.3e9, 0.4);
  const Program with_zero = sensitive_program(spec + ":uncore=0", {0.4, 0.0});
  for (const char* pol : {"baseline", "hermes", "slack", "hermes+guarded"}) {
    INFO(pol);
    const SimOptions o = haswell_options(8, pol);
    SimOptions pinned_low = o;
    pinned_low.uncore_hz = 1.2e9;  // far below the knee: memory-bound work would take 1.8x as long
    const SimResult a = run(o, beta_only);
    const SimResult b = run(pinned_low, with_zero);
    CHECK(a.makespan_ns == b.makespan_ns);
    CHECK(a.core_energy_j == b.core_energy_j);
    REQUIRE(a.core_time.size() == b.core_time.size());
    for (std::size_t w = 0; w < a.core_time.size(); ++w) {
      REQUIRE(a.core_time[w].size() == b.core_time[w].size());
      for (std::size_t i = 0; i < a.core_time[w].size(); ++i)
        CHECK(a.core_time[w][i].busy_ns == b.core_time[w][i].busy_ns);
    }
    CHECK(b.uncore_energy_j < a.uncore_energy_j);  // only the uncore's power moved
  }
  // One worker at 1.2 GHz, β 0.3: each 10 us task takes 10 (0.3 x 2.3/1.2 + 0.7) us,
  // the segment's end rounded to the nanosecond as the simulator always did.
  const double stretch = 0.3 * 2.3e9 / 1.2e9 + (1 - 0.3);
  const auto segment_ns = static_cast<std::uint64_t>(std::llround(10e3 / (1.0 / stretch)));
  SimOptions fixed = haswell_options(1, "fixed:1.2GHz");
  fixed.uncore_hz = 1.2e9;
  const SimResult r = run(fixed, sensitive_program("chain:20:work=10us", {0.3, 0.0}));
  CHECK(r.makespan_ns == 20 * segment_ns);
}

TEST_CASE("Sim.Uncore.TheUncoreShareSlowsBelowTheKnee", "[sim][uncore]") {
  // b_u = 0.5 on one worker at 2.3 GHz: above the knee (2.195 GHz) the uncore
  // costs no time; at 1.2 GHz the uncore part takes 2.195/1.2 as long.
  const Program prog = sensitive_program("chain:10:work=100us", {0.2, 0.5});
  SimOptions o = haswell_options(1, "baseline");
  o.uncore_hz = 2.2e9;
  CHECK(run(o, prog).makespan_ns == 1'000'000);
  o.uncore_hz = 1.2e9;
  const double factor = 1 + 0.5 * (2.195e9 / 1.2e9 - 1);
  // Each of the 10 segment ends is rounded to the nanosecond.
  CHECK(static_cast<double>(run(o, prog).makespan_ns) == Approx(1e6 * factor).margin(10));
}

TEST_CASE("Sim.Uncore.MemoryBoundEcoLowersTheCoreAndKeepsTheUncoreHigh", "[sim][uncore][eco]") {
  // HPCCG's fitted shares (benchmarks/cuttlefish/programs.json): b_c 0.07, b_u 0.73.
  const Program prog = sensitive_program(kRegions, {0.07, 0.73});
  const SimResult base = run(haswell_options(20, "baseline"), prog);
  const SimResult eco = run(haswell_options(20, "eco", 0.07), prog);
  REQUIRE(eco.frequency_pairs.size() >= 1);
  CHECK(eco.frequency_pairs.back().uncore_sensitivity_source == "counters");
  CHECK(eco.frequency_pairs.back().uncore_sensitivity == Approx(0.73).margin(0.05));
  CHECK(eco.core_ceiling_mean_hz < 1.8e9);  // the core lowered (the chooser's pair: 1.5 GHz)
  CHECK(eco.uncore_mean_hz > 2.15e9);       // the uncore kept at the knee or above
  CHECK(eco.energy_j < 0.8 * base.energy_j);
  CHECK(static_cast<double>(eco.makespan_ns) <= 1.05 * static_cast<double>(base.makespan_ns));
  CHECK(eco.uncore_transitions >= 1);
  CHECK(base.uncore_transitions == 0);
}

TEST_CASE("Sim.Uncore.ComputeBoundEcoLowersTheUncore", "[sim][uncore][eco]") {
  // UTS's fitted shares: b_c 0.96, b_u 0.02.
  const Program prog = sensitive_program(kRegions, {0.96, 0.02});
  const SimResult base = run(haswell_options(20, "baseline"), prog);
  const SimResult eco = run(haswell_options(20, "eco", 0.96), prog);
  CHECK(eco.uncore_mean_hz < 1.5e9);
  CHECK(eco.core_ceiling_mean_hz > 2.25e9);  // the core kept at its fastest
  CHECK(eco.energy_j < 0.9 * base.energy_j);
  CHECK(static_cast<double>(eco.makespan_ns) <= 1.05 * static_cast<double>(base.makespan_ns));
}

TEST_CASE("Sim.Uncore.BaselineEnergyIsTheProfilesPowerTimesTime", "[sim][uncore][energy]") {
  // One worker, 50 tasks of 1 ms at 2.3 GHz: 50 ms busy. The profile: busy_w(2.3 GHz)
  // 2.802 W, uncore_power at 3.0 GHz 86.1 W (its uncore_w too): (2.802 + 86.1) x 0.05 s.
  const Program prog = sensitive_program("chain:50:work=1ms", {0.07, 0.73});
  SimOptions o = haswell_options(1, "baseline");
  o.uncore_hz = 3.0e9;
  const SimResult pinned = run(o, prog);
  CHECK(pinned.makespan_ns == 50'000'000);
  CHECK(pinned.energy_j == Approx(4.4451).epsilon(1e-12));
  CHECK(pinned.uncore_energy_j == Approx(86.1 * 0.05).epsilon(1e-12));
  REQUIRE(pinned.uncore_time.size() == 1);
  CHECK(pinned.uncore_time[0] == std::pair<double, std::uint64_t>{3.0e9, 50'000'000});
  o.uncore_hz = 0;  // not set: the same, charged the profile's uncore_w
  CHECK(run(o, prog).energy_j == Approx(4.4451).epsilon(1e-12));
}

TEST_CASE("Sim.Uncore.ChangesHonourTheRateLimit", "[sim][uncore][eco]") {
  // Memory-bound and compute-bound regions of 10 ms each, alternating: eco
  // wants the uncore at ~2.2 GHz, then ~1.2 GHz, every 10 ms; with a 25 ms
  // uncore transition latency no two changes are closer than 25 ms, and a
  // request held by the limit is carried out when it falls due.
  const std::string spec =
      "loop:200:grain=1:iter=1ms:beta=0.07:uncore=0.73,loop:200:grain=1:iter=1ms:beta=0.96:uncore=0.02";
  std::string with_reps;
  for (int i = 0; i < 8; ++i) with_reps += (i ? "," : "") + spec;
  const Program prog = sensitive_program(with_reps, {1.0, 0.0});
  SimOptions o = haswell_options(20, "eco");
  o.control_interval_s = 1e-3;
  o.profile.uncore_transition_latency_s = 0.025;
  const SimResult limited = run(o, prog);
  REQUIRE(limited.uncore_changes.size() >= 3);
  CHECK(limited.uncore_transitions == limited.uncore_changes.size());
  bool held_then_carried_out = false;
  for (std::size_t i = 1; i < limited.uncore_changes.size(); ++i) {
    const std::uint64_t gap = limited.uncore_changes[i].first - limited.uncore_changes[i - 1].first;
    CHECK(gap >= 25'000'000);
    held_then_carried_out |= gap == 25'000'000;
  }
  CHECK(held_then_carried_out);
  o.profile.uncore_transition_latency_s = 0.001;
  CHECK(run(o, prog).uncore_transitions > limited.uncore_transitions);
}

TEST_CASE("Sim.Uncore.BaselineSlackAndAPinLeaveTheUncoreAlone", "[sim][uncore]") {
  const Program prog = sensitive_program(kRegions, {0.96, 0.02});
  for (const char* pol : {"baseline", "slack", "hermes"}) {
    INFO(pol);
    const SimResult r = run(haswell_options(20, pol), prog);
    CHECK(r.uncore_transitions == 0);
    REQUIRE(r.uncore_time.size() == 1);
    CHECK(r.uncore_time[0].first == 0);  // not set: the fastest level for time, uncore_w for power
    CHECK(r.uncore_mean_hz == 3.0e9);
    CHECK(r.min_energy_steps == 0);
  }
  SimOptions o = haswell_options(20, "eco");
  o.uncore_hz = 2.0e9;  // pinned: eco chooses the core only
  const SimResult r = run(o, prog);
  CHECK(r.min_energy_steps > 0);
  CHECK(r.uncore_transitions == 0);
  REQUIRE(r.uncore_time.size() == 1);
  CHECK(r.uncore_time[0].first == 2.0e9);
  // eco without its min-energy part leaves the uncore alone; min-energy with slack alone moves it.
  CHECK(run(haswell_options(20, "hermes+guarded+slack", 0.96), prog).min_energy_steps == 0);
  CHECK(run(haswell_options(20, "slack+min-energy", 0.96), prog).uncore_transitions >= 1);
}

TEST_CASE("Sim.Uncore.ReportShowsTheUncoreAndTheCeiling", "[sim][uncore][report]") {
  const Program prog = sensitive_program(kRegions, {0.07, 0.73});
  Simulation s(haswell_options(20, "eco", 0.07), prog);
  const SimResult& r = s.run();
  const Report rep = make_report(s, kRegions, "test");
  CHECK(rep.energy.source == "simulated:haswell-e5-2650v3");
  CHECK(rep.external.at("sim.uncore_mean_hz") == r.uncore_mean_hz);
  CHECK(rep.external.at("sim.uncore_transitions") == static_cast<double>(r.uncore_transitions));
  CHECK(rep.external.at("sim.core_ceiling_mean_hz") == r.core_ceiling_mean_hz);
  CHECK(rep.external.count("sim.uncore_at_3GHz_s") == 1);
  CHECK(rep.parameters.at("uncore").rfind("min-energy", 0) == 0);
  REQUIRE(rep.frequency_pairs.size() == r.frequency_pairs.size());
  CHECK(rep.frequency_pairs.front().model == "simulated:haswell-e5-2650v3");
  CHECK(rep.parameters.at("uncore_min_interval_s") == "0.01");  // the profile gives none: the 10 ms default
  double at_levels = 0;
  for (const auto& [name, value] : rep.external)
    if (name.rfind("sim.uncore_at_", 0) == 0) at_levels += value;
  CHECK(at_levels == Approx(rep.wall_s).epsilon(1e-9));
}

TEST_CASE("Sim.Uncore.SpecKeysAndTheirLimits", "[sim][uncore][dag]") {
  std::string error;
  const auto ok = parse_dag_spec("loop:10:beta=0.4:uncore=0.5", error);
  REQUIRE(ok);
  CHECK(*ok->phases[0].uncore == 0.5);
  CHECK_FALSE(parse_dag_spec("loop:10:beta=0.8:uncore=0.3", error));
  CHECK(error.find("beta + uncore") != std::string::npos);
  // The default b_c (the profile's 1.0) leaves no room for uncore=0.3: the phase is named.
  const auto spec = parse_dag_spec("fib:5,loop:10:uncore=0.3", error);
  REQUIRE(spec);
  try {
    build_synthetic(*spec, 2.3e9, WorkSensitivity{1.0, 0.0});
    FAIL("expected std::invalid_argument");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("'loop:10:uncore=0.3'") != std::string::npos);
  }
}
