// A new node, as a user meets it: `rubato calibrate` measures what eco needs
// (the uncore power ladder, the memory-bandwidth knee), then `rubato run
// --policies baseline,eco` on the calibrated profile, without counters and
// without sensitivities given. The node is a fake machine
// (programs/fake_machine.cpp) with cpufreq, an intel_uncore_frequency domain
// and a RAPL zone whose power follows a law chosen here (an uncore power
// U(fu) = 8 + 12 ((fu - 1 GHz) / 1.6 GHz)^1.5 W that no profile has); the
// program is programs/clock_following.cpp, whose tasks' speed follows the
// fake clocks by an uncore law that is not rubato's knee form. Only the
// process under test (and its children) is busy on the fake machine, so the
// tests hold beside other work; what they check is what the commands wrote
// and did (the ladder and knee recovered, the clocks moved and put back, the
// program's results unchanged, the bound not grossly broken), not speed or
// energy targets: those are benchmarks/closed_loop/fake_node.py's.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>
#include <nlohmann/json.hpp>

#include "fake_machine_fixture.hpp"
#include "reliability_paths.hpp"
#include "rubato/power/machine/profile.hpp"

namespace {

using namespace rubato::test;
namespace fs = std::filesystem;
using nlohmann::json;

// The node's law (only here and in the fake machine's arguments).
constexpr double kUncoreMinKhz = 1000000, kUncoreMaxKhz = 2600000;
constexpr double kUncoreBaseW = 8, kUncoreSpanW = 12, kUncoreExp = 1.5;
double uncore_w(double hz) {
  const double x = std::clamp((hz / 1e3 - kUncoreMinKhz) / (kUncoreMaxKhz - kUncoreMinKhz), 0.0, 1.0);
  return kUncoreBaseW + kUncoreSpanW * std::pow(x, kUncoreExp);
}

std::vector<std::string> node_args(const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"--freqs-khz",
                                   "2400000,2000000,1600000,1200000",
                                   "--core-w",
                                   "6",
                                   "--exponent",
                                   "2",
                                   "--uncore-khz",
                                   "1000000,2600000",
                                   "--uncore-power-w",
                                   "8,12,1.5",
                                   "--follow-descendants"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// The program's uncore law (clock_following --uncore-law): a knee at 2 GHz
// with exponent 1.5 below it, steeper than rubato's f_k / f_u.
constexpr const char* kProgramLaw = "power:knee=2GHz:gamma=1.5";

std::vector<std::string> probe_command(const std::string& root, const std::string& law) {
  return {kClockFollowing, "--root", root, "--uncore-law", law, "--probe"};
}

// Six rounds: when the probe was timed by its wall time, a test beside it
// (ctest -j2) slowed one level in all of three rounds once (2.1 GHz at 1.73
// of the fastest where the law says 1.0). Its CPU time now; six kept for margin.
ProgramResult calibrate(const FakeMachine& m, const std::string& out, const std::string& law, const TempDir& state,
                        const std::string& work, std::vector<std::string> options = {}, EnvList env = {}) {
  std::vector<std::string> argv = {kRubatoCli, "calibrate", "--seconds", "0.4", "--probe-rounds", "6", "--out", out};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back("--uncore-probe");
  argv.push_back("--");
  for (const auto& a : probe_command(m.root(), law)) argv.push_back(a);
  return run_on(m, argv, state.path(), work, 240, std::move(env));
}

// The CPU seconds the clock-following program spent in its tasks, from its
// stderr line (-1 when missing): the work's time at the clocks in force.
double task_cpu_s(const std::string& trial_dir) {
  const std::string text = read_file(trial_dir + "/stderr.txt");
  const std::size_t at = text.find("task_cpu_s ");
  return at == std::string::npos ? -1 : std::stod(text.substr(at + 11));
}

json report_of(const std::string& dir, const std::string& policy, int trial) {
  return json::parse(read_file(dir + "/w2/" + policy + "/trial-0" + std::to_string(trial) + "/report.r0.json"));
}

}  // namespace

TEST_CASE("Power.FakeNode.CalibrateMeasuresTheUncoreThenEcoUsesIt") {
  TempDir work(memory_backed_base()), state;
  FakeMachine machine(work.path(), node_args());
  const auto cpufreq_before = cpufreq_snapshot(machine.root());
  const auto uncore_before = uncore_snapshot(machine.root());
  const std::string profile_path = work.path() + "/node.json";
  const ProgramResult cal = calibrate(machine, profile_path, kProgramLaw, state, work.path() + "/cal");
  INFO(cal.out << cal.err);
  REQUIRE(cal.ok());
  std::string error;
  const auto profile = rubato::load_profile(profile_path, error);
  INFO(error);
  REQUIRE(profile);
  // The ladder: package power with every CPU idle at each uncore level is the law's U(fu).
  REQUIRE(profile->uncore_power.size() == 7);
  for (const auto& p : profile->uncore_power) {
    std::printf("fake node: uncore %4.0f MHz: law %6.2f W, calibrated %6.2f W\n", p.hz / 1e6, uncore_w(p.hz), p.w);
    CHECK(p.w == Approx(uncore_w(p.hz)).epsilon(0.08));
  }
  CHECK(profile->sources.at("uncore_power").rfind("measured: rubato calibrate, ", 0) == 0);
  // The knee where the program's law bends (2 GHz), though the law is not the model's form.
  REQUIRE(profile->memory_bandwidth_knee_hz);
  std::printf("fake node: knee %.0f MHz (the program's law: 2000 MHz, gamma 1.5)\n",
              *profile->memory_bandwidth_knee_hz / 1e6);
  CHECK(*profile->memory_bandwidth_knee_hz == Approx(2.0e9).margin(0.2e9));
  CHECK(profile->sources.at("memory_bandwidth_knee_hz").find("clock_following") != std::string::npos);
  CHECK(path_exists(work.path() + "/node.uncore-probe.csv"));
  // No counters on a fake node: the relation is named as not measured.
  CHECK(profile->not_measured.count("memory_transaction_rate_saturated_per_s"));
  CHECK(wait_until([&] { return uncore_snapshot(machine.root()) == uncore_before; }, 5));
  CHECK(wait_until([&] { return cpufreq_snapshot(machine.root()) == cpufreq_before; }, 5));
  CHECK(no_state_files(state.path()));

  // Then run, as the user would: the calibrated profile, the sysfs back-end,
  // workers pinned so that each one's clock is the one its tasks run at.
  const std::string runs = work.path() + "/runs";
  std::vector<std::string> argv = {kRubatoCli, "run", "--policies", "baseline,eco", "--trials", "3", "--skip", "1"};
  for (const char* a : {"--workers", "2", "--backend", "sysfs"}) argv.emplace_back(a);
  for (const std::string& a : {std::string("--profile"), profile_path, std::string("--out"), runs}) argv.push_back(a);
  for (const std::string& a : {std::string("--"), std::string(kClockFollowing), std::string("--root"), machine.root(),
                               std::string("--uncore-law"), std::string(kProgramLaw)})
    argv.push_back(a);
  for (const char* a : {"--phase", "compute:tasks=500:work=2ms", "--phase", "memory:tasks=500:work=2ms"})
    argv.emplace_back(a);
  const ProgramResult run =
      run_on(machine, argv, state.path(), work.path() + "/run", 300, {{"RUBATO_BINDING", "static"}});
  INFO(run.out << run.err);
  REQUIRE(run.ok());
  double baseline_s = 0, eco_s = 0, baseline_task_s = 0, eco_task_s = 0;
  for (int trial = 1; trial < 3; ++trial) {  // the first of each policy is a warm-up
    const json base = report_of(runs, "baseline", trial), eco = report_of(runs, "eco", trial);
    baseline_s += base.at("wall_s").get<double>();
    eco_s += eco.at("wall_s").get<double>();
    const std::string dir = runs + "/w2/";
    const std::string name = "/trial-0" + std::to_string(trial);
    const double base_task = task_cpu_s(dir + "baseline" + name), eco_task = task_cpu_s(dir + "eco" + name);
    REQUIRE(base_task > 0);
    REQUIRE(eco_task > 0);
    baseline_task_s += base_task;
    eco_task_s += eco_task;
    // The program computed the same under eco.
    CHECK(read_file(dir + "eco/trial-0" + std::to_string(trial) + "/stdout.txt") ==
          read_file(dir + "baseline/trial-0" + std::to_string(trial) + "/stdout.txt"));
    CHECK(eco.at("energy").at("source").get<std::string>() == "measured:rapl");
    const json& params = eco.at("policy").at("parameters");
    INFO("eco's notes: " << eco.at("notes").dump()
                         << "\nlearned: " << eco.value("learned_types", json::array()).dump());
    CHECK(params.at("min_energy_loop").get<std::string>() == "closed");
    CHECK(params.at("uncore_control").get<std::string>() == "intel_uncore_frequency");
    // eco's core ladder is every level the node offers, not HERMES's two: the
    // memory phase's best core clock (2.0 GHz here) lies between those.
    CHECK(eco.at("frequencies_hz").get<std::vector<double>>() == std::vector<double>{2.4e9, 2.0e9, 1.6e9, 1.2e9});
    // It measured: probes of the uncore, judged by the durations, energies
    // by the meter. Or, where the durations are too varied to judge (this
    // machine busy with other work: preempted tasks of 2 ms take 2 or 6), it
    // says so for every type and moves no uncore clock: what it must never
    // do is act on what it cannot check.
    int probes = 0, uncore_probes = 0, metered = 0;
    for (const json& p : eco.value("learning_probes", json::array())) {
      ++probes;  // those cut short before a verdict too: they set a level
      uncore_probes += p.at("lever").get<std::string>() == "uncore";
      metered += p.at("energy_source").get<std::string>() == "measured:rapl";
    }
    const int uncore_transitions = std::stoi(params.at("uncore_transitions").get<std::string>());
    std::printf("fake node: eco trial %d: %d probes, %d of the uncore, %d metered\n", trial, probes, uncore_probes,
                metered);
    // A probe is metered once it and its reference span three meter
    // intervals: one or two short probes (a busy machine) may not be.
    if (probes >= 3) CHECK(metered > 0);
    if (uncore_probes > 0) {
      CHECK(uncore_transitions > 0);
    } else {
      // Not probed, not moved: at most the one write that sets the
      // reference, and the uncore in force all the run long the fastest level.
      CHECK(uncore_transitions <= 1);
      REQUIRE(params.contains("min_energy_uncore_hz_time_weighted"));
      CHECK(std::stod(params.at("min_energy_uncore_hz_time_weighted").get<std::string>()) ==
            Approx(2.6e9).epsilon(0.001));
    }
    if (probes == 0) {  // nothing measured: every type at the reference, saying why
      REQUIRE_FALSE(eco.at("learned_types").empty());
      for (const json& t : eco.at("learned_types")) {
        CHECK(t.at("source").get<std::string>().find("at the reference") != std::string::npos);
        CHECK(t.at("core_level").get<int>() == 0);
      }
    }
    // It says what the profile lacks (no counters' relation here).
    bool says_rate = false;
    for (const json& n : eco.at("notes"))
      says_rate =
          says_rate || n.get<std::string>().find("memory_transaction_rate_saturated_per_s") != std::string::npos;
    CHECK(says_rate);
  }
  // Not a speed target (benchmarks/closed_loop/fake_node.py measures that):
  // only that eco never slows this program's work grossly (the open loop's
  // failure on such a node was +25..60 %). Judged by the CPU time in its
  // tasks, the work's time at the clocks in force: the wall time beside a
  // busy neighbour (ctest -j2) came out 1.24 of baseline once with three
  // probes in all: a trial's wall time is the neighbour's as much as eco's.
  std::printf(
      "fake node: eco %.3f s against baseline %.3f s of wall time, %.3f s against %.3f s in tasks (2 "
      "trials each)\n",
      eco_s, baseline_s, eco_task_s, baseline_task_s);
  CHECK(eco_task_s < 1.15 * baseline_task_s);
  CHECK(wait_until([&] { return uncore_snapshot(machine.root()) == uncore_before; }, 5));
  CHECK(wait_until([&] { return cpufreq_snapshot(machine.root()) == cpufreq_before; }, 5));
  CHECK(no_state_files(state.path()));
}

// Without RAPL the uncore can still be timed: the probe under two different
// laws gives two knees, each where its law bends; the power figures are the
// profile RUBATO_PROFILE names, each saying so, and what was not measured is
// named with why.
TEST_CASE("Power.FakeNode.TwoUncoreLawsGiveTwoKneesWithoutRapl") {
  TempDir work(memory_backed_base()), state;
  FakeMachine machine(work.path(), node_args({"--no-rapl"}));
  const auto uncore_before = uncore_snapshot(machine.root());
  const std::string haswell = std::string(kProfilesDir) + "/haswell-e5-2650v3.json";
  for (const auto& [law, knee_hz] :
       {std::pair{"power:knee=1.5GHz:gamma=1", 1.5e9}, {"power:knee=2.2GHz:gamma=1", 2.2e9}}) {
    const std::string out = work.path() + "/knee-" + std::to_string(std::lround(knee_hz / 1e8)) + ".json";
    const ProgramResult r =
        calibrate(machine, out, law, state, work.path() + "/cal", {}, {{"RUBATO_PROFILE", haswell}});
    INFO(law << "\n" << r.out << r.err);
    REQUIRE(r.ok());
    std::string error;
    const auto profile = rubato::load_profile(out, error);
    INFO(error);
    REQUIRE(profile);
    REQUIRE(profile->memory_bandwidth_knee_hz);
    std::printf("fake node without RAPL, law %s: knee %.0f MHz\n", law, *profile->memory_bandwidth_knee_hz / 1e6);
    CHECK(*profile->memory_bandwidth_knee_hz == Approx(knee_hz).margin(0.15e9));
    CHECK(profile->uncore_power.empty());
    for (const char* field : {"core_power", "uncore_w", "uncore_power"}) {
      REQUIRE(profile->not_measured.count(field));
      CHECK(profile->not_measured.at(field).find("RAPL") != std::string::npos);
    }
    CHECK(profile->sources.at("core_power.busy_w").find("haswell-e5-2650v3") != std::string::npos);
    CHECK(r.out.find("not measured: uncore_power: ") != std::string::npos);
  }
  CHECK(wait_until([&] { return uncore_snapshot(machine.root()) == uncore_before; }, 5));
  CHECK(no_state_files(state.path()));
}

TEST_CASE("Power.FakeNode.CalibrateRestoresTheUncoreAfterSigterm") {
  TempDir work(memory_backed_base()), state;
  FakeMachine machine(work.path(), node_args());
  const auto cpufreq_before = cpufreq_snapshot(machine.root());
  const auto uncore_before = uncore_snapshot(machine.root());
  // The uncore ladder alone (one core frequency): its first point pins the uncore.
  RunningProgram p(
      {kRubatoCli, "calibrate", "--seconds", "0.5", "--freqs", "2.4GHz,1.2GHz", "--out", work.path() + "/never.json"},
      env_for(machine.root(), state.path()), work.path() + "/run");
  machine.follow(p);
  const std::string min_file =
      machine.root() + "/devices/system/cpu/intel_uncore_frequency/package_00_die_00/min_freq_khz";
  REQUIRE(wait_until([&] { return std::atoll(read_file(min_file).c_str()) != kUncoreMinKhz; }, 60));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  p.signal(SIGTERM);
  const ProgramResult r = p.wait(30);
  INFO(r.err);
  CHECK(r.signal == SIGTERM);
  CHECK_FALSE(path_exists(work.path() + "/never.json"));
  CHECK(wait_until([&] { return uncore_snapshot(machine.root()) == uncore_before; }, 5));
  CHECK(wait_until([&] { return cpufreq_snapshot(machine.root()) == cpufreq_before; }, 5));
  CHECK(no_state_files(state.path()));
}
