// The emulator's plant (RUBATO_PLANT): the stretch and the energy obey the
// work's true shares and the plant's machine, whatever the policies believe
// (RUBATO_PROFILE, the sensitivity settings).
#include <catch2/catch.hpp>

#include <time.h>

#include <cstdio>
#include <string>

#include "fake_sysfs.hpp"
#include "rubato/power/session/session.hpp"
#include "temp_dir.hpp"

using namespace rubato;

namespace {

std::uint64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

void spin_cpu_ns(std::uint64_t ns) {
  const std::uint64_t until = thread_cpu_ns() + ns;
  volatile std::uint64_t x = 1;
  while (thread_cpu_ns() < until) x = x * 3 + 1;
}

// One worker, 20 segments of 0.2 ms CPU time, under the emulator with the
// uncore pinned at 1.2 GHz on Cuttlefish's machine's profile (knee 2.195 GHz).
Report run(const std::vector<std::pair<std::string, std::string>>& extra) {
  test::FakeSysfs fs;
  test::TempDir state;
  fs.add_cpus(1, 1, {2300000, 1400000});
  Environment env{{"RUBATO_BACKEND", "emulated"},
                  {"RUBATO_SYSFS_ROOT", fs.root()},
                  {"RUBATO_STATE_DIR", state.path()},
                  {"RUBATO_PROFILE_DIR", RUBATO_TEST_PROFILES_DIR},
                  {"RUBATO_PROFILE", "haswell-e5-2650v3"},
                  {"RUBATO_POLICY", "baseline"},
                  {"RUBATO_REPORT", ""},
                  {"RUBATO_MAX_WORKERS", "1"},
                  {"RUBATO_UNCORE", "1.2GHz"},
                  // What the policies are told: compute-bound. The plant says otherwise.
                  {"RUBATO_CORE_SENSITIVITY", "1"},
                  {"RUBATO_UNCORE_SENSITIVITY", "0"}};
  env.insert(env.end(), extra.begin(), extra.end());
  auto s = Session::open(env, {"test", "none", true});
  REQUIRE(s);
  s->worker_started(0);
  for (int t = 0; t < 20; ++t) {
    s->engine().task_begin(0);
    spin_cpu_ns(200'000);
    s->engine().task_end(0, true);
  }
  s->worker_stopped(0);
  return s->finish();
}

// The emulator's note: what it was asked to stretch, and over how many segments.
double asked_s(const Report& r) {
  for (const std::string& n : r.notes) {
    double asked = 0;
    if (std::sscanf(n.c_str(), "emulator: asked for %lf s of stretch", &asked) == 1) return asked;
  }
  return -1;
}

}  // namespace

TEST_CASE("Power.Emulator.Plant.StretchObeysThePlantNotTheSettings", "[power][emulator][plant]") {
  // Memory-bound plant (b_u 0.9): at 1.2 GHz the uncore part takes
  // g = 2.195 / 1.2 = 1.83 as long, so 4 ms of segments are stretched by
  // 4 ms · 0.9 · 0.83 ≈ 3.0 ms; with exponent 2, by 4 ms · 0.9 · (1.83² − 1) ≈ 8.4 ms.
  const Report told = run({});
  const Report plant = run({{"RUBATO_PLANT", "core=0.1,uncore=0.9"}});
  const Report steeper = run({{"RUBATO_PLANT", "core=0.1,uncore=0.9,uncore_exponent=2"}});
  const double g = 2.195 / 1.2;
  CHECK(asked_s(told) < 1e-4);  // the settings' compute-bound work does not slow with the uncore
  CHECK(asked_s(plant) == Approx(0.004 * 0.9 * (g - 1)).epsilon(0.1));
  CHECK(asked_s(steeper) == Approx(0.004 * 0.9 * (g * g - 1)).epsilon(0.1));
  bool said = false;
  for (const std::string& n : plant.notes) said = said || n.find("RUBATO_PLANT") != std::string::npos;
  CHECK(said);
}

TEST_CASE("Power.Emulator.Plant.EnergyIsThePlantMachines", "[power][emulator][plant]") {
  const Report plant = run({{"RUBATO_PLANT", "core=0.5,uncore=0.3,profile=i5-2500"}});
  CHECK(plant.energy.source == "modeled:i5-2500");
  CHECK(plant.profile == "haswell-e5-2650v3");
  // A plant whose machine cannot be read is left off, said in one line; the run goes on.
  const Report bad = run({{"RUBATO_PLANT", "core=0.5,profile=/nonexistent/plant.json"}});
  CHECK(bad.energy.source == "modeled:haswell-e5-2650v3");
}
