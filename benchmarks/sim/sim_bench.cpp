// sim_bench: how fast the simulator runs: simulated task
// events (calls into the engine's event API) per second of host time, for
// ~1 M-task DAGs at 2, 16, 64 and 256 workers (host time = CPU time of the
// simulating process); cost per task at several DAG
// sizes (near-linear?); peak RSS of each run (a forked child per run, so each
// figure is that run's own) and the peak number of live frames.
// On Google Benchmark: one benchmark per run, its time the child's CPU time
// (manual time), the figures as counters; rubato's table, from the same
// figures, follows Google Benchmark's. --benchmark_out=FILE --benchmark_out_format=json writes the
// JSON for tooling; --json prints only that JSON.
//
//   sim_bench [--quick] [--json] [Google Benchmark options]
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ctime>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "rubato/sim/dag_spec.hpp"
#include "rubato/sim/simulator.hpp"
#include "rubato/sim/synthetic.hpp"

using namespace rubato;
using namespace rubato::sim;

namespace {

// A machine with enough cores for the largest worker count: the HERMES System A
// shape (2 cores per clock domain, 2.4 / 1.4 GHz, 20 us DVFS latency), power
// numbers irrelevant to speed.
MachineProfile bench_profile(int cores) {
  MachineProfile p;
  p.name = "bench";
  p.cores = cores;
  p.cores_per_domain = 2;
  p.frequencies_hz = {2.4e9, 1.4e9};
  p.core_power = {{2.4e9, 5.4, 2.7}, {1.4e9, 1.8, 0.9}};
  p.uncore_w = 50;
  p.transition_latency_s = 20e-6;
  return p;
}

// CPU time of this (single-threaded) process: on a shared machine, wall time
// would measure the neighbours too.
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct Figures {
  double seconds = 0;
  std::uint64_t engine_events = 0, scheduler_events = 0, tasks = 0, peak_frames = 0;
  long max_rss_kb = 0;
};

Figures run_once(const std::string& dag, std::size_t workers, const char* policy) {
  std::string error;
  const auto spec = parse_dag_spec(dag, error);
  const Program prog = build_synthetic(*spec, 2.4e9, 1.0);
  SimOptions o;
  o.profile = bench_profile(256);
  o.workers = workers;
  o.engine.policy = *parse_policy(policy, error);
  o.engine.ladder = TempoLadder({2.4e9, 1.4e9});
  Simulation s(o, prog);
  const double t0 = cpu_seconds();
  const SimResult& r = s.run();
  Figures f;
  f.seconds = cpu_seconds() - t0;
  f.engine_events = r.engine_events;
  f.scheduler_events = r.scheduler_events;
  f.tasks = r.tasks;
  f.peak_frames = r.peak_live_frames;
  return f;
}

// In a child process, so that its peak RSS is this run's alone.
Figures measure(const std::string& dag, std::size_t workers, const char* policy) {
  int fds[2];
  if (pipe(fds) != 0) return run_once(dag, workers, policy);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const Figures f = run_once(dag, workers, policy);
    const ssize_t n = write(fds[1], &f, sizeof f);
    _exit(n == static_cast<ssize_t>(sizeof f) ? 0 : 1);
  }
  close(fds[1]);
  Figures f;
  const ssize_t n = read(fds[0], &f, sizeof f);
  close(fds[0]);
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  if (n != static_cast<ssize_t>(sizeof f) || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "sim_bench: run %s / %zu workers failed\n", dag.c_str(), workers);
    return Figures{};
  }
  f.max_rss_kb = ru.ru_maxrss;
  return f;
}

// One configuration: a Google Benchmark run of one iteration, timed by the child's CPU time.
struct Config {
  std::string dag;
  std::size_t workers;
  const char* policy;
};

// Each run's configuration and figures, in the order they ran, for rubato's table.
std::vector<std::pair<Config, Figures>> g_measured;

void register_config(const Config& c) {
  const std::string name = c.dag + "/workers:" + std::to_string(c.workers) + "/" + c.policy;
  benchmark::RegisterBenchmark(name.c_str(),
                               [c](benchmark::State& s) {
                                 for (auto _ : s) {
                                   const Figures f = measure(c.dag, c.workers, c.policy);
                                   g_measured.emplace_back(c, f);
                                   s.SetIterationTime(f.seconds);
                                   using benchmark::Counter;
                                   s.counters["tasks"] = Counter(static_cast<double>(f.tasks));
                                   s.counters["engine_events"] = Counter(static_cast<double>(f.engine_events));
                                   s.counters["scheduler_events"] = Counter(static_cast<double>(f.scheduler_events));
                                   s.counters["peak_live_frames"] = Counter(static_cast<double>(f.peak_frames));
                                   s.counters["max_rss_kb"] = Counter(static_cast<double>(f.max_rss_kb));
                                   s.counters["host_s"] = Counter(f.seconds);
                                 }
                               })
      ->Iterations(1)
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, json = false;
  std::vector<char*> args{argv[0]};
  std::string json_flag = "--benchmark_format=json";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    else if (!std::strcmp(argv[i], "--json")) json = true;
    else args.push_back(argv[i]);
  }
  if (json) args.push_back(json_flag.data());
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) {
    std::fprintf(stderr, "usage: sim_bench [--quick] [--json] [Google Benchmark options]\n");
    return 2;
  }
  // The process's own footprint: a one-task DAG; subtract it from the rss figures.
  register_config({"serial:1us", 1, "baseline"});
  // ~1 M tasks each: fib(28) has 1,028,457 calls; a binary loop of 2^19 leaves has 2^20 - 1 nodes.
  const std::vector<std::string> million =
      quick ? std::vector<std::string>{"fib:24:work=50ns"}
            : std::vector<std::string>{"fib:28:work=50ns", "loop:524288:grain=1:iter=200ns"};
  for (const auto& dag : million)
    for (std::size_t w : {2u, 16u, 64u, 256u})
      for (const char* pol : {"baseline", "hermes"}) register_config({dag, w, pol});
  // Scaling in DAG size at 16 workers.
  const std::vector<int> sizes = quick ? std::vector<int>{20, 22, 24} : std::vector<int>{22, 24, 26, 28, 30};
  for (int size : sizes) register_config({"fib:" + std::to_string(size) + ":work=50ns", 16, "hermes"});

  if (json) {
    benchmark::RunSpecifiedBenchmarks();
    return 0;
  }
  benchmark::RunSpecifiedBenchmarks();
  std::printf("\n%-32s %7s %-8s %10s %10s %12s %8s %9s %9s %9s\n", "dag", "workers", "policy", "tasks", "cpu_s",
              "Mevents/s", "ns/task", "sched_ev", "peak_fr", "rss_MB");
  for (const auto& [c, f] : g_measured) {
    const double mev = f.seconds > 0 ? static_cast<double>(f.engine_events) / f.seconds / 1e6 : 0;
    const double ns_task = f.tasks ? f.seconds * 1e9 / static_cast<double>(f.tasks) : 0;
    std::printf("%-32s %7zu %-8s %10llu %10.3f %12.2f %8.1f %9.3g %9llu %9.1f\n", c.dag.c_str(), c.workers, c.policy,
                static_cast<unsigned long long>(f.tasks), f.seconds, mev, ns_task,
                static_cast<double>(f.scheduler_events), static_cast<unsigned long long>(f.peak_frames),
                static_cast<double>(f.max_rss_kb) / 1024.0);
  }
  benchmark::Shutdown();
  return 0;
}
