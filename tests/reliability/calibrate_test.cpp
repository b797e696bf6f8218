// `rubato calibrate` end to end: against a fake machine
// (programs/fake_machine.cpp) whose RAPL counters follow a power law the test
// chooses, calibration recovers the law; the cpufreq tree is put back byte
// for byte, also after SIGTERM mid-run; --beta gives a finite β with its
// interval; and where RAPL or cpufreq is missing it refuses in one line and
// changes nothing.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

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

double law(int busy_cpus, double hz) { return kU + busy_cpus * kC * std::pow(hz / (kFreqsKhz.front() * 1e3), kA); }

// Every cpufreq file with its bytes (the fake machine's in-flight "*.new" left out).
std::map<std::string, std::string> cpufreq_snapshot(const std::string& root) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root + "/devices/system/cpu/cpufreq"))
    if (e.is_regular_file() && e.path().extension() != ".new") out[e.path().string()] = read_file(e.path().string());
  return out;
}

bool no_state_files(const std::string& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    (void)e;
    return false;
  }
  return true;
}

class FakeMachine {
 public:
  explicit FakeMachine(const std::string& work)
      : root_(work + "/root"),
        program_({RUBATO_FAKE_MACHINE, root_, "--freqs-khz", "2400000,2000000,1600000,1400000,1200000", "--uncore-w",
                  std::to_string(kU), "--core-w", std::to_string(kC), "--exponent", std::to_string(kA), "--dram-w",
                  std::to_string(kD),
                  // Only rubato's threads count as busy: this machine is shared, and
                  // other programs' load must not enter the fake power.
                  "--busy-from", "comm:rubato"},
                 {}, work + "/fake") {
    REQUIRE(wait_until([&] { return path_exists(root_ + "/fake-machine.ready"); }, 20));
  }
  ~FakeMachine() {
    program_.signal(SIGTERM);
    program_.wait(10);
  }
  const std::string& root() const { return root_; }

 private:
  std::string root_;
  RunningProgram program_;
};

EnvList env_for(const std::string& root, const std::string& state) {
  return {{"RUBATO_SYSFS_ROOT", root}, {"RUBATO_STATE_DIR", state}};
}

}  // namespace

TEST_CASE("Power.Calibrate.RecoversTheFakeMachinesLaw") {
  TempDir work, state;
  FakeMachine machine(work.path());
  const auto before = cpufreq_snapshot(machine.root());
  const std::string out = work.path() + "/fake.json";
  const ProgramResult r = run_program({kRubatoCli, "calibrate", "--seconds", "0.5", "--out", out},
                                      env_for(machine.root(), state.path()), work.path() + "/run", 240);
  INFO(r.out << r.err);
  REQUIRE(r.ok());
  // RUBATO_PROFILE accepts it.
  std::string error;
  const auto profile = rubato::load_profile(out, error);
  REQUIRE(profile);
  REQUIRE(profile->core_power.size() == kFreqsKhz.size());
  const int all = static_cast<int>(profile->cores);
  for (const auto& point : {profile->core_power.front(), profile->core_power.back()}) {
    for (int k : {0, 1, all}) {
      const double predicted = profile->uncore_w + k * point.busy_w;
      const double expected = law(k, point.hz);
      std::printf("calibrate recovery: %4.0f MHz, %d busy: law %7.3f W, profile %7.3f W (%+.1f %%)\n", point.hz / 1e6,
                  k, expected, predicted, 100 * (predicted / expected - 1));
      CHECK(std::fabs(predicted / expected - 1) < 0.10);
    }
  }
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
  // Put back byte for byte (the fake shows scaling_max_freq again once the
  // governor is restored), and no state file left behind.
  CHECK(wait_until([&] { return cpufreq_snapshot(machine.root()) == before; }, 5));
  CHECK(no_state_files(state.path()));
}

TEST_CASE("Power.Calibrate.RestoresAfterSigterm") {
  TempDir work, state;
  FakeMachine machine(work.path());
  const auto before = cpufreq_snapshot(machine.root());
  RunningProgram p({kRubatoCli, "calibrate", "--seconds", "2", "--out", work.path() + "/never.json"},
                   env_for(machine.root(), state.path()), work.path() + "/run");
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
  TempDir work, state;
  FakeMachine machine(work.path());
  const auto before = cpufreq_snapshot(machine.root());
  const std::string out = work.path() + "/beta.json";
  // Five pairs of runs with 80 ms of serial phases each: one run slowed by a
  // loaded machine (a parallel test run) moves the mean β by a fifth of its
  // own deviation. (Three pairs of 20 ms phases gave β 1.13 ± 3.3 once, beside
  // the asan stage.)
  const ProgramResult r =
      run_program({kRubatoCli, "calibrate", "--beta", "--runs", "5", "--out", out, "--", kPhases, "2", "40", "16"},
                  env_for(machine.root(), state.path()), work.path() + "/run", 240);
  INFO(r.out << r.err);
  REQUIRE(r.ok());
  CHECK(r.out.find("95% CI") != std::string::npos);
  CHECK(r.out.find("RUBATO_BETA=") != std::string::npos);
  const auto doc = nlohmann::json::parse(read_file(out));
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

TEST_CASE("Power.Calibrate.RefusesWithoutRaplOrCpufreq") {
  TempDir work, state;
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
