// slack and the cost guard (rubato's own, beyond the papers) in the
// simulator: the same engine policies, with the simulator's sweeper ticks and
// DVFS model.
#include <catch2/catch.hpp>

#include "sim_fixture.hpp"

using namespace rubato;
using namespace rubato::sim;
using namespace rubato::sim::test;

namespace {
std::uint64_t sum(const std::vector<WorkerStats>& ws, std::uint64_t WorkerStats::*field) {
  std::uint64_t n = 0;
  for (const auto& w : ws) n += w.*field;
  return n;
}
double slow_busy_ns(const SimResult& r, double slow_hz) {
  double ns = 0;
  for (const auto& core : r.core_time)
    for (const CoreTime& t : core)
      if (t.hz == slow_hz) ns += static_cast<double>(t.busy_ns);
  return ns;
}
}  // namespace

TEST_CASE("Sim.Slack.WaitingWorkersSlowedAtNoTimeCost", "[sim][slack]") {
  // No DVFS latency: a raise lands at once, so lowering waiting workers
  // changes no task's timing, and their idle power falls (3 W -> 1 W).
  Fib2Case base("baseline");
  const SimResult b = base.run();
  Fib2Case slack("slack");
  slack.opt.engine.slack_dwell_ns = 2000;
  const SimResult s = slack.run();
  CHECK(s.makespan_ns == b.makespan_ns);
  CHECK(s.energy_j < b.energy_j);
  const auto ws = slack.sim->engine().worker_stats();
  CHECK(sum(ws, &WorkerStats::wait_slowed_ns) > 0);
  CHECK(sum(ws, &WorkerStats::slowed_wakeups) >= 1);
  CHECK(slow_busy_ns(s, 1e9) == 0);  // no work ran slowed
  for (const auto& w : base.sim->engine().worker_stats()) CHECK(w.wait_slowed_ns == 0);
}

TEST_CASE("Sim.Slack.ARaiseThatTakesTimeSlowsTheFirstWork", "[sim][slack]") {
  // With a 1 us transition latency the raise at a wake-up lands 1 us into the
  // stolen task, which runs at half speed until then: later than baseline.
  // slack's cost test is off here (a model without idle power): it would
  // hold these waits (next case).
  Fib2Case base("baseline");
  base.opt.profile.transition_latency_s = 1e-6;
  const SimResult b = base.run();
  Fib2Case slack("slack");
  slack.opt.profile.transition_latency_s = 1e-6;
  slack.opt.engine.slack_dwell_ns = 2000;
  slack.opt.engine.cost = CostModel({8, 2}, 10, 1.0);
  const SimResult s = slack.run();
  CHECK(slow_busy_ns(s, 1e9) > 0);
  CHECK(s.makespan_ns > b.makespan_ns);
}

TEST_CASE("Sim.Slack.CostTestHoldsWaitsTooShortToPayForTheirRaise", "[sim][slack]") {
  // The same run with slack's cost test (the profile's powers): among 2
  // workers, on the critical path, the raise costs 2 W x 1 us - 8 W x 0.5 us
  // + (10 + 3) W x 0.5 us + (2 x 8 + 10) W x 0.5 us = 17.5 uJ, a lowered wait
  // saves 3 - 1 = 2 W: lowering pays only after 1 us + 8.75 us of waiting
  // (1 us + 3.5 us where both workers share the lost work), and no wait of
  // this 16 us run gets there. The run is baseline's.
  Fib2Case base("baseline");
  base.opt.profile.transition_latency_s = 1e-6;
  const SimResult b = base.run();
  Fib2Case slack("slack");
  slack.opt.profile.transition_latency_s = 1e-6;
  slack.opt.engine.slack_dwell_ns = 2000;
  const SimResult s = slack.run();
  REQUIRE(slack.sim->engine().slack_cost().enabled());
  SlackContext critical;
  critical.workers = 2;
  CHECK(slack.sim->engine().slack_cost().lower_after_s(0, critical) == Approx(9.75e-6));
  CHECK(slow_busy_ns(s, 1e9) == 0);
  CHECK(s.makespan_ns == b.makespan_ns);
  CHECK(sum(slack.sim->engine().worker_stats(), &WorkerStats::slowed_wakeups) == 0);
}

TEST_CASE("Sim.Slack.DwellLongerThanEveryWaitChangesNothing", "[sim][slack]") {
  Fib2Case base("baseline");
  const SimResult b = base.run();
  Fib2Case slack("slack");
  slack.opt.engine.slack_dwell_ns = 1'000'000;  // 1 ms: longer than the whole run
  const SimResult s = slack.run();
  CHECK(s.makespan_ns == b.makespan_ns);
  CHECK(s.energy_j == Approx(b.energy_j));
  CHECK(sum(slack.sim->engine().worker_stats(), &WorkerStats::slowed_wakeups) == 0);
}

TEST_CASE("Sim.Guard.HoldsTheThiefWhereTheUncoreMakesSlowingCost", "[sim][guard]") {
  // two_level_profile: 8 W at 2 GHz, 2 W at 1 GHz, uncore 10 W, beta 1. With
  // 2 workers: (2 + 5) x 2 / (8 + 5) = 1.08 (EDP ratio 2.08): the guard holds the thief that
  // hermes slows (Sim.Timeline.WorkpathTemposFollowTheSteal: 8 us at 1 GHz).
  Fib2Case hermes("hermes");
  const SimResult h = hermes.run();
  CHECK(slow_busy_ns(h, 1e9) > 0);
  Fib2Case guarded("hermes+guarded");
  const SimResult g = guarded.run();
  CHECK(slow_busy_ns(g, 1e9) == 0);
  CHECK(g.makespan_ns <= h.makespan_ns);
  CHECK(sum(guarded.sim->engine().worker_stats(), &WorkerStats::guard_holds) >= 1);
  // Without the uncore: 2 x 2 / 8 = 0.5 of the energy for twice the time,
  // EDP ratio 1.5 (docs/slack.md "The cost guard"): held too.
  Fib2Case free_uncore("hermes+guarded");
  free_uncore.opt.profile.uncore_w = 0;
  CHECK(slow_busy_ns(free_uncore.run(), 1e9) == 0);
  // Work 20 % core-bound, no uncore: 2 x 1.2 / 8 = 0.3 of the energy for
  // 1.2x the time, EDP ratio 0.5: slowing pays, the guard lets hermes be.
  Fib2Case light("hermes+guarded", ":beta=0.2");
  Fib2Case light_hermes("hermes", ":beta=0.2");
  for (Fib2Case* c : {&light, &light_hermes}) {
    c->opt.profile.uncore_w = 0;
    c->opt.profile.beta = 0.2;
  }
  const SimResult l = light.run();
  const SimResult lh = light_hermes.run();
  CHECK(slow_busy_ns(lh, 1e9) > 0);
  CHECK(slow_busy_ns(l, 1e9) == slow_busy_ns(lh, 1e9));
  CHECK(l.makespan_ns == lh.makespan_ns);
}

TEST_CASE("Sim.Slack.EcoOnAWiderDag", "[sim][slack][guard]") {
  // fib(12) on 8 workers: eco runs, completes every task, and its waiting
  // workers are lowered.
  const MachineProfile p = two_level_profile(8);
  const Program prog = program("fib:12:node=2us:leaf=20us", 2e9);
  SimOptions o = options(p, 8, "eco");
  o.engine.slack_dwell_ns = 5000;
  Simulation s(o, prog);
  const SimResult& r = s.run();
  CHECK(r.tasks > 0);
  const auto ws = s.engine().worker_stats();
  CHECK(sum(ws, &WorkerStats::tasks_completed) == r.tasks);
  CHECK(sum(ws, &WorkerStats::wait_slowed_ns) > 0);
}
