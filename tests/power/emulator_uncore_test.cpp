// The emulator applies min-energy's uncore level to the uncore-sensitive part
// of the work (docs/min-energy.md "For the emulator"): a segment of CPU time
// d at core f with the uncore at f_u is followed by d·(T(f, f_u)/T(ref) − 1)
// of busy time, the one time model's (rubato/core/model/time_model.hpp). On
// the deterministic fake clocks of emulator_fake_clocks.hpp, except the last
// case, which runs a Session.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <random>

#include "emulator_fake_clocks.hpp"
#include "fake_sysfs.hpp"
#include "rubato/core/model/time_model.hpp"
#include "rubato/power/emulator/emulated_frequency.hpp"
#include "rubato/power/emulator/emulated_uncore.hpp"
#include "rubato/power/emulator/emulator_clocks.hpp"
#include "rubato/power/frequency/uncore_ladder.hpp"
#include "rubato/power/machine/profile.hpp"
#include "rubato/power/session/operating_point.hpp"
#include "rubato/power/session/session.hpp"
#include "child_process.hpp"
#include "temp_dir.hpp"

using namespace rubato;
using rubato::test::FakeClocks;

namespace {

constexpr double kMaxHz = 2.3e9;  // haswell-e5-2650v3's fastest core level
constexpr double kLowHz = 1.4e9;
constexpr double kKneeHz = 2.195e9;  // its memory-bandwidth knee
constexpr double kRefUncoreHz = 3.0e9;
constexpr double kLowestUncoreHz = 1.2e9;

MachineProfile haswell() {
  std::string error;
  auto p = load_profile("haswell-e5-2650v3", {RUBATO_TEST_PROFILES_DIR}, error);
  REQUIRE(p);
  REQUIRE(p->memory_bandwidth_knee_hz.value_or(0) == kKneeHz);
  return *p;
}

// An operating point as min-energy's runner leaves it: the reference first,
// then the decision's shares and the uncore level.
void decide(OperatingPoint& point, WorkSensitivity s, double uncore_hz) {
  point.set_reference_uncore_hz(kRefUncoreHz);
  point.set_sensitivity(s);
  point.set_uncore_hz(uncore_hz);
}

EmulatedFrequency emulator_on(FakeClocks& clocks, double beta, const OperatingPoint* point) {
  const MachineProfile profile = haswell();
  EmulatedFrequency e(beta, kMaxHz, &clocks, emulated_uncore(point, &profile));
  DomainPlan plan;
  plan.cpus_of_domain = {{0}};
  plan.ladder = TempoLadder({kMaxHz, kLowHz});
  plan.max_workers = 1;
  std::string why;
  REQUIRE(e.save(plan, why));
  return e;
}

// One task segment as the engine drives it; returns the stretch it asked for.
std::uint64_t one_segment(EmulatedFrequency& e, FakeClocks& clocks, std::uint64_t work_ns, double hz) {
  const std::uint64_t asked = e.account().asked_ns;
  const std::uint64_t start = clocks.now();
  e.run_started(0);
  clocks.run(work_ns);
  e.segment_end(0, clocks.now() - start, hz, kMaxHz);
  return e.account().asked_ns - asked;
}

// The model's extra time for a segment of CPU time d, as the one model computes it.
std::uint64_t model_stretch_ns(std::uint64_t d, const OperatingPoint& point, double core_hz) {
  const ReferenceSetting ref{kMaxHz, kRefUncoreHz, kKneeHz};
  return static_cast<std::uint64_t>(
      std::llround(static_cast<double>(d) * (time_factor(point.sensitivity(), core_hz, point.uncore_hz(), ref) - 1.0)));
}

}  // namespace

// With b_u = 0 the stretch is the β model's, bit for bit, wherever the
// uncore is: the formula, then a run of segments on two emulators, one
// following an operating point that lowered the uncore below the knee.
TEST_CASE("Power.Emulator.Uncore.WithoutAnUncoreShareTheStretchIsTheBetaModels") {
  std::mt19937_64 rng(7);
  // Up to 10 s: long enough that the float the operating point carries b_c
  // in would change the result (counted below, so that this test can fail).
  std::uniform_int_distribution<std::uint64_t> duration(1, 10'000'000'000);
  std::uniform_real_distribution<double> share(0.0, 1.0), hz(1.2e9, 2.3e9);
  int float_differs = 0;
  for (int i = 0; i < 10'000; ++i) {
    const double beta = share(rng), f = hz(rng), fu = i % 2 ? 1.2e9 : 2.6e9;
    const std::uint64_t d = duration(rng);
    StretchCoefficients c;
    make_stretch_coefficients(c, fu, {static_cast<float>(beta), 0.0}, kRefUncoreHz, beta, kMaxHz, kKneeHz);
    // The emulator's formula before the uncore was followed, written out.
    const auto beta_model =
        static_cast<std::uint64_t>(std::llround(static_cast<double>(d) * beta * (kMaxHz / f - 1.0)));
    REQUIRE(c.core == beta);
    REQUIRE(emulated_stretch_ns(d, f, kMaxHz, c) == beta_model);
    const double as_float = static_cast<float>(beta);
    float_differs +=
        std::llround(static_cast<double>(d) * as_float * (kMaxHz / f - 1.0)) != static_cast<long long>(beta_model);
  }
  CHECK(float_differs > 1'000);

  FakeClocks plain_clocks(SwitchSight::every_switch), following_clocks(SwitchSight::every_switch);
  OperatingPoint point;
  decide(point, {0.6, 0.0}, kLowestUncoreHz);  // 0.6: not a float
  EmulatedFrequency plain = emulator_on(plain_clocks, 0.6, nullptr);
  EmulatedFrequency following = emulator_on(following_clocks, 0.6, &point);
  REQUIRE(following.follows_uncore());
  for (int s = 0; s < 200; ++s) {
    const std::uint64_t work = 1'000 + 997 * static_cast<std::uint64_t>(s);
    const double f = s % 3 ? kLowHz : kMaxHz;
    CHECK(one_segment(plain, plain_clocks, work, f) == one_segment(following, following_clocks, work, f));
  }
  CHECK(plain.account().asked_ns == following.account().asked_ns);
  CHECK(plain.account().burnt_ns == following.account().burnt_ns);
  CHECK(plain_clocks.now() == following_clocks.now());
  CHECK(following.account().uncore_asked_ns == 0);
}

// b_u = 0.7 with the uncore at 1.2 GHz, below the 2.195 GHz knee: each
// segment asks for d·(time_factor − 1) of the one model, at the fastest
// core level (the uncore's part alone) and at a slower one (both parts).
TEST_CASE("Power.Emulator.Uncore.StretchIsTheModelsTimeFactor") {
  FakeClocks clocks(SwitchSight::every_switch);
  OperatingPoint point;
  decide(point, {0.05, 0.7}, kLowestUncoreHz);
  EmulatedFrequency e = emulator_on(clocks, 0.05, &point);
  REQUIRE(e.stretches_at(kMaxHz, kMaxHz));  // the uncore slows work at the fastest core level too
  const double g = kKneeHz / kLowestUncoreHz;
  for (const double f : {kMaxHz, kLowHz}) {
    const EmulatorAccount before = e.account();
    const std::uint64_t asked = one_segment(e, clocks, 100'000, f);
    const EmulatorAccount after = e.account();
    const std::uint64_t d = after.uncore_cpu_ns - before.uncore_cpu_ns;  // the segment's CPU time as stretched
    INFO("core " << f * 1e-9 << " GHz, segment CPU time " << d << " ns, stretch " << asked << " ns");
    REQUIRE(d >= 100'000);
    CHECK(asked == model_stretch_ns(d, point, f));
    CHECK(static_cast<double>(asked) ==
          Approx(static_cast<double>(d) * (0.05 * (kMaxHz / f - 1.0) + 0.7 * (g - 1.0))).margin(1));
    const auto uncore_part = after.uncore_asked_ns - before.uncore_asked_ns;
    CHECK(static_cast<double>(uncore_part) == Approx(static_cast<double>(d) * 0.7 * (g - 1.0)).margin(1));
  }
  CHECK(e.account().uncore_hz_time_weighted == Approx(kLowestUncoreHz));
}

// The controller thread changes the operating point between segments: the
// next segment follows it (uncore lowered, b_u changed, uncore raised to the
// knee and above, where the uncore costs no time).
TEST_CASE("Power.Emulator.Uncore.FollowsChangesOfTheOperatingPoint") {
  FakeClocks clocks(SwitchSight::every_switch);
  OperatingPoint point;
  EmulatedFrequency e = emulator_on(clocks, 0.05, &point);
  // Before the first decision: nothing at the fastest level, the β model below it.
  CHECK(one_segment(e, clocks, 50'000, kMaxHz) == 0);
  CHECK(one_segment(e, clocks, 50'000, kLowHz) > 0);
  CHECK(e.account().uncore_asked_ns == 0);

  decide(point, {0.05, 0.7}, 3.0e9);  // at the reference: no uncore part
  CHECK(one_segment(e, clocks, 50'000, kMaxHz) == 0);
  point.set_uncore_hz(1.8e9);
  const std::uint64_t at_1_8 = one_segment(e, clocks, 50'000, kMaxHz);
  CHECK(static_cast<double>(at_1_8) == Approx(50'000 * 0.7 * (kKneeHz / 1.8e9 - 1.0)).epsilon(0.01));
  point.set_sensitivity({0.05, 0.35});
  const std::uint64_t half_share = one_segment(e, clocks, 50'000, kMaxHz);
  CHECK(static_cast<double>(half_share) == Approx(at_1_8 / 2.0).epsilon(0.01));
  point.set_uncore_hz(2.2e9);  // above the knee
  CHECK(one_segment(e, clocks, 50'000, kMaxHz) == 0);
  point.set_uncore_hz(1.2e9);
  CHECK(one_segment(e, clocks, 50'000, kMaxHz) > 0);
  point.set_uncore_hz(0);  // no longer controlled here: the β model again
  CHECK(one_segment(e, clocks, 50'000, kMaxHz) == 0);
  const EmulatorAccount a = e.account();
  // Time-weighted over the segments with a level in force (3.0, 1.8, 1.8, 2.2, 1.2 GHz, equal times).
  CHECK(a.uncore_hz_time_weighted == Approx((3.0 + 1.8 + 1.8 + 2.2 + 1.2) / 5 * 1e9).epsilon(0.01));
}

// The runner stores the reference before the first level, but a relaxed
// reader may see the level first: the emulator looks again.
TEST_CASE("Power.Emulator.Uncore.WaitsForTheReference") {
  FakeClocks clocks(SwitchSight::every_switch);
  OperatingPoint point;
  EmulatedFrequency e = emulator_on(clocks, 0.05, &point);
  point.set_sensitivity({0.05, 0.7});
  point.set_uncore_hz(kLowestUncoreHz);
  CHECK(one_segment(e, clocks, 50'000, kMaxHz) == 0);
  point.set_reference_uncore_hz(kRefUncoreHz);
  CHECK(one_segment(e, clocks, 50'000, kMaxHz) > 0);
}

// Nothing to follow: no point, or a profile without an uncore ladder. The
// emulator is then today's, stretching nothing at the fastest level.
TEST_CASE("Power.Emulator.Uncore.FollowsNothingWithoutALadder") {
  OperatingPoint point;
  std::string error;
  const auto generic = load_profile("generic", {RUBATO_TEST_PROFILES_DIR}, error);
  REQUIRE(generic);
  const MachineProfile h = haswell();
  CHECK_FALSE(uncore_may_stretch(emulated_uncore(nullptr, &h)));
  CHECK_FALSE(uncore_may_stretch(emulated_uncore(&point, nullptr)));
  CHECK(uncore_may_stretch(emulated_uncore(&point, &h)));
  if (UncoreLadder::from_profile(*generic).empty()) {
    CHECK_FALSE(uncore_may_stretch(emulated_uncore(&point, &*generic)));
  }
  EmulatedFrequency plain(0.5, kMaxHz);
  CHECK_FALSE(plain.follows_uncore());
  CHECK_FALSE(plain.stretches_at(kMaxHz, kMaxHz));
  CHECK(plain.stretches_at(kLowHz, kMaxHz));
}

// The report says what the uncore added.
TEST_CASE("Power.Emulator.Uncore.NoteSaysTheUncoresPart") {
  FakeClocks clocks(SwitchSight::every_switch);
  OperatingPoint point;
  decide(point, {0.05, 0.7}, kLowestUncoreHz);
  EmulatedFrequency e = emulator_on(clocks, 0.05, &point);
  for (int s = 0; s < 10; ++s) one_segment(e, clocks, 100'000, kMaxHz);
  std::string line;
  for (const auto& n : e.run_notes())
    if (n.rfind("emulator uncore:", 0) == 0) line = n;
  INFO(line);
  double asked_s = 0, cpu_s = 0, timed_s = 0, hz_ghz = 0;
  REQUIRE(std::sscanf(line.c_str(),
                      "emulator uncore: %lf s of the stretch asked came from the uncore, b_u*(g(f_u)-1) of %lf s of "
                      "segment CPU time; segments ran %lf s at an uncore level set by min-energy, %lf GHz",
                      &asked_s, &cpu_s, &timed_s, &hz_ghz) == 4);
  CHECK(asked_s == Approx(cpu_s * 0.7 * (kKneeHz / kLowestUncoreHz - 1.0)).epsilon(1e-4));
  CHECK(cpu_s >= 10 * 100e-6);
  CHECK(hz_ghz == Approx(1.2));
}

namespace {

void spin_cpu_ns(std::uint64_t ns) {
  const std::uint64_t until = thread_cpu_ns() + ns;
  volatile std::uint64_t x = 1;
  while (thread_cpu_ns() < until) x = x * 3 + 1;
}

}  // namespace

// Wired through a Session (RUBATO_BACKEND=emulated, min-energy on the
// Haswell profile, a fake cpufreq tree): work told it is slightly
// memory-bound gets the uncore below the knee, and the emulator's note says
// what that level added: per second of stretched CPU time, b_u·(g(f_u) − 1)
// for levels below the knee — between 2.1 GHz's and 1.2 GHz's. CPU time, so
// the machine's load changes only how long the test takes.
TEST_CASE("Power.Emulator.Uncore.SessionStretchesByTheLevelMinEnergySets", "[power][min-energy]") {
  test::FakeSysfs fs;
  test::TempDir state;
  fs.add_cpus(2, 1, {2300000, 1400000});
  const Environment env{{"RUBATO_BACKEND", "emulated"},
                        {"RUBATO_SYSFS_ROOT", fs.root()},
                        {"RUBATO_STATE_DIR", state.path()},
                        {"RUBATO_PROFILE_DIR", RUBATO_TEST_PROFILES_DIR},
                        {"RUBATO_PROFILE", "haswell-e5-2650v3"},
                        {"RUBATO_POLICY", "min-energy"},
                        {"RUBATO_MIN_ENERGY_LOOP", "open"},
                        {"RUBATO_REPORT", ""},
                        {"RUBATO_MAX_WORKERS", "1"},
                        {"RUBATO_CONTROL_INTERVAL", "1ms"},
                        {"RUBATO_COUNTERS", "none"},
                        {"RUBATO_CORE_SENSITIVITY", "0.05"},
                        {"RUBATO_UNCORE_SENSITIVITY", "0.05"}};
  auto s = Session::open(env, {"test", "none", true});
  REQUIRE(s);
  REQUIRE(s->operating_point());
  s->worker_started(0);
  REQUIRE(test::wait_until(
      [&] { return s->operating_point()->uncore_hz() > 0 && s->operating_point()->uncore_hz() < kKneeHz; }));
  for (int t = 0; t < 20; ++t) {
    s->engine().task_begin(0);
    spin_cpu_ns(200'000);
    s->engine().task_end(0, true);
  }
  s->worker_stopped(0);
  const Report& r = s->finish();
  std::string line;
  for (const auto& n : r.notes)
    if (n.rfind("emulator uncore:", 0) == 0) line = n;
  INFO(line);
  double asked_s = 0, cpu_s = 0;
  REQUIRE(std::sscanf(line.c_str(),
                      "emulator uncore: %lf s of the stretch asked came from the uncore, b_u*(g(f_u)-1) of %lf s",
                      &asked_s, &cpu_s) == 2);
  REQUIRE(cpu_s > 0);
  const double b_u = static_cast<float>(0.05);
  CHECK(asked_s / cpu_s >= b_u * (kKneeHz / 2.1e9 - 1.0) * (1 - 1e-3));
  CHECK(asked_s / cpu_s <= b_u * (kKneeHz / kLowestUncoreHz - 1.0) * (1 + 1e-3));
}
