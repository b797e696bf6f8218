// sim_bench: how fast the simulator runs (issue 8 "Measure"): simulated task
// events (calls into the engine's event API) per second of host time, for
// ~1 M-task DAGs at 2, 16, 64 and 256 workers (host time = CPU time of the
// simulating process); cost per task at several DAG
// sizes (near-linear?); peak RSS of each run (a forked child per run, so each
// figure is that run's own) and the peak number of live frames.
//
//   sim_bench [--quick] [--json]
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

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, json = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    else if (!std::strcmp(argv[i], "--json")) json = true;
    else {
      std::fprintf(stderr, "usage: sim_bench [--quick] [--json]\n");
      return 2;
    }
  }
  struct Row {
    std::string dag;
    std::size_t workers;
    const char* policy;
    Figures f;
  };
  std::vector<Row> rows;
  // The process's own footprint: a one-task DAG; subtract it from the rss figures.
  rows.push_back({"serial:1us", 1, "baseline", measure("serial:1us", 1, "baseline")});
  // ~1 M tasks each: fib(28) has 1,028,457 calls; a binary loop of 2^19 leaves has 2^20 - 1 nodes.
  const std::vector<std::string> million = quick ? std::vector<std::string>{"fib:24:work=50ns"}
                                                 : std::vector<std::string>{"fib:28:work=50ns", "loop:524288:grain=1:iter=200ns"};
  for (const auto& dag : million)
    for (std::size_t w : {2u, 16u, 64u, 256u})
      for (const char* pol : {"baseline", "hermes"}) rows.push_back({dag, w, pol, measure(dag, w, pol)});
  // Scaling in DAG size at 16 workers.
  const std::vector<int> sizes = quick ? std::vector<int>{20, 22, 24} : std::vector<int>{22, 24, 26, 28, 30};
  for (int n : sizes) {
    const std::string dag = "fib:" + std::to_string(n) + ":work=50ns";
    rows.push_back({dag, 16, "hermes", measure(dag, 16, "hermes")});
  }

  if (json) std::printf("[\n");
  else
    std::printf("%-32s %7s %-8s %10s %10s %12s %8s %9s %9s %9s\n", "dag", "workers", "policy", "tasks", "cpu_s",
                "Mevents/s", "ns/task", "sched_ev", "peak_fr", "rss_MB");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    const double mev = r.f.seconds > 0 ? static_cast<double>(r.f.engine_events) / r.f.seconds / 1e6 : 0;
    const double ns_task = r.f.tasks ? r.f.seconds * 1e9 / static_cast<double>(r.f.tasks) : 0;
    if (json)
      std::printf("  {\"dag\": \"%s\", \"workers\": %zu, \"policy\": \"%s\", \"tasks\": %llu, \"host_s\": %.4f, "
                  "\"engine_events\": %llu, \"scheduler_events\": %llu, \"mevents_per_s\": %.3f, \"ns_per_task\": %.1f, "
                  "\"peak_live_frames\": %llu, \"max_rss_kb\": %ld}%s\n",
                  r.dag.c_str(), r.workers, r.policy, static_cast<unsigned long long>(r.f.tasks), r.f.seconds,
                  static_cast<unsigned long long>(r.f.engine_events), static_cast<unsigned long long>(r.f.scheduler_events),
                  mev, ns_task, static_cast<unsigned long long>(r.f.peak_frames), r.f.max_rss_kb,
                  i + 1 < rows.size() ? "," : "");
    else
      std::printf("%-32s %7zu %-8s %10llu %10.3f %12.2f %8.1f %9.3g %9llu %9.1f\n", r.dag.c_str(), r.workers, r.policy,
                  static_cast<unsigned long long>(r.f.tasks), r.f.seconds, mev, ns_task,
                  static_cast<double>(r.f.scheduler_events), static_cast<unsigned long long>(r.f.peak_frames),
                  static_cast<double>(r.f.max_rss_kb) / 1024.0);
  }
  if (json) std::printf("]\n");
  return 0;
}
