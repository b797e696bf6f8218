// Many threads fire events at once; built also under TSan (preset tsan).
#include <catch2/catch.hpp>

#include <atomic>
#include <random>
#include <thread>
#include <vector>

#include "engine_fixture.hpp"

using namespace rubato;

TEST_CASE("Engine.Concurrency.ThreadsFiringEvents", "[core][engine][concurrency]") {
  const unsigned threads = GENERATE(8u, 12u);
  const TempoPolicy policy = GENERATE(TempoPolicy::hermes, TempoPolicy::workpath, TempoPolicy::workload);
  auto o = test::options_for(policy, 3, threads);
  o.sample_interval_ns = 1000;
  o.profile_window = 4;
  o.worker_domain.resize(threads);
  for (unsigned w = 0; w < threads; ++w) o.worker_domain[w] = w / 2;  // two workers per clock domain
  SteadyClock clock;
  NullActuator actuator;
  Engine e(o, clock, actuator);

  // Each thread is one worker; it steals only what its victim's counters say
  // is there, like a real deque would allow (races may overdraw: tolerated).
  std::vector<std::atomic<std::int64_t>> available(threads);
  std::vector<std::uint64_t> my_pushes(threads), my_steals(threads);
  std::atomic<bool> go{false};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      std::mt19937 rng(t);
      e.worker_begin(t);
      while (!go.load()) std::this_thread::yield();
      for (int i = 0; i < 20000; ++i) {
        switch (rng() % 4) {
          case 0:
            e.push(t);
            available[t].fetch_add(1);
            ++my_pushes[t];
            break;
          case 1:
            if (available[t].fetch_sub(1) > 0) {
              e.pop(t);
              e.task_begin(t);
              e.task_end(t);
            } else {
              available[t].fetch_add(1);
              e.idle(t);
            }
            break;
          case 2: {
            const unsigned v = rng() % threads;
            if (v != t && available[v].fetch_sub(1) > 0) {
              e.steal(t, v);
              ++my_steals[t];
            } else if (v != t) {
              available[v].fetch_add(1);
            }
            break;
          }
          case 3: e.idle(t); break;
        }
      }
      e.worker_end(t);
    });
  }
  go.store(true);
  for (auto& th : pool) th.join();

  std::uint64_t steals = 0, stolen = 0;
  for (const auto& s : e.worker_stats()) {
    REQUIRE(s.pushes == my_pushes[s.id]);
    REQUIRE(s.steals == my_steals[s.id]);
    steals += s.steals;
    stolen += s.stolen_from;
  }
  CHECK(steals == stolen);
  CHECK(e.dropped_events() == 0);
  for (unsigned w = 0; w < threads; ++w) {
    CHECK(e.level(w) >= 0);
    CHECK(e.level(w) < 3);
  }
}
