// The emulator's own cost and its account (burnt against asked), on a
// deterministic fake clock: no test here depends on the machine's speed or load.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "rubato/core/base/clock.hpp"
#include "rubato/core/tempo/engine.hpp"
#include "rubato/power/emulator/emulated_frequency.hpp"
#include "rubato/power/emulator/emulator_clocks.hpp"
#include "emulator_fake_clocks.hpp"

using namespace rubato;
using rubato::test::FakeClocks;

namespace {

constexpr double kMaxHz = 2.4e9;
constexpr double kHalf = 1.2e9;  // β = 1: a segment's CPU time again

EmulatedFrequency emulator_on(FakeClocks& clocks, double beta = 1.0) {
  EmulatedFrequency e(beta, kMaxHz, &clocks);
  DomainPlan plan;
  plan.cpus_of_domain = {{0}};
  plan.ladder = TempoLadder({kMaxHz, kHalf});
  plan.max_workers = 1;
  std::string why;
  REQUIRE(e.save(plan, why));
  return e;
}

// One task segment as the engine drives it: the run starts, the task runs
// `work_ns`, the segment ends and is stretched.
void one_segment(EmulatedFrequency& e, FakeClocks& clocks, std::uint64_t work_ns, double hz = kHalf) {
  const std::uint64_t start = clocks.now();
  e.run_started(0);
  clocks.run(work_ns);
  e.segment_end(0, clocks.now() - start, hz, kMaxHz);
}

}  // namespace

// The regression: one thread CPU clock read (a system call, ~0.6 us) at each
// end of every segment made the emulator cost more than the stretch of a
// 1-2 us task. Ten thousand 1 us segments on a thread that never leaves its
// core now read the CPU clock once (the first anchor) and once per 10 ms of
// extrapolation at most; the old emulator read it 20 000 times.
TEST_CASE("Power.Emulator.ShortSegmentsDoNotReadTheCpuClockEachTime") {
  FakeClocks clocks(SwitchSight::every_switch);
  EmulatedFrequency e = emulator_on(clocks);
  const int reads_at_save = clocks.cpu_reads;  // save() times one read
  const std::uint64_t t0 = clocks.now();
  for (int s = 0; s < 10'000; ++s) one_segment(e, clocks, 1'000);
  const int reads = clocks.cpu_reads - reads_at_save;
  const auto extrapolation_limits = static_cast<int>((clocks.now() - t0) / 10'000'000);
  INFO(reads << " CPU clock reads, " << clocks.wall_reads << " wall reads for 10000 segments");
  CHECK(reads <= 1 + extrapolation_limits);
  CHECK(e.account().cpu_clock_reads == static_cast<std::uint64_t>(reads));
  CHECK(e.account().segments == 10'000);
  // ... and it still stretched every segment by its CPU time (the segment
  // as the engine times it holds the emulator's read at the run's start).
  CHECK(e.account().asked_ns >= 10'000u * 1'000u);
  CHECK(e.account().asked_ns <= 10'000u * (1'000u + 2 * FakeClocks::kWallReadNs));
}

// What it burnt against what it was asked to burn: everything the emulator
// held the thread for (its burn and its own reads and bookkeeping) is the
// stretch asked plus what no stretch could absorb, and its own time is taken
// off the burns, not added to them.
TEST_CASE("Power.Emulator.AccountsBurntAgainstAsked") {
  FakeClocks clocks(SwitchSight::every_switch);
  EmulatedFrequency e = emulator_on(clocks);
  REQUIRE(e.read_cost_ns() == FakeClocks::kWallReadNs);
  std::uint64_t held = 0;  // fake time inside the emulator's calls, plus the engine's read after a burn
  for (int s = 0; s < 1'000; ++s) {
    const std::uint64_t before_start = clocks.now();
    e.run_started(0);
    const std::uint64_t started = clocks.now();
    clocks.run(2'000);
    const std::uint64_t ended = clocks.now();
    e.segment_end(0, ended - started, kHalf, kMaxHz);
    held += (started - before_start) + (clocks.now() - ended) + e.read_cost_ns();
  }
  const EmulatorAccount a = e.account();
  INFO("asked " << a.asked_ns << " burnt " << a.burnt_ns << " own " << a.own_ns << " unpaid " << a.unpaid_ns << " held "
                << held);
  CHECK(a.asked_ns == 1'000u * 2'000u);
  CHECK(a.burnt_ns + a.own_ns == a.asked_ns + a.unpaid_ns);
  CHECK(a.own_ns > 0);
  CHECK(a.burnt_ns < a.asked_ns);  // the own time was taken off the burns
  // The account is what really happened: the time the emulator held the
  // thread, to one wall read a segment (the reads are counted at their
  // measured cost, not timed).
  const std::uint64_t counted = a.burnt_ns + a.own_ns;
  CHECK(held + 1'000u * FakeClocks::kWallReadNs >= counted);
  CHECK(counted + 1'000u * FakeClocks::kWallReadNs >= held);
  CHECK(a.unpaid_ns <= 4 * 4 * FakeClocks::kWallReadNs);  // every 2 us stretch absorbed the ~40 ns before it
}

// A stretch shorter than the emulator's own time per segment (β = 0.01: 10 ns
// for a 1 us task, against ~40 ns of reads) cannot absorb it: the rest is
// reported unpaid, never hidden.
TEST_CASE("Power.Emulator.ReportsOwnTimeAStretchCouldNotAbsorb") {
  FakeClocks clocks(SwitchSight::every_switch);
  EmulatedFrequency e = emulator_on(clocks, 0.01);
  for (int s = 0; s < 1'000; ++s) one_segment(e, clocks, 1'000);
  const EmulatorAccount a = e.account();
  CHECK(a.asked_ns == 1'000u * 10u);
  CHECK(a.burnt_ns + a.own_ns == a.asked_ns + a.unpaid_ns);
  CHECK(a.unpaid_ns >= a.own_ns - a.asked_ns);
  const std::vector<std::string> notes = e.run_notes();
  REQUIRE(notes.size() == 2);
  CHECK(notes[0].find("1000 segments") != std::string::npos);
  CHECK(notes[0].find("could not absorb") != std::string::npos);
  CHECK(notes[1] == "emulator clocks: fake");
}

// A thread switched out mid-segment: the watch trips, the CPU clock is read
// once, and the segment is stretched by the CPU time it ran, not by the wait.
TEST_CASE("Power.Emulator.ASwitchMidSegmentIsReadNotStretched") {
  FakeClocks clocks(SwitchSight::every_switch);
  EmulatedFrequency e = emulator_on(clocks);
  one_segment(e, clocks, 1'000);  // the first anchor
  const int reads = clocks.cpu_reads;
  const std::uint64_t asked = e.account().asked_ns;
  const std::uint64_t start = clocks.now();
  e.run_started(0);
  clocks.run(3'000);
  clocks.off_core(500'000, false);
  clocks.run(2'000);
  e.segment_end(0, clocks.now() - start, kHalf, kMaxHz);
  CHECK(clocks.cpu_reads == reads + 1);
  const std::uint64_t stretch = e.account().asked_ns - asked;
  INFO("stretch " << stretch << " ns for 5000 ns of CPU time and 500 us off the core");
  CHECK(stretch >= 5'000);
  CHECK(stretch <= 5'000 + FakeClocks::kCpuReadNs + 10 * FakeClocks::kWallReadNs);
}

// Where the watch does not see sleeps (kernels from 6.19 on), a segment long
// enough to hold one is checked on the CPU clock; a short one is not.
TEST_CASE("Power.Emulator.LongSegmentsAreCheckedWhereSleepsAreUnseen") {
  FakeClocks clocks(SwitchSight::preemption);
  EmulatedFrequency e = emulator_on(clocks);
  one_segment(e, clocks, 1'000);
  int reads = clocks.cpu_reads;
  for (int s = 0; s < 100; ++s) one_segment(e, clocks, 1'000);
  CHECK(clocks.cpu_reads == reads);
  const std::uint64_t asked = e.account().asked_ns;
  const std::uint64_t start = clocks.now();
  e.run_started(0);
  clocks.run(5'000);
  clocks.off_core(1'000'000, true);  // a sleep: the watch does not trip
  e.segment_end(0, clocks.now() - start, kHalf, kMaxHz);
  CHECK(clocks.cpu_reads == reads + 1);
  CHECK(e.account().asked_ns - asked <= 5'000 + FakeClocks::kCpuReadNs + 10 * FakeClocks::kWallReadNs);
}

// The system's clocks: the hot path's wall clock is the TSC or the vDSO's
// CLOCK_MONOTONIC (never the thread CPU clock), and where glibc registered
// rseq the watch stays quiet while the thread stays on its core and trips
// when it sleeps. Bounded retries: a preemption by a neighbour may trip it.
TEST_CASE("Power.Emulator.SystemClocksAreTheCheapOnes") {
  const auto clocks = make_system_emulator_clocks();
  const std::string line = clocks->describe();
  INFO(line);
  CHECK((line.rfind("wall clock TSC", 0) == 0 || line.rfind("wall clock CLOCK_MONOTONIC", 0) == 0));
  CHECK(clocks->wall_ns() <= clocks->wall_ns());
  if (clocks->switch_sight() == SwitchSight::none) {
    WARN("no rseq area here: " << line);
    return;
  }
  bool quiet = false;
  for (int attempt = 0; attempt < 100 && !quiet; ++attempt) {
    clocks->watch_switches();
    quiet = !clocks->switched_out();
  }
  CHECK(quiet);
  if (clocks->switch_sight() == SwitchSight::every_switch) {
    clocks->watch_switches();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    CHECK(clocks->switched_out());
  }
}
