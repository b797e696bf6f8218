// min-energy through a Session: the uncore lever on a fake
// intel_uncore_frequency tree (moved with the workers that run, given back
// at the end), the work's sensitivity driven by a recorded counter series
// (RUBATO_COUNTERS=replay:<file>), the power model's uncore over time, and
// the profile's counter relation.
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <thread>

#include "rubato/power/energy/power_model.hpp"
#include "rubato/power/machine/profile.hpp"
#include "rubato/power/session/operating_point.hpp"
#include "rubato/power/session/session.hpp"
#include "child_process.hpp"
#include "temp_dir.hpp"
#include "uncore_fake_tree.hpp"

using namespace rubato;

namespace {

Environment min_energy_env(const std::string& sysfs_root, const test::TempDir& state, const std::string& backend) {
  return {{"RUBATO_BACKEND", backend},
          {"RUBATO_SYSFS_ROOT", sysfs_root},
          {"RUBATO_STATE_DIR", state.path()},
          {"RUBATO_PROFILE_DIR", RUBATO_TEST_PROFILES_DIR},
          {"RUBATO_PROFILE", "haswell-e5-2650v3"},
          {"RUBATO_POLICY", "min-energy"},
          {"RUBATO_MIN_ENERGY_LOOP", "open"},  // the model's choice: these tests are of its lever and record
          {"RUBATO_REPORT", ""},
          {"RUBATO_MAX_WORKERS", "4"},
          {"RUBATO_MIN_DWELL", "0"},
          {"RUBATO_CONTROL_INTERVAL", "1ms"},
          {"RUBATO_COUNTERS", "none"}};
}

const FrequencyPairEvent* last_while_working(const Report& r) {
  const FrequencyPairEvent* last = nullptr;
  for (const FrequencyPairEvent& e : r.frequency_pairs)
    if (e.working > 0) last = &e;
  return last;
}

}  // namespace

TEST_CASE("Power.MinEnergy.SysfsUncoreFollowsTheWorkersAndIsGivenBack", "[power][min-energy]") {
  test::FakeSysfs fs;
  test::TempDir state;
  fs.add_cpus(2, 1, {2300000, 1800000, 1200000});
  test::add_uncore_domain(fs, {"package_00_die_00", 800000, 2400000, 1200000, 2000000, -1});
  const auto before = fs.snapshot();
  Environment env = min_energy_env(fs.root(), state, "sysfs");
  env.emplace_back("RUBATO_UNCORE_SENSITIVITY", "0.9");  // memory-bound: the uncore matters
  env.emplace_back("RUBATO_CORE_SENSITIVITY", "0.05");
  auto s = Session::open(env, {"test", "none", true});
  REQUIRE(s);
  REQUIRE(s->operating_point());
  // -1 while the driver rewrites a file (read between its truncation and its write).
  const auto khz = [&](const char* file) {
    const std::string text = fs.read(test::uncore_rel("package_00_die_00", file));
    return text.empty() ? -1L : std::stol(text);
  };
  s->worker_started(0);
  s->worker_started(1);
  // Working, memory-bound: min = max, far above the lowest level. The model's
  // pair is 2.1 GHz for one worker and 2.2 GHz for two; the controller may step
  // between the two starts, and then the switch margin rightly keeps 2.1 GHz
  // (still within the bound for two), so either is correct here.
  CHECK(test::wait_until([&] { return khz("min_freq_khz") == khz("max_freq_khz") && khz("max_freq_khz") >= 2100000; }));
  CHECK(test::wait_until([&] { return s->operating_point()->uncore_hz() >= 2.1e9; }));
  CHECK(s->operating_point()->sensitivity().uncore == Approx(0.9));
  // Nobody works: the shared uncore goes to its lowest level.
  s->engine().run_end(0);
  s->engine().run_end(1);
  CHECK(test::wait_until([&] { return khz("min_freq_khz") == 800000 && khz("max_freq_khz") == 800000; }));
  // Work again: back up (one worker now, the other waiting: the model's
  // pair for 1 + 1 is 2.1 GHz, far above the lowest level).
  s->engine().task_begin(1);
  CHECK(test::wait_until([&] { return khz("min_freq_khz") == khz("max_freq_khz") && khz("max_freq_khz") >= 2000000; }));
  const Report& r = s->finish();
  CHECK(fs.snapshot() == before);  // the limits before the run, byte for byte
  CHECK(r.backend == "sysfs");
  CHECK(r.policy == "min-energy");
  CHECK(r.parameters.at("uncore_control") == "intel_uncore_frequency");
  CHECK(std::stoul(r.parameters.at("uncore_transitions")) >= 3);
  CHECK(r.parameters.at("uncore_sensitivity_source") == "settings");
  REQUIRE_FALSE(r.frequency_pairs.empty());
  for (const FrequencyPairEvent& e : r.frequency_pairs) CHECK(e.model == "modeled:haswell-e5-2650v3");
  const FrequencyPairEvent* working = last_while_working(r);
  REQUIRE(working);
  CHECK(working->uncore_hz >= 2.0e9);
  CHECK(working->uncore_sensitivity == Approx(0.9));
  CHECK(working->time_factor <= 1.05 + 1e-9);
  CHECK(r.energy.source == "modeled:haswell-e5-2650v3");
}

TEST_CASE("Power.MinEnergy.ReplayedCountersDriveTheUncoreShare", "[power][min-energy]") {
  // b_u = rate / R_sat with R_sat = 6.549e9 /s (the profile's fit): 0.02 for
  // 100 intervals, then 0.75 for 100, then the recording ends and the
  // profile's shares (beta 1, b_u 0) take over.
  test::TempDir dir;
  const std::string series = dir.path() + "/series.csv";
  {
    std::ofstream out(series);
    out << "rubato-counters 1\ninterval,scope,elapsed_s,mem_accesses,llc_misses\n";
    for (int i = 0; i < 200; ++i) {
      const double share = i < 100 ? 0.02 : 0.75;
      out << i << ",chip,0.01," << share * 6.549e9 * 0.01 << ",\n";
      out << i << ",0,,,1000\n";  // worker 0 named: playing starts once it is tracked
    }
  }
  Environment env = min_energy_env(dir.path() + "/no-sysfs", dir, "dry-run");
  env.emplace_back("RUBATO_COUNTERS", "replay:" + series);  // the later value wins
  auto s = Session::open(env, {"test", "none", true});
  REQUIRE(s);
  s->worker_started(0);
  s->worker_started(1);
  const OperatingPoint& point = *s->operating_point();
  // Playing (b_u > 0: 200 intervals of 1 ms or more), then over (b_u 0 for good).
  CHECK(test::wait_until([&] { return point.sensitivity().uncore > 0.01f; }));
  CHECK(test::wait_until([&] { return point.sensitivity().uncore == 0.0f; }));
  const Report& r = s->finish();
  std::vector<const FrequencyPairEvent*> counted;
  for (const FrequencyPairEvent& e : r.frequency_pairs)
    if (e.uncore_sensitivity_source == "counters") counted.push_back(&e);
  REQUIRE(counted.size() >= 2);
  CHECK(counted.front()->uncore_sensitivity == Approx(0.02));
  REQUIRE(counted.front()->transaction_rate_per_s);
  CHECK(*counted.front()->transaction_rate_per_s == Approx(0.02 * 6.549e9));
  CHECK(counted.front()->core_sensitivity == Approx(0.98));  // the profile's beta 1, capped at 1 - b_u
  CHECK(counted.front()->uncore_hz == 1.2e9);                // compute-bound: the lowest uncore level
  CHECK(counted.back()->uncore_sensitivity == Approx(0.75));
  CHECK(counted.back()->uncore_hz >= 2.1e9);
  CHECK(r.frequency_pairs.back().uncore_sensitivity_source == "profile");
  CHECK(r.parameters.at("uncore_sensitivity_source") == "counters,profile");
  CHECK(r.parameters.at("uncore_control") == "modeled");
  bool ended_note = false;
  for (const auto& n : r.notes) ended_note = ended_note || n.find("recorded counter series ended") != std::string::npos;
  CHECK(ended_note);
}

TEST_CASE("Power.MinEnergy.EmulatedRunChargesTheUncoreAtItsLevels", "[power][min-energy]") {
  // With the emulator the modelled uncore levels are charged; a compute-bound
  // run at the lowest uncore costs less uncore energy than the constant.
  test::TempDir dir;
  Environment env = min_energy_env(dir.path() + "/no-sysfs", dir, "emulated");
  env.emplace_back("RUBATO_UNCORE_SENSITIVITY", "0");
  auto s = Session::open(env, {"test", "none", true});
  REQUIRE(s);
  s->worker_started(0);
  CHECK(test::wait_until([&] { return s->operating_point()->uncore_hz() == 1.2e9; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const Report& r = s->finish();
  const double uncore_j = r.external.at("energy_modeled_uncore_j");
  CHECK(uncore_j < 86.1 * r.wall_s);            // below the constant (the fastest level's power)
  CHECK(uncore_j >= 48.16 * r.wall_s * 0.999);  // and not below the lowest level's
  CHECK(std::stod(r.parameters.at("min_energy_uncore_hz_time_weighted")) < 3.0e9);
}

TEST_CASE("Power.MinEnergy.PowerModelChargesTheUncoreOverTime", "[power][min-energy]") {
  MachineProfile p;
  p.name = "x";
  p.frequencies_hz = {2e9};
  p.core_power = {{2e9, 10, 4}};
  p.uncore_w = 9;
  p.uncore_power = {{3e9, 30}, {1e9, 10}};
  const PowerModel m(p);
  RunActivity a;
  a.wall_s = 4;
  a.uncore_s_at_hz = {{3e9, 1}, {1e9, 2}};  // the remaining 1 s at uncore_hz 0: the constant
  CHECK(m.uncore_energy_j(a) == Approx(30 * 1 + 10 * 2 + 9 * 1));
  a.uncore_s_at_hz.push_back({2e9, 5});  // beyond the wall time: clamped
  CHECK(m.uncore_energy_j(a) == Approx(30 + 20 + 20 * 1));
  CHECK(m.energy_j(a) == Approx(m.uncore_energy_j(a)));  // no core
}

TEST_CASE("Power.Profile.SaturatedTransactionRate", "[power][min-energy]") {
  std::string error;
  const auto haswell = load_profile("haswell-e5-2650v3", {RUBATO_TEST_PROFILES_DIR}, error);
  REQUIRE(haswell);
  REQUIRE(haswell->memory_transaction_rate_saturated_per_s);
  CHECK(*haswell->memory_transaction_rate_saturated_per_s == Approx(6.549e9));
  const auto generic = load_profile("generic", {RUBATO_TEST_PROFILES_DIR}, error);
  REQUIRE(generic);
  CHECK_FALSE(generic->memory_transaction_rate_saturated_per_s);
}
