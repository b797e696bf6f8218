// engine_bench: nanoseconds per engine event, as a front-end would pay them.
//   push/pop   — the per-task hot path (owner-only state)
//   steal/idle — the rare path that takes the immediacy-list lock
// Each figure is the median of several runs, for 1 and 2 threads (each thread
// its own worker). Prints a table; `--json` for scripts.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "rubato/core/engine.hpp"

using namespace rubato;

namespace {

constexpr int kRuns = 7;

EngineOptions options(TempoPolicy p, unsigned workers) {
  EngineOptions o;
  o.policy.tempo = p;
  o.ladder = TempoLadder({2.4e9, 1.4e9});
  o.max_workers = std::max(2u, workers);
  return o;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// One run: every thread does `iters` rounds of its operation; returns ns/event.
template <class Body>
double run_threads(unsigned threads, long iters, int events_per_iter, Body body) {
  std::vector<std::thread> pool;
  const auto t0 = std::chrono::steady_clock::now();
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back([&, t] { body(t, iters); });
  for (auto& th : pool) th.join();
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  return ns / (static_cast<double>(iters) * events_per_iter);  // per event, per thread (threads run in parallel)
}

double bench_push_pop(TempoPolicy p, unsigned threads) {
  std::vector<double> runs;
  for (int r = 0; r < kRuns; ++r) {
    SteadyClock clock;
    NullActuator act;
    Engine e(options(p, threads), clock, act);
    runs.push_back(run_threads(threads, 2'000'000, 2, [&](unsigned w, long iters) {
      e.worker_begin(w);
      for (long i = 0; i < iters; ++i) {
        e.push(w);
        e.pop(w);
      }
    }));
  }
  return median(runs);
}

double bench_steal_idle(TempoPolicy p, unsigned threads) {
  std::vector<double> runs;
  for (int r = 0; r < kRuns; ++r) {
    SteadyClock clock;
    NullActuator act;
    Engine e(options(p, threads == 1 ? 2 : threads), clock, act);
    runs.push_back(run_threads(threads, 300'000, 2, [&](unsigned w, long iters) {
      e.worker_begin(w);
      const WorkerId victim = (w + 1) % std::max(2u, threads);
      for (long i = 0; i < iters; ++i) {
        e.steal(w, victim);
        e.idle(w);
      }
    }));
  }
  return median(runs);
}

double bench_task_segment(TempoPolicy p, unsigned threads) {
  std::vector<double> runs;
  for (int r = 0; r < kRuns; ++r) {
    SteadyClock clock;
    NullActuator act;
    Engine e(options(p, threads), clock, act);
    runs.push_back(run_threads(threads, 2'000'000, 2, [&](unsigned w, long iters) {
      e.worker_begin(w);
      for (long i = 0; i < iters; ++i) {
        e.task_begin(w);
        e.task_end(w);
      }
    }));
  }
  return median(runs);
}

}  // namespace

int main(int argc, char** argv) {
  const bool json = argc > 1 && !std::strcmp(argv[1], "--json");
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  if (!json) std::printf("engine_bench: ns per event, median of %d runs (%u hardware threads)\n", kRuns, hw);
  if (!json) std::printf("%-9s %-8s %12s %12s %14s\n", "policy", "threads", "push/pop", "steal/idle", "task begin/end");
  if (json) std::printf("[");
  bool first = true;
  for (TempoPolicy p : {TempoPolicy::baseline, TempoPolicy::hermes}) {
    for (unsigned threads : {1u, 2u}) {
      if (threads > hw) continue;
      const double pp = bench_push_pop(p, threads);
      const double si = bench_steal_idle(p, threads);
      const double tb = bench_task_segment(p, threads);
      if (json) {
        std::printf("%s{\"policy\":\"%s\",\"threads\":%u,\"push_pop_ns\":%.2f,\"steal_idle_ns\":%.2f,\"task_ns\":%.2f}",
                    first ? "" : ",", std::string(to_string(p)).c_str(), threads, pp, si, tb);
      } else {
        std::printf("%-9s %-8u %12.1f %12.1f %14.1f\n", std::string(to_string(p)).c_str(), threads, pp, si, tb);
      }
      first = false;
    }
  }
  if (json) std::printf("]\n");
  if (!json) std::printf("goals: push/pop <= 20 ns, steal/idle <= 200 ns\n");
  return 0;
}
