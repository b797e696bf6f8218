// `rubato calibrate` end to end: against a fake machine
// (programs/fake_machine.cpp) whose RAPL counters follow a power law the test
// chooses, calibration recovers the law; the cpufreq tree is put back byte
// for byte, also after SIGTERM mid-run; --beta gives a finite β with its
// interval; and where RAPL or cpufreq is missing it refuses in one line and
// changes nothing. The fake machine's power and /proc/stat follow the
// calibrating process alone (its pid, handed over once it started), so other
// programs on this machine never enter the verdict; a phantom neighbour of
// the fake machine's own (--neighbour) is what the busy-machine cases see:
// points measured beside it are measured again once it leaves, and where it
// stays calibration writes nothing, or with --allow-noisy a profile marked
// unreliable. The fake tree lives on tmpfs (memory_backed_base).
#include <catch2/catch.hpp>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <nlohmann/json.hpp>

#include "fake_machine_fixture.hpp"
#include "fake_sysfs.hpp"
#include "reliability_paths.hpp"
#include "rubato/power/machine/profile.hpp"
#include "child_process.hpp"

namespace {

using namespace rubato::test;
namespace fs = std::filesystem;

// The law (only here and in the fake machine's arguments): package power
// U + Σ busy_share · C · (f / f_max)^A, DRAM a constant D.
constexpr double kU = 20, kC = 10, kA = 2.5, kD = 3;
const std::vector<double> kFreqsKhz = {2400000, 2000000, 1600000, 1400000, 1200000};

// Per point: the fake machine's files are up to one period (5 ms) and a
// wake-up old when read, which moves a point's power by up to U · 10 ms / S;
// at 0.5 s, under a load average of 8 on 2 cores (the load threads getting a
// quarter of their CPUs, so the slopes rest on small x), a recovery read 10 %
// off once. 1 s halves that.
constexpr const char* kPointSeconds = "1";

double law(int busy_cpus, double hz) { return kU + busy_cpus * kC * std::pow(hz / (kFreqsKhz.front() * 1e3), kA); }

// The law's arguments of the fake machine, with a phantom neighbour and more options.
std::vector<std::string> law_args(const std::string& neighbour = "", const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"--freqs-khz", "2400000,2000000,1600000,1400000,1200000",
                                   "--uncore-w",  std::to_string(kU),
                                   "--core-w",    std::to_string(kC),
                                   "--exponent",  std::to_string(kA),
                                   "--dram-w",    std::to_string(kD)};
  if (!neighbour.empty()) args.insert(args.end(), {"--neighbour", neighbour});
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// The profile's prediction against the law, at the fastest and the slowest
// frequency for 0, 1 and all CPUs busy: the largest relative error.
double worst_recovery_error(const rubato::MachineProfile& profile, const char* label) {
  double worst = 0;
  const int all = static_cast<int>(profile.cores);
  for (const auto& point : {profile.core_power.front(), profile.core_power.back()}) {
    for (int k : {0, 1, all}) {
      const double predicted = profile.uncore_w + k * point.busy_w;
      const double expected = law(k, point.hz);
      std::printf("%s: %4.0f MHz, %d busy: law %7.3f W, profile %7.3f W (%+.1f %%)\n", label, point.hz / 1e6, k,
                  expected, predicted, 100 * (predicted / expected - 1));
      worst = std::max(worst, std::fabs(predicted / expected - 1));
    }
  }
  return worst;
}

// Rows of the samples file whose last column (used) is `used`.
std::size_t sample_rows(const std::string& csv_path, char used) {
  std::istringstream in(read_file(csv_path));
  std::size_t n = 0;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) n += !line.empty() && line.back() == used;
  return n;
}

}  // namespace

TEST_CASE("Power.Calibrate.RecoversTheFakeMachinesLaw") {
  TempDir work(memory_backed_base()), state;
  FakeMachine machine(work.path(), law_args());
  const auto before = cpufreq_snapshot(machine.root());
  const std::string out = work.path() + "/fake.json";
  const ProgramResult r = run_on(machine, {kRubatoCli, "calibrate", "--seconds", kPointSeconds, "--out", out},
                                 state.path(), work.path() + "/run");
  INFO(r.out << r.err);
  REQUIRE(r.ok());
  // RUBATO_PROFILE accepts it.
  std::string error;
  const auto profile = rubato::load_profile(out, error);
  REQUIRE(profile);
  REQUIRE(profile->core_power.size() == kFreqsKhz.size());
  CHECK(worst_recovery_error(*profile, "calibrate recovery") < 0.10);
  CHECK(profile->unreliable.empty());
  // Every number says it was measured, and how.
  for (const char* key : {"uncore_w", "core_power.busy_w", "core_power.idle_w", "transition_latency_s"})
    CHECK(profile->sources.at(key).rfind("measured: rubato calibrate, ", 0) == 0);
  // On the fake machine the loop's speed never changes: the latency comes from the readback.
  CHECK(profile->sources.at("transition_latency_s").find("scaling_cur_freq readback") != std::string::npos);
  CHECK(profile->transition_latency_s > 0);
  const auto doc = nlohmann::json::parse(read_file(out));
  CHECK(std::fabs(doc.at("dram_w").get<double>() / kD - 1) < 0.10);
  CHECK(path_exists(work.path() + "/fake.samples.csv"));
  CHECK(path_exists(work.path() + "/fake.transitions.csv"));
  // No intel_uncore_frequency here: the uncore's fields are named as not
  // measured, with why, and absent (eco then says it lacks them).
  for (const char* field : {"uncore_power", "memory_bandwidth_knee_hz", "memory_transaction_rate_saturated_per_s"}) {
    REQUIRE(profile->not_measured.count(field));
    CHECK(profile->not_measured.at(field).find("intel_uncore_frequency") != std::string::npos);
    CHECK_FALSE(doc.contains(field));
  }
  CHECK(r.out.find("not measured: uncore_power: ") != std::string::npos);
  CHECK_FALSE(path_exists(work.path() + "/fake.uncore-probe.csv"));
  // Put back byte for byte (the fake shows scaling_max_freq again once the
  // governor is restored), and no state file left behind.
  CHECK(wait_until([&] { return cpufreq_snapshot(machine.root()) == before; }, 5));
  CHECK(no_state_files(state.path()));
}

// A neighbour 1.5 CPUs busy from 2 to 5 s into the run: the points it
// pollutes are set aside and measured again once it has left, and the law is
// recovered as on a quiet machine (kept, those points put the profile off by
// tens of %: Power.Calibrate.AllowNoisyMarksTheProfileUnreliable).
TEST_CASE("Power.Calibrate.MeasuresAgainWhenTheNeighbourLeaves") {
  TempDir work(memory_backed_base()), state;
  FakeMachine machine(work.path(), law_args("1.5@2-5"));
  const auto before = cpufreq_snapshot(machine.root());
  const std::string out = work.path() + "/fake.json";
  const ProgramResult r = run_on(machine, {kRubatoCli, "calibrate", "--seconds", kPointSeconds, "--out", out},
                                 state.path(), work.path() + "/run");
  INFO(r.out << r.err);
  REQUIRE(r.ok());
  CHECK(r.err.find("measuring it again once the machine is quiet") != std::string::npos);
  CHECK(r.err.find("measurements set aside") != std::string::npos);
  std::string error;
  const auto profile = rubato::load_profile(out, error);
  REQUIRE(profile);
  CHECK(profile->unreliable.empty());
  CHECK(worst_recovery_error(*profile, "calibrate beside a neighbour that leaves") < 0.10);
  // Every point once in the fit, the polluted measurements kept beside them.
  const std::size_t points = kFreqsKhz.size() * (1 + 2 * static_cast<std::size_t>(profile->cores));
  CHECK(sample_rows(work.path() + "/fake.samples.csv", '1') == points * 10);  // 10 windows each
  CHECK(sample_rows(work.path() + "/fake.samples.csv", '0') >= 10);
  CHECK(wait_until([&] { return cpufreq_snapshot(machine.root()) == before; }, 5));
  CHECK(no_state_files(state.path()));
}

TEST_CASE("Power.Calibrate.FailsWhenTheMachineStaysBusy") {
  TempDir work(memory_backed_base()), state;
  FakeMachine machine(work.path(), law_args("1.5@0.5-end"));
  const auto before = cpufreq_snapshot(machine.root());
  const std::string out = work.path() + "/never.json";
  const ProgramResult r =
      run_on(machine, {kRubatoCli, "calibrate", "--seconds", "0.3", "--quiet-wait", "1", "--out", out}, state.path(),
             work.path() + "/run");
  INFO(r.out << r.err);
  CHECK(r.exited);
  CHECK(r.exit_code == 1);
  const auto lines = rubato_lines(r.err);
  REQUIRE_FALSE(lines.empty());
  CHECK(lines.back().find("did not become quiet") != std::string::npos);
  CHECK(lines.back().find("no profile written") != std::string::npos);
  CHECK(lines.back().find("--allow-noisy") != std::string::npos);
  CHECK_FALSE(path_exists(out));
  CHECK_FALSE(path_exists(work.path() + "/never.samples.csv"));
  CHECK(wait_until([&] { return cpufreq_snapshot(machine.root()) == before; }, 5));
  CHECK(no_state_files(state.path()));
}

TEST_CASE("Power.Calibrate.AllowNoisyMarksTheProfileUnreliable") {
  TempDir work(memory_backed_base()), state;
  FakeMachine machine(work.path(), law_args("1.5@0-end"));
  const std::string out = work.path() + "/noisy.json";
  const ProgramResult r = run_on(machine,
                                 {kRubatoCli, "calibrate", "--seconds", "0.3", "--freqs", "2.4GHz,1.2GHz",
                                  "--quiet-wait", "0", "--allow-noisy", "--out", out},
                                 state.path(), work.path() + "/run");
  INFO(r.out << r.err);
  REQUIRE(r.ok());
  CHECK(r.out.find("UNRELIABLE") != std::string::npos);
  std::string error;
  const auto profile = rubato::load_profile(out, error);
  INFO(error);
  REQUIRE(profile);
  CHECK(profile->unreliable.find("other processes used up to") != std::string::npos);
  CHECK(profile->unreliable.find("--allow-noisy") != std::string::npos);
  CHECK(profile->description.rfind("UNRELIABLE", 0) == 0);
  // The neighbour's power is in the fit: what re-measuring avoids.
  CHECK(worst_recovery_error(*profile, "calibrate beside a neighbour that stays, --allow-noisy") > 0.10);
  // Wherever the profile is chosen, rubato info says so.
  EnvList env = env_for(machine.root(), state.path());
  env.push_back({"RUBATO_PROFILE", out});
  const ProgramResult info = run_program({kRubatoCli, "info"}, env, work.path() + "/info");
  INFO(info.out << info.err);
  REQUIRE(info.ok());
  CHECK(info.out.find("  UNRELIABLE: " + profile->unreliable) != std::string::npos);
  const ProgramResult json = run_program({kRubatoCli, "info", "--json"}, env, work.path() + "/info-json");
  REQUIRE(json.ok());
  CHECK(nlohmann::json::parse(json.out).at("profile").at("unreliable").get<std::string>() == profile->unreliable);
  CHECK(no_state_files(state.path()));
}

TEST_CASE("Power.Calibrate.RestoresAfterSigterm") {
  TempDir work(memory_backed_base()), state;
  FakeMachine machine(work.path(), law_args());
  const auto before = cpufreq_snapshot(machine.root());
  RunningProgram p({kRubatoCli, "calibrate", "--seconds", "2", "--out", work.path() + "/never.json"},
                   env_for(machine.root(), state.path()), work.path() + "/run");
  machine.follow(p);
  const std::string governor = machine.root() + "/devices/system/cpu/cpufreq/policy0/scaling_governor";
  REQUIRE(wait_until([&] { return read_file(governor).rfind("userspace", 0) == 0; }, 30));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  p.signal(SIGTERM);
  const ProgramResult r = p.wait(30);
  INFO(r.err);
  CHECK(r.signal == SIGTERM);
  CHECK_FALSE(path_exists(work.path() + "/never.json"));
  CHECK(wait_until([&] { return cpufreq_snapshot(machine.root()) == before; }, 5));
  CHECK(no_state_files(state.path()));
}

TEST_CASE("Power.Calibrate.BetaOnTheFakeMachine") {
  TempDir work(memory_backed_base()), state;
  FakeMachine machine(work.path(), law_args());
  const auto before = cpufreq_snapshot(machine.root());
  const std::string out = work.path() + "/beta.json";
  // Five pairs of runs with 80 ms of serial phases each: one run slowed by a
  // loaded machine (a parallel test run) moves the mean β by a fifth of its
  // own deviation. (Three pairs of 20 ms phases gave β 1.13 ± 3.3 once, beside
  // the asan stage.)
  const ProgramResult r =
      run_on(machine, {kRubatoCli, "calibrate", "--beta", "--runs", "5", "--out", out, "--", kPhases, "2", "40", "16"},
             state.path(), work.path() + "/run");
  INFO(r.out << r.err);
  REQUIRE(r.ok());
  CHECK(r.out.find("95% CI") != std::string::npos);
  CHECK(r.out.find("RUBATO_BETA=") != std::string::npos);
  CHECK(r.out.find("uncore sensitivity: not measured (no intel_uncore_frequency domains here)") != std::string::npos);
  const auto doc = nlohmann::json::parse(read_file(out));
  CHECK_FALSE(doc.at("uncore").at("measured").get<bool>());
  const double beta = doc.at("beta").get<double>(), ci = doc.at("ci95").get<double>();
  std::printf("calibrate --beta on the fake machine: beta %.4f ± %.4f\n", beta, ci);
  // The program's speed does not depend on the fake frequency: β ≈ 0, within noise.
  CHECK(std::isfinite(beta));
  CHECK(std::isfinite(ci));
  CHECK(std::fabs(beta) < 1.0);
  CHECK(doc.at("runs").get<int>() == 5);
  CHECK(doc.at("t_fast_s").size() == 5);
  CHECK(wait_until([&] { return cpufreq_snapshot(machine.root()) == before; }, 5));
  CHECK(no_state_files(state.path()));
}

// With an uncore the machine lets rubato set, --beta times the program at the
// slowest uncore level too and recovers both shares of a program whose time
// follows the model at the fake clocks (programs/clock_bound_program.cpp),
// with the knee of the profile named by RUBATO_PROFILE; the uncore limits
// are put back byte for byte.
TEST_CASE("Power.Calibrate.BetaMeasuresBothSensitivitiesWhereTheUncoreIsSettable") {
  TempDir work(memory_backed_base()), state;
  FakeMachine machine(work.path(), law_args("", {"--uncore-khz", "1200000,3000000"}));
  const auto cpufreq_before = cpufreq_snapshot(machine.root());
  const auto uncore_before = uncore_snapshot(machine.root());
  const std::string profile = std::string(kProfilesDir) + "/haswell-e5-2650v3.json";
  std::string error;
  const auto haswell = rubato::load_profile(profile, error);
  REQUIRE(haswell);
  REQUIRE(haswell->memory_bandwidth_knee_hz);
  const double knee_khz = *haswell->memory_bandwidth_knee_hz / 1e3;
  // Half a second of modelled work per run: each run's process start (tens of
  // ms under a sanitizer beside other work, and varying) must stay small
  // against the slowdowns measured (0.25 s and 0.17 s).
  const double bc = 0.5, bu = 0.4, t0_s = 0.5;
  const std::string out = work.path() + "/sensitivities.json";
  EnvList env = env_for(machine.root(), state.path());
  env.push_back({"RUBATO_PROFILE", profile});
  RunningProgram p(
      {kRubatoCli, "calibrate", "--beta", "--runs", "5", "--out", out, "--", RUBATO_CLOCK_BOUND_PROGRAM, machine.root(),
       std::to_string(bc), std::to_string(bu), std::to_string(t0_s * 1e3), std::to_string(knee_khz)},
      env, work.path() + "/run");
  machine.follow(p);
  const ProgramResult r = p.wait(240);
  INFO(r.out << r.err);
  REQUIRE(r.ok());
  CHECK(r.out.find("RUBATO_CORE_SENSITIVITY=") != std::string::npos);
  CHECK(r.out.find("RUBATO_UNCORE_SENSITIVITY=") != std::string::npos);
  const auto doc = nlohmann::json::parse(read_file(out));
  const auto& uncore = doc.at("uncore");
  REQUIRE(uncore.at("measured").get<bool>());
  const double got_bc = doc.at("core_sensitivity").get<double>(), got_bu = uncore.at("sensitivity").get<double>();
  // A run's start does not scale with either clock: it is in T_fast and
  // shrinks both shares by T0 / T_fast alike (docs/calibrate.md). Taken out
  // with the measured T_fast, the program's own shares come back.
  double t_fast = 0;
  for (const auto& t : doc.at("t_fast_s")) t_fast += t.get<double>() / static_cast<double>(doc.at("t_fast_s").size());
  const double start_share = t0_s / t_fast;
  std::printf("calibrate --beta, core and uncore: b_c %.4f, b_u %.4f (program %.1f, %.1f; T0 / T_fast %.3f)\n", got_bc,
              got_bu, bc, bu, start_share);
  CHECK(got_bc / start_share == Approx(bc).margin(0.08));
  CHECK(got_bu / start_share == Approx(bu).margin(0.08));
  CHECK(uncore.at("f_slow_hz").get<double>() == Approx(1.2e9));
  CHECK(uncore.at("stretch").get<double>() == Approx(knee_khz / 1.2e6));
  CHECK(uncore.at("stretch_from").get<std::string>().find("haswell-e5-2650v3") != std::string::npos);
  CHECK(wait_until([&] { return cpufreq_snapshot(machine.root()) == cpufreq_before; }, 5));
  CHECK(wait_until([&] { return uncore_snapshot(machine.root()) == uncore_before; }, 5));
  CHECK(no_state_files(state.path()));
}

TEST_CASE("Power.Calibrate.RefusesWithoutRaplOrCpufreq") {
  TempDir work(memory_backed_base()), state;
  const std::string out = work.path() + "/never.json";
  SECTION("neither") {
    fs::create_directories(work.path() + "/empty");
    const ProgramResult r = run_program({kRubatoCli, "calibrate", "--out", out},
                                        env_for(work.path() + "/empty", state.path()), work.path() + "/run");
    INFO(r.err);
    CHECK(r.exited);
    CHECK(r.exit_code != 0);
    const auto lines = rubato_lines(r.err);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].find("RAPL") != std::string::npos);
    CHECK(lines[0].find("intel_rapl_msr") != std::string::npos);
    CHECK(lines[0].find("frequency control") != std::string::npos);
  }
  SECTION("cpufreq but no RAPL: names RAPL only, touches nothing") {
    FakeSysfs fake;
    fake.add_cpus(2, 1, {2400000, 1200000});
    const auto before = fake.snapshot();
    const ProgramResult r =
        run_program({kRubatoCli, "calibrate", "--out", out}, env_for(fake.root(), state.path()), work.path() + "/run");
    INFO(r.err);
    CHECK(r.exit_code == 1);
    const auto lines = rubato_lines(r.err);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].find("RAPL") != std::string::npos);
    CHECK(lines[0].find("frequency control") == std::string::npos);
    CHECK(fake.snapshot() == before);
  }
  SECTION("this machine, when it has neither (a VM)") {
    const bool has_rapl = path_exists("/sys/class/powercap/intel-rapl:0");
    const bool has_cpufreq = path_exists("/sys/devices/system/cpu/cpufreq/policy0");
    if (has_rapl && has_cpufreq) {
      WARN("this machine has RAPL and cpufreq: not calibrating it in a test");
      return;
    }
    const ProgramResult r = run_program({kRubatoCli, "calibrate", "--out", out}, {{"RUBATO_STATE_DIR", state.path()}},
                                        work.path() + "/run");
    std::printf("calibrate refusal here: %s", r.err.c_str());
    CHECK(r.exit_code == 1);
    CHECK(rubato_lines(r.err).size() == 1);
  }
  CHECK_FALSE(path_exists(out));
  CHECK(no_state_files(state.path()));
}
