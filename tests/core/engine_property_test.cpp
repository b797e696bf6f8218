// Random event sequences keep the engine's invariants, for 1..64 workers.
#include <catch2/catch.hpp>

#include <random>
#include <set>

#include "engine_fixture.hpp"

using namespace rubato;
using namespace rubato::test;

namespace {

void check_list_invariants(const Engine& e, std::size_t workers) {
  const ImmediacyList& l = e.immediacy();
  std::set<WorkerId> visited;
  for (WorkerId w = 0; w < workers; ++w) {
    if (!l.linked(w)) {
      REQUIRE(l.prev(w) == kNoWorker);
      REQUIRE(l.next(w) == kNoWorker);
      continue;
    }
    // doubly linked
    if (l.next(w) != kNoWorker) REQUIRE(l.prev(l.next(w)) == w);
    if (l.prev(w) != kNoWorker) REQUIRE(l.next(l.prev(w)) == w);
    if (l.has_predecessor(w)) continue;
    // walk each chain from its head: acyclic, every member linked
    std::size_t steps = 0;
    for (WorkerId x = w; x != kNoWorker; x = l.next(x)) {
      REQUIRE(l.linked(x));
      REQUIRE(visited.insert(x).second);
      REQUIRE(++steps <= workers);
    }
  }
  for (WorkerId w = 0; w < workers; ++w)
    if (l.linked(w)) REQUIRE(visited.count(w) == 1);  // no member outside a chain from a head
}

}  // namespace

TEST_CASE("Engine.Property.RandomEventsKeepInvariants", "[core][engine][property]") {
  const std::size_t workers = GENERATE(1, 2, 3, 8, 17, 64);
  const TempoPolicy policy = GENERATE(TempoPolicy::workpath, TempoPolicy::workload, TempoPolicy::hermes);
  const int levels = GENERATE(2, 3, 5);
  auto o = options_for(policy, levels, workers);
  o.profile_window = 3;
  o.sample_interval_ns = 5;
  EngineFixture f(o);
  Engine& e = f.engine;
  std::mt19937_64 rng(workers * 7919 + static_cast<unsigned>(policy) * 31 + static_cast<unsigned>(levels));
  std::uniform_int_distribution<WorkerId> pick(0, static_cast<WorkerId>(workers - 1));
  std::uniform_int_distribution<int> kind(0, 5);
  for (WorkerId w = 0; w < workers; ++w) e.worker_begin(w);

  for (int step = 0; step < 4000; ++step) {
    f.clock.advance(3);
    const WorkerId w = pick(rng);
    const Level before = e.level(w);
    const bool head = !e.immediacy().has_predecessor(w);
    switch (kind(rng)) {
      case 0: e.push(w); break;
      case 1:
        if (e.depth(w) > 0) {
          e.pop(w);
          // Fig. 5: the head of the immediacy list is never slowed by workload sensitivity.
          if (policy == TempoPolicy::hermes && head) REQUIRE(e.level(w) <= before);
        }
        break;
      case 2: {
        const WorkerId v = pick(rng);
        if (v != w && e.depth(v) > 0) {
          const Level victim_before = e.level(v);
          const bool victim_head = !e.immediacy().has_predecessor(v);
          e.steal(w, v);
          if (policy == TempoPolicy::hermes && victim_head) REQUIRE(e.level(v) <= victim_before);
          if (policy != TempoPolicy::workload) REQUIRE(e.immediacy().prev(w) == v);
        }
        break;
      }
      case 3:
        e.idle(w);
        REQUIRE_FALSE(e.immediacy().linked(w));  // an idle worker is not in the list
        REQUIRE(e.level(w) == before);           // ... and keeps its tempo
        break;
      case 4: e.task_begin(w); break;
      case 5: e.task_end(w); break;
    }
    for (WorkerId x = 0; x < workers; ++x) {
      REQUIRE(e.level(x) >= 0);
      REQUIRE(e.level(x) < e.ladder().levels());
    }
    if (step % 64 == 0) check_list_invariants(e, workers);
  }
  check_list_invariants(e, workers);

  // Accounting: every steal is someone's stolen-from.
  std::uint64_t steals = 0, stolen = 0;
  for (const auto& s : e.worker_stats()) {
    steals += s.steals;
    stolen += s.stolen_from;
    REQUIRE(static_cast<std::int64_t>(s.pushes) - static_cast<std::int64_t>(s.pops) -
                static_cast<std::int64_t>(s.stolen_from) >=
            0);
  }
  REQUIRE(steals == stolen);
}
