// A single producer whose work reaches it without a steal: the event sequence
// of an untied producer inside `single` (BOTS sparselu single, 2 threads). The
// producer first steals once as a thief (thief procrastination slows it) and
// leaves the immediacy list at its idle; then the untied producer task resumes
// on it — a resume, not a steal — and it pushes round after round of tasks that
// the other worker steals thousands of times.
//
// [HERMES] §3.2: a worker whose deque reaches the thresholds runs faster; §3.3:
// the head of the immediacy list is never slowed. hermes (and eco, through
// its workload part) must therefore not leave the producer at the slowest
// level. workpath alone has no rule that could raise it (§3.1 raises only by
// the relay, and the producer has no predecessor); the cost guard's victim
// precedence does (docs/slack.md "The cost guard").
#include <catch2/catch.hpp>

#include <string>
#include <string_view>

#include "engine_fixture.hpp"

using namespace rubato;
using namespace rubato::test;

namespace {

constexpr WorkerId kProducer = 0;
constexpr WorkerId kThief = 1;

EngineOptions producer_options(std::string_view policy) {
  EngineOptions o = options_for(TempoPolicy::baseline, 2);
  std::string error;
  const auto spec = parse_policy(policy, error);
  REQUIRE(spec);
  o.policy = *spec;
  o.thresholds = 2;
  o.profile_window = 4;
  o.sample_interval_ns = 10;  // a depth sample at every segment start below
  // Slowing a thief pays in this model (10 W -> 5 W, no uncore, beta 1):
  // the guard lets thief procrastination through, as hermes does.
  o.cost = CostModel{{10, 5}, 0, 1.0};
  return o;
}

void segment(EngineFixture& f, WorkerId w, std::uint64_t ns) {
  f.engine.task_begin(w);
  f.clock.advance(ns);
  f.engine.task_end(w);
}

// The thief steals one task from the producer and runs it.
void steal_one(EngineFixture& f) {
  f.engine.idle(kThief);
  f.engine.steal(kThief, kProducer);
  segment(f, kThief, 10'000);
}

struct ProducerRun {
  Level producer_level_while_deep = -1;  // at the end of the last round's production
  Level thief_level_after_a_steal = -1;  // right after the last steal of that production
};

// The whole sequence; `rounds` rounds of `per_round` tasks each.
ProducerRun run_single_producer(EngineFixture& f, int rounds, int per_round) {
  Engine& e = f.engine;
  e.worker_begin(kProducer);
  e.worker_begin(kThief);
  // The untied producer starts on worker 1 and queues a few tasks, while
  // worker 0 looks for work with an empty deque long enough to complete a
  // profiling window: its mean depth L is 0, and so are its thresholds.
  for (int i = 0; i < 3; ++i) e.push(kThief);
  for (int s = 0; s < 4; ++s) segment(f, kProducer, 20);
  if (e.policy().workload()) REQUIRE(e.worker_stats()[kProducer].thresholds[0] == 0.0);
  // Worker 0's one steal, early: thief procrastination slows it.
  e.idle(kProducer);
  e.steal(kProducer, kThief);
  REQUIRE(e.level(kProducer) == 1);
  segment(f, kProducer, 10'000);
  e.idle(kProducer);  // out of work: it leaves the list at its tempo ([HERMES] §3.4)
  for (int i = 0; i < 2; ++i) {
    e.pop(kThief);
    segment(f, kThief, 10'000);
  }
  e.idle(kThief);

  ProducerRun out;
  for (int r = 0; r < rounds; ++r) {
    // The untied producer resumes on worker 0 (no steal): it creates a round
    // of tasks; the thief steals every other one as they come.
    for (int i = 0; i < per_round; ++i) {
      e.push(kProducer);
      segment(f, kProducer, 1'000);
      if (i % 2 == 1) steal_one(f);
    }
    out.producer_level_while_deep = e.level(kProducer);
    out.thief_level_after_a_steal = e.level(kThief);
    // The producer's taskwait: both drain its deque.
    while (e.depth(kProducer) > 0) {
      e.pop(kProducer);
      segment(f, kProducer, 10'000);
      if (e.depth(kProducer) > 0) steal_one(f);
    }
    e.idle(kProducer);  // some children ran on the thief: idle at the taskwait
    e.idle(kThief);
  }
  return out;
}

double share_at_slowest(const Engine& e, WorkerId w) {
  const WorkerStats st = e.worker_stats()[w];
  REQUIRE(st.busy_ns > 0);
  return static_cast<double>(st.busy_ns_at_level[1]) / static_cast<double>(st.busy_ns);
}

}  // namespace

TEST_CASE("Engine.Producer.HermesRaisesAProducerWhoseWorkCameWithoutASteal", "[core][engine][hermes]") {
  EngineFixture f(producer_options("hermes"));
  const ProducerRun run = run_single_producer(f, 40, 120);
  const WorkerStats producer = f.engine.worker_stats()[kProducer];
  REQUIRE(producer.steals == 1);
  REQUIRE(producer.stolen_from > 2000);
  // Its pushes reach its thresholds ([HERMES] §3.2): it runs fast ...
  CHECK(run.producer_level_while_deep == 0);
  CHECK(share_at_slowest(f.engine, kProducer) < 0.1);
  // ... and its thief, one level below it, slow ([HERMES] §3.1).
  CHECK(run.thief_level_after_a_steal == 1);
}

TEST_CASE("Engine.Producer.EcoRaisesItToo", "[core][engine][guard]") {
  EngineFixture f(producer_options("eco"));
  const ProducerRun run = run_single_producer(f, 10, 120);
  CHECK(run.producer_level_while_deep == 0);
  CHECK(share_at_slowest(f.engine, kProducer) < 0.1);
  CHECK(run.thief_level_after_a_steal == 1);
}

TEST_CASE("Engine.Producer.WorkpathAloneLeavesItAtItsTempo", "[core][engine][workpath]") {
  // What [HERMES] §3.1 allows when work arrives without a steal: the producer
  // keeps the tempo of its early steal, and its thief, whose victim is at the
  // slowest level, keeps its own (DOWN(w, v) does nothing at f_N, §3.4).
  EngineFixture f(producer_options("workpath"));
  const ProducerRun run = run_single_producer(f, 10, 120);
  CHECK(run.producer_level_while_deep == 1);
  CHECK(run.thief_level_after_a_steal == 0);
}

TEST_CASE("Engine.Producer.GuardedWorkpathRaisesAVictimSlowerThanItsThief", "[core][engine][guard]") {
  // The guard's victim precedence: a steal from a victim slower than its
  // thief raises the victim to the thief's tempo before thief procrastination.
  EngineFixture f(producer_options("workpath+guarded"));
  const ProducerRun run = run_single_producer(f, 10, 120);
  CHECK(run.producer_level_while_deep == 0);
  CHECK(share_at_slowest(f.engine, kProducer) < 0.1);
  CHECK(run.thief_level_after_a_steal == 1);
}
