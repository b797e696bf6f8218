// engine_bench: nanoseconds per engine event, as a front-end would pay them.
//   push/pop   — the per-task hot path (owner-only state)
//   steal/idle — the rare path that takes the immediacy-list lock
//   task begin/end — a segment with its clock reads
// On Google Benchmark: each figure is the median of 7 repetitions, for 1 and 2
// threads (each thread its own worker of one engine), real time per event and
// thread (the threads run in parallel). Prints Google Benchmark's table, then
// rubato's summary table (the figures README.md cites). Google Benchmark's
// options apply: --benchmark_out=FILE --benchmark_out_format=json writes the
// JSON for tooling; --json prints only that JSON.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "rubato/core/tempo/engine.hpp"

using namespace rubato;

namespace {

constexpr int kRepetitions = 7;
const TempoPolicy kPolicies[] = {TempoPolicy::baseline, TempoPolicy::hermes};

EngineOptions options(TempoPolicy p, unsigned workers) {
  EngineOptions o;
  o.policy.tempo = p;
  o.ladder = TempoLadder({2.4e9, 1.4e9});
  o.max_workers = std::max(2u, workers);
  return o;
}

// One engine per benchmark run, shared by its threads (Setup runs before they start).
struct Shared {
  SteadyClock clock;
  NullActuator actuator;
  std::unique_ptr<Engine> engine;
};
Shared g_shared;

void make_engine(const benchmark::State& s) {
  g_shared.engine = std::make_unique<Engine>(options(kPolicies[s.range(0)], static_cast<unsigned>(s.threads())),
                                             g_shared.clock, g_shared.actuator);
}
void drop_engine(const benchmark::State&) { g_shared.engine.reset(); }

// Every benchmark below does two events per iteration. Google Benchmark's real
// time per iteration divides the run's wall time by the iterations of all its
// threads; rubato's figure is per event on each thread (the threads run in
// parallel, each on its own worker): that time x threads / 2.
constexpr double kEventsPerIteration = 2;

void push_pop(benchmark::State& s) {
  Engine& e = *g_shared.engine;
  const auto w = static_cast<WorkerId>(s.thread_index());
  e.worker_begin(w);
  for (auto _ : s) {
    e.push(w);
    e.pop(w);
  }
}

void steal_idle(benchmark::State& s) {
  Engine& e = *g_shared.engine;
  const auto w = static_cast<WorkerId>(s.thread_index());
  const WorkerId victim = (w + 1) % std::max(2, s.threads());
  e.worker_begin(w);
  for (auto _ : s) {
    e.steal(w, victim);
    e.idle(w);
  }
}

void task_segment(benchmark::State& s) {
  Engine& e = *g_shared.engine;
  const auto w = static_cast<WorkerId>(s.thread_index());
  e.worker_begin(w);
  for (auto _ : s) {
    e.task_begin(w);
    e.task_end(w);
  }
}

void register_all() {
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  using Body = void (*)(benchmark::State&);
  const std::pair<const char*, Body> bodies[] = {
      {"push/pop", push_pop}, {"steal/idle", steal_idle}, {"task begin/end", task_segment}};
  for (const auto& [name, fn] : bodies) {
    auto* b = benchmark::RegisterBenchmark(name, fn)
                  ->ArgName("policy")
                  ->DenseRange(0, 1)
                  ->Setup(make_engine)
                  ->Teardown(drop_engine)
                  ->UseRealTime()
                  ->MinTime(0.05)
                  ->Repetitions(kRepetitions)
                  ->ReportAggregatesOnly(true);
    for (int t : {1, 2})
      if (t <= hw) b->Threads(t);
  }
}

// Google Benchmark's console table, and the medians kept for rubato's own.
class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.run_type != Run::RT_Aggregate || r.aggregate_name != "median") continue;
      const int policy = r.run_name.args.back() - '0';
      medians[{policy, static_cast<int>(r.threads)}][r.run_name.function_name] =
          r.GetAdjustedRealTime() * static_cast<double>(r.threads) / kEventsPerIteration;  // ns: the default unit
    }
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::pair<int, int>, std::map<std::string, double>> medians;  // (policy, threads) -> name -> ns
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> args(argv, argv + argc);
  std::string json_flag = "--benchmark_format=json";
  const bool json = argc > 1 && !std::strcmp(argv[1], "--json");
  if (json) args[1] = json_flag.data();
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 2;
  register_all();
  if (json) {
    benchmark::RunSpecifiedBenchmarks();
    return 0;
  }
  SummaryReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("\nengine_bench: ns per event, median of %d repetitions (%u hardware threads)\n", kRepetitions,
              std::max(1u, std::thread::hardware_concurrency()));
  std::printf("%-9s %-8s %12s %12s %14s\n", "policy", "threads", "push/pop", "steal/idle", "task begin/end");
  for (const auto& [key, figures] : reporter.medians) {
    auto at = [&](const char* name) {
      const auto it = figures.find(name);
      return it == figures.end() ? 0.0 : it->second;
    };
    std::printf("%-9s %-8d %12.1f %12.1f %14.1f\n", std::string(to_string(kPolicies[key.first])).c_str(), key.second,
                at("push/pop"), at("steal/idle"), at("task begin/end"));
  }
  std::printf("goals: push/pop <= 20 ns, steal/idle <= 200 ns\n");
  benchmark::Shutdown();
  return 0;
}
