// hermes under the DVFS emulator: a thief is slowed ([HERMES] Fig. 5, thief
// procrastination: one tempo below its victim) until its victim goes idle
// (immediacy relay), so its busy time is at a slower tempo level and the
// emulator really burned extra time on it. Results unchanged.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>

#include "fib.hpp"
#include "ground_truth.hpp"
#include "rubato/tbb/task_group.hpp"

namespace {

void spin_for(std::chrono::milliseconds d) {
  const auto end = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < end) {
  }
}

}  // namespace

TEST_CASE("Tbb.Tempo.HermesEmulatedSlowsThieves", "[tbb]") {
  const int threads = GENERATE(2, 4);
  INFO(threads << " threads");
  // A profile whose emulated clock domains hold one worker each among the first
  // four (fx-8150: 8 cores, 2 per domain; workers are dealt round-robin): in a
  // shared domain the fastest member's tempo would hide the thief's.
  const rubato::Environment env = rubato::test::quiet_env(
      {{"RUBATO_POLICY", "hermes"}, {"RUBATO_BACKEND", "emulated"}, {"RUBATO_PROFILE", "fx-8150"}});
  rubato::test::Rendezvous meet(2);  // the spawned task is certainly stolen
  std::atomic<bool> thief_done{false};
  long a = 0, b = 0;
  const rubato::Report r = rubato::test::run_observed(threads, env, [&] {
    const int spawner = rubato::test::this_worker();
    rubato::tbb::task_group g;
    auto task = [&](long& out) {
      meet.arrive();
      if (rubato::test::this_worker() != spawner) {
        // The thief: a task without pushes (which would raise its tempo,
        // workload sensitivity), ending while its victim still works (so no
        // relay has sped it up yet).
        spin_for(std::chrono::milliseconds(20));
        out = 1;
        thief_done = true;
      } else {
        while (!thief_done) spin_for(std::chrono::milliseconds(1));
        spin_for(std::chrono::milliseconds(50));  // the thief's task has ended by now
        out = rubato::test::fib<rubato::tbb::task_group>(18);
      }
    };
    // One task spawned, the other part run inline by the spawner: with two
    // spawned, two other workers (4 threads) could take both while the
    // spawner is off the CPU, leaving no victim to run fib and no thief
    // ending before its victim.
    g.run([&] { task(a); });
    task(b);
    g.wait();
  });
  REQUIRE(meet.arrived() == 2);
  CHECK(a + b == 2584 + 1);
  CHECK(r.backend == "emulated");
  CHECK(r.policy == "hermes");
  REQUIRE(r.frequencies_hz.size() >= 2);
  for (const auto& d : r.domains) CHECK(d.workers.size() == 1);  // the premise above
  const auto t = rubato::test::totals(r);
  REQUIRE(t.steals > 0);
  CHECK(t.completed == t.pushes);
  double thief_slow_busy = 0;
  double thief_delay = 0;
  for (const auto& w : r.workers) {
    if (w.steals == 0) continue;
    for (std::size_t l = 1; l < w.busy_s_at_level.size(); ++l) thief_slow_busy += w.busy_s_at_level[l];
    thief_delay += w.emulated_delay_s;
  }
  CHECK(thief_slow_busy >= 0.015);  // at least most of the 20 ms segment
  CHECK(thief_delay > 0);
}

// slack (rubato's own, beyond the papers) through the drop-ins. The main thread computes alone
// between task_group runs (serial work, never lowered) while the other
// worker waits in oneTBB's dispatch loop or outside the arena: lowered after
// the dwell, raised when it steals again. Results unchanged.
TEST_CASE("Tbb.Tempo.SlackLowersTheWaitingWorkerNotTheSerialOne", "[tbb][slack]") {
  // Serial phases far longer than the task_group runs (small: fib(10), a few
  // ms even under TSan), so that the main thread's waits in g.wait() (longer
  // on a loaded machine) stay well below its serial time, which is work.
  constexpr int kRounds = 4, kSerialMs = 200;
  const rubato::Environment env = rubato::test::quiet_env(
      {{"RUBATO_POLICY", "slack"}, {"RUBATO_BACKEND", "emulated"}, {"RUBATO_PROFILE", "opteron-6378"}});
  int main_worker = -1;
  long total = 0;
  const rubato::Report r = rubato::test::run_observed(2, env, [&] {
    main_worker = rubato::test::this_worker();
    for (int round = 0; round < kRounds; ++round) {
      spin_for(std::chrono::milliseconds(kSerialMs));  // serial work
      rubato::test::Rendezvous meet(2);                // the other worker certainly takes one task
      long a = 0, b = 0;
      rubato::tbb::task_group g;
      g.run([&] {
        meet.arrive();
        a = rubato::test::fib<rubato::tbb::task_group>(10);
      });
      g.run([&] {
        meet.arrive();
        b = rubato::test::fib<rubato::tbb::task_group>(10);
      });
      g.wait();
      total += a + b;
    }
  });
  CHECK(total == kRounds * 2 * 55);
  CHECK(r.policy == "slack");
  REQUIRE(r.workers.size() == 2);
  const double serial_s = kRounds * kSerialMs * 1e-3;
  const double worker_serial_s = (kRounds - 1) * kSerialMs * 1e-3;  // the other worker joins at the first run
  for (const auto& w : r.workers) {
    INFO("worker " << w.id << ": wait " << w.wait_s << " s, slowed " << w.wait_slowed_s << " s, wake-ups "
                   << w.slowed_wakeups);
    if (static_cast<int>(w.id) == main_worker) {
      CHECK(w.wait_slowed_s < 0.5 * serial_s);
    } else {
      CHECK(w.wait_slowed_s >= 0.5 * worker_serial_s);
      CHECK(w.slowed_wakeups >= 1);
    }
  }
}
