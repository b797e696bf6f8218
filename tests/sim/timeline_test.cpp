// Hand-computable runs: a chain on one worker, and two
// workers with exactly one steal, derived event by event in the comments.
#include <catch2/catch.hpp>

#include "sim_fixture.hpp"

using namespace rubato;
using namespace rubato::sim;
using namespace rubato::sim::test;

namespace {

std::uint64_t total(const std::vector<WorkerStats>& ws, std::uint64_t WorkerStats::*field) {
  std::uint64_t n = 0;
  for (const auto& w : ws) n += w.*field;
  return n;
}

}  // namespace

TEST_CASE("Sim.Timeline.OneWorkerChainAtFmax", "[sim][timeline]") {
  // 100 tasks of 25,000 cycles at f_max = 2 GHz: 12.5 us each, 1.25 ms in all,
  // busy the whole time (spawn and sync take no time in the model).
  const MachineProfile p = two_level_profile(1);
  const Program prog = program("chain:100:work=25000cyc", 2e9);
  Simulation s(options(p, 1, "baseline"), prog);
  const SimResult& r = s.run();
  CHECK(r.makespan_ns == 1250000);
  CHECK(r.tasks == 101);
  const double t = 1.25e-3;
  CHECK(r.energy_j == Approx(8.0 * t + 10.0 * t).epsilon(1e-12));
  REQUIRE(r.core_time.size() == 1);
  REQUIRE(r.core_time[0].size() == 1);
  CHECK(r.core_time[0][0].hz == 2e9);
  CHECK(r.core_time[0][0].busy_ns == 1250000);
  CHECK(r.core_time[0][0].idle_ns == 0);
  CHECK(total(s.engine().worker_stats(), &WorkerStats::tasks_completed) == 101);
}

TEST_CASE("Sim.Timeline.BetaScalesOnlyTheComputePart", "[sim][timeline]") {
  // Fixed at 1 GHz = f_max / 2 with beta = 0.5: each 10 us task takes
  // 10 (0.5 x 2 + 0.5) = 15 us.
  const MachineProfile p = two_level_profile(1);
  const Program prog = program("chain:10:work=10us:beta=0.5", 2e9);
  Simulation s(options(p, 1, "fixed:1GHz"), prog);
  const SimResult& r = s.run();
  CHECK(r.makespan_ns == 150000);
  CHECK(r.energy_j == Approx(2.0 * 150e-6 + 10.0 * 150e-6).epsilon(1e-12));
}

TEST_CASE("Sim.Timeline.TwoWorkersOneStealAtFmax", "[sim][timeline]") {
  // t=0   w0 starts fib(2): node work 0-4.  w1: every deque empty -> idle, parked.
  // t=4   w0 spawns fib(1): pushes fib(2)'s continuation, runs fib(1) 4-14.
  //       The push wakes w1, whose attempt in progress ends at 6.
  // t=6   w1 steals the continuation, spawns fib(0): pushes it, runs fib(0) 6-16.
  // t=14  w0 returns fib(1); its deque is empty -> idle, attempt ends at 17.
  // t=16  w1 returns fib(0), pops fib(2)'s continuation: sync passes, returns. End.
  Fib2Case c("baseline");
  const SimResult& r = c.run();
  CHECK(r.makespan_ns == 16000);
  CHECK(r.tasks == 3);
  const auto ws = c.sim->engine().worker_stats();
  REQUIRE(ws.size() == 2);
  CHECK(ws[0].steals == 0);
  CHECK(ws[0].stolen_from == 1);
  CHECK(ws[0].pushes == 1);
  CHECK(ws[0].tasks_completed == 1);
  CHECK(ws[1].steals == 1);
  CHECK(ws[1].pushes == 1);
  CHECK(ws[1].pops == 1);
  CHECK(ws[1].tasks_completed == 2);
  CHECK(ws[1].idles == 1);
  CHECK(ws[0].idles == 1);
  // w0 busy 0-14, idle 14-16; w1 idle 0-6, busy 6-16.
  CHECK(r.core_time[0][0].busy_ns == 14000);
  CHECK(r.core_time[0][0].idle_ns == 2000);
  CHECK(r.core_time[1][0].busy_ns == 10000);
  CHECK(r.core_time[1][0].idle_ns == 6000);
  CHECK(r.energy_j == Approx(8.0 * us(24) + 3.0 * us(8) + 10.0 * us(16)).epsilon(1e-12));
}

TEST_CASE("Sim.Timeline.TwoWorkersOneStealFixedHalfFrequency", "[sim][timeline]") {
  // Everything at 1 GHz: work takes twice as long, steal attempts do not.
  // node 0-8; w1 woken at 8, attempt ends at 9 (3 x 3); fib(1) 8-28 on w0;
  // fib(0) 9-29 on w1; w1 pops the continuation and ends at 29.
  Fib2Case c("fixed:1GHz");
  const SimResult& r = c.run();
  CHECK(r.makespan_ns == 29000);
  CHECK(r.energy_j == Approx(2.0 * us(28 + 20) + 1.0 * us(1 + 9) + 10.0 * us(29)).epsilon(1e-12));
}

TEST_CASE("Sim.Timeline.WorkpathTemposFollowTheSteal", "[sim][timeline][workpath]") {
  // Ladder 2 GHz / 1 GHz, no DVFS latency.
  // t=6   w1 steals from w0: thief procrastination, w1 -> 1 GHz. fib(0) at half speed.
  // t=14  w0 returns fib(1) and goes idle: immediacy relay raises w1 to 2 GHz.
  //       fib(0) has done 8 us x 0.5 = 4 us of its 10; 6 us left -> ends at 20.
  // t=17  w0's attempt takes fib(2)'s continuation from w1 (thief -> 1 GHz);
  //       the sync must wait for fib(0): w0 suspends it, goes idle, parks.
  // t=20  w1 returns fib(0), the last child: it resumes fib(2), which returns. End.
  Fib2Case c("workpath");
  const SimResult& r = c.run();
  CHECK(r.makespan_ns == 20000);
  const auto ws = c.sim->engine().worker_stats();
  CHECK(ws[0].steals == 1);
  CHECK(ws[1].steals == 1);
  // w0: busy 0-14 and idle 14-17 at 2 GHz, idle 17-20 at 1 GHz.
  // w1: idle 0-6 and busy 14-20 at 2 GHz, busy 6-14 at 1 GHz.
  REQUIRE(r.core_time[0].size() == 2);
  CHECK(r.core_time[0][0].hz == 2e9);
  CHECK(r.core_time[0][0].busy_ns == 14000);
  CHECK(r.core_time[0][0].idle_ns == 3000);
  CHECK(r.core_time[0][1].idle_ns == 3000);
  CHECK(r.core_time[1][0].busy_ns == 6000);
  CHECK(r.core_time[1][0].idle_ns == 6000);
  CHECK(r.core_time[1][1].busy_ns == 8000);
  CHECK(r.applied_transitions == std::vector<std::uint64_t>{1, 2});
  CHECK(r.energy_j ==
        Approx(8.0 * us(14 + 6) + 3.0 * us(3 + 6) + 1.0 * us(3) + 2.0 * us(8) + 10.0 * us(20)).epsilon(1e-12));
}

TEST_CASE("Sim.Timeline.TransitionLatencyDelaysTheNewFrequency", "[sim][timeline][dvfs]") {
  // As above with a 1 us transition latency: w1 slows at 7, not 6, and speeds
  // up at 15, not 14: 1 + 8 x 0.5 = 5 us of work done by 15, 5 left -> ends at 20.
  Fib2Case c("workpath");
  c.opt.profile.transition_latency_s = 1e-6;
  const SimResult& r = c.run();
  CHECK(r.makespan_ns == 20000);
  CHECK(r.core_time[1][1].busy_ns == 8000);  // 7-15 at 1 GHz
  CHECK(r.core_time[1][0].busy_ns == 6000);  // 6-7 and 15-20 at 2 GHz
  CHECK(r.applied_transitions == std::vector<std::uint64_t>{1, 2});
}

TEST_CASE("Sim.Timeline.MinimumDwellNeverHoldsARaise", "[sim][timeline][dvfs]") {
  // A 10 us dwell: w1's raise requested at 14, 8 us after its lowering at 6,
  // is applied at 14 all the same (power/rate_limited_applier.hpp: a raise is
  // never held for the dwell): the timeline of WorkpathTemposFollowTheSteal.
  // Held until 16, w1 would have ended at 21 with 10 us at 1 GHz.
  Fib2Case c("workpath");
  c.opt.min_dwell_s = 10e-6;
  const SimResult& r = c.run();
  CHECK(r.makespan_ns == 20000);
  CHECK(r.core_time[1][1].busy_ns == 8000);
}

TEST_CASE("Sim.Timeline.OmpModelTiedResume", "[sim][timeline][omp]") {
  // Child stealing: w0 pushes fib(1) and fib(0), suspends fib(2) at the sync
  // (tied to w0) and pops fib(0) 4-14. w1, woken at 4, steals fib(1) at 6, runs
  // it 6-16. w0 goes idle at 14 and parks; w1 returning fib(1) makes fib(2)
  // ready, which wakes w0: its attempt in progress ends at 17, where it resumes
  // fib(2) and returns.
  Fib2Case c("baseline");
  c.opt.model = SpawnModel::omp;
  const SimResult& r = c.run();
  CHECK(r.makespan_ns == 17000);
  const auto ws = c.sim->engine().worker_stats();
  CHECK(ws[0].pushes == 2);
  CHECK(ws[0].pops == 1);
  CHECK(ws[1].steals == 1);
  CHECK(ws[0].tasks_completed == 2);
  CHECK(ws[1].tasks_completed == 1);
}

// A pinned uncore frequency is charged the profile's uncore power
// at it, over the makespan; without a table, or unpinned, the constant.
TEST_CASE("Sim.Energy.UncoreChargedAtThePinnedUncoreFrequency", "[sim][energy]") {
  Fib2Case unpinned("baseline");
  unpinned.opt.profile.uncore_power = {{2.4e9, 12.0}, {1.2e9, 6.0}};
  const SimResult a = unpinned.run();
  const double makespan_s = static_cast<double>(a.makespan_ns) * 1e-9;
  CHECK(a.uncore_energy_j == Approx(10.0 * makespan_s));
  Fib2Case pinned("baseline");
  pinned.opt.profile.uncore_power = unpinned.opt.profile.uncore_power;
  pinned.opt.uncore_hz = 1.5e9;
  const SimResult b = pinned.run();
  CHECK(b.makespan_ns == a.makespan_ns);  // the uncore frequency does not change core timing here
  CHECK(b.uncore_energy_j == Approx(7.5 * makespan_s));
  CHECK(b.energy_j == Approx(a.energy_j - 2.5 * makespan_s));
}
