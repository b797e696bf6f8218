// Overhead of rubato::tbb::task_group (observer active) against plain
// tbb::task_group, on two programs:
//   fib    recursive fib(n) with a task per call and no cutoff: the worst case,
//          about a microsecond of work per task;
//   coarse `tasks` tasks of about `task-ms` milliseconds of compute each.
// A third variant, floor_task_group.hpp, only counts the exact pushes, pops
// and steals: the least any exact-count drop-in costs. The variants run in
// turn, the first one rotating each round, so that machine load drifts affect
// all alike; prints every run, the medians and their ratios to plain oneTBB,
// the median of the per-round ratios ("paired": it cancels the drift between
// rounds), and the process CPU time: with --threads 1 its difference per task
// is the instrumentation's own cost, which wall time on a shared machine hides
// under other load.
//
//   tbb_overhead [--runs 7] [--fib 30] [--tasks 400] [--task-ms 1] [--threads 0]
//                [--preload /path/librubato_tbb_preload.so]
//
// --preload adds the preload's overhead on the unmodified program: each round
// also runs plain oneTBB in two child processes of this program, one with the
// preload in LD_PRELOAD and one without (the pair differs only in that); each
// child warms up once and times one run of its own. Ratios are preload over
// the child without it.
//
// rubato reads its usual RUBATO_* settings; the report is not written unless
// RUBATO_REPORT is set.
#include <unistd.h>

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_group.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "floor_task_group.hpp"
#include "rubato/tbb.hpp"

namespace {

using rubato::bench::now_s;

double cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Tasks fib(n) spawns: two per call with n >= 2.
double fib_tasks(int n) {
  double calls_prev = 1, calls = 1;  // calls of fib(0), fib(1)
  for (int k = 2; k <= n; ++k) {
    const double next = 1 + calls + calls_prev;
    calls_prev = calls;
    calls = next;
  }
  return calls - 1;
}

template <class Group>
long fib(int n) {
  if (n < 2) return n;
  long a = 0, b = 0;
  Group g;
  g.run([&] { a = fib<Group>(n - 1); });
  g.run([&] { b = fib<Group>(n - 2); });
  g.wait();
  return a + b;
}

template <class Group>
std::uint64_t coarse(int tasks, std::uint64_t steps) {
  std::vector<std::uint64_t> out(static_cast<std::size_t>(tasks));
  Group g;
  for (int i = 0; i < tasks; ++i)
    g.run([&out, i, steps] {
      out[static_cast<std::size_t>(i)] = rubato::bench::churn(steps, static_cast<std::uint64_t>(i) + 1);
    });
  g.wait();
  std::uint64_t x = 0;
  for (auto v : out) x ^= v;
  return x;
}

enum Variant { kPlain, kFloor, kRubato, kVariants };
const char* const kVariantName[kVariants] = {"plain", "floor", "rubato"};

struct Series {
  std::vector<double> wall[kVariants], cpu[kVariants];  // wall and process CPU time per run
};

// One timed run of `work(variant)` per variant, `runs` rounds, the first
// variant rotating from round to round.
template <class Work>
Series measure(int runs, Work work) {
  Series s;
  for (int round = 0; round < runs; ++round) {
    for (int k = 0; k < kVariants; ++k) {
      const auto v = static_cast<Variant>((round + k) % kVariants);
      std::optional<rubato::tbb::observer> obs;
      if (v == kRubato) {
        obs.emplace();
        if (!obs->active()) throw std::runtime_error("rubato did not start (see above)");
      }
      const double t0 = now_s(), c0 = cpu_s();
      work(v);
      s.cpu[v].push_back(cpu_s() - c0);
      s.wall[v].push_back(now_s() - t0);
    }
  }
  return s;
}

// The median of one variant's time over plain oneTBB's, round by round.
double paired_ratio(const std::vector<double>& variant_s, const std::vector<double>& plain_s) {
  std::vector<double> ratios;
  for (std::size_t i = 0; i < variant_s.size() && i < plain_s.size(); ++i)
    if (plain_s[i] > 0) ratios.push_back(variant_s[i] / plain_s[i]);
  return ratios.empty() ? 0 : rubato::bench::median(ratios);
}

void print(const char* name, const Series& s, double tasks) {
  for (int v = 0; v < kVariants; ++v) {
    std::printf("%-7s %-6s:", name, kVariantName[v]);
    for (double t : s.wall[v]) std::printf(" %.4f", t);
    std::printf("\n");
  }
  const double p = rubato::bench::median(s.wall[kPlain]), pc = rubato::bench::median(s.cpu[kPlain]);
  std::printf("%-7s median plain %.4f s; cpu %.4f s\n", name, p, pc);
  for (int v = kFloor; v < kVariants; ++v) {
    const double w = rubato::bench::median(s.wall[v]), c = rubato::bench::median(s.cpu[v]);
    std::printf("%-7s median %-6s %.4f s, ratio %.3f (paired %.3f); cpu %.4f s, %+.0f ns per task (%.0f tasks)\n", name,
                kVariantName[v], w, w / p, paired_ratio(s.wall[v], s.wall[kPlain]), c, (c - pc) / tasks * 1e9, tasks);
  }
}

// --- preload: plain oneTBB in child processes, with and without LD_PRELOAD ---

// A child: one warm-up and one timed run of plain oneTBB; prints "wall cpu result".
int run_child(const std::string& which, int n, int tasks, std::uint64_t steps) {
  auto once = [&] {
    return which == "fib" ? static_cast<std::uint64_t>(fib<tbb::task_group>(n)) : coarse<tbb::task_group>(tasks, steps);
  };
  once();
  const double t0 = now_s(), c0 = cpu_s();
  const std::uint64_t result = once();
  const double wall = now_s() - t0, cpu = cpu_s() - c0;
  std::printf("%.6f %.6f %llu\n", wall, cpu, static_cast<unsigned long long>(result));
  return 0;
}

struct ChildRun {
  double wall = 0, cpu = 0;
  unsigned long long result = 0;
};

ChildRun spawn_child(const std::string& preload, const std::string& which, int n, int tasks, std::uint64_t steps,
                     int threads) {
  const std::string command = (preload.empty() ? std::string() : "LD_PRELOAD='" + preload + "' ") + "/proc/" +
                              std::to_string(getpid()) + "/exe --child-" + which + " 1 --fib " + std::to_string(n) +
                              " --tasks " + std::to_string(tasks) + " --steps " + std::to_string(steps) +
                              " --threads " + std::to_string(threads);
  std::FILE* p = popen(command.c_str(), "r");
  if (!p) throw std::runtime_error("cannot start " + command);
  ChildRun r;
  const int got = std::fscanf(p, "%lf %lf %llu", &r.wall, &r.cpu, &r.result);
  if (pclose(p) != 0 || got != 3) throw std::runtime_error("child failed: " + command);
  return r;
}

void preload_overhead(const std::string& preload, const char* which, int runs, int n, int tasks, std::uint64_t steps,
                      int threads, double per_run_tasks) {
  std::vector<double> wall[2], cpu[2];  // 0: plain child, 1: with the preload
  unsigned long long result[2] = {};
  for (int round = 0; round < runs; ++round)
    for (int k = 0; k < 2; ++k) {
      const int v = (round + k) % 2;
      const ChildRun r = spawn_child(v ? preload : std::string(), which, n, tasks, steps, threads);
      wall[v].push_back(r.wall);
      cpu[v].push_back(r.cpu);
      if (round > 0 && r.result != result[v]) throw std::runtime_error("child results vary");
      result[v] = r.result;
    }
  if (result[0] != result[1]) throw std::runtime_error(std::string(which) + ": results differ with the preload");
  for (int v = 0; v < 2; ++v) {
    std::printf("%-7s %-7s:", which, v ? "preload" : "child");
    for (double t : wall[v]) std::printf(" %.4f", t);
    std::printf("\n");
  }
  const double p = rubato::bench::median(wall[0]), w = rubato::bench::median(wall[1]);
  const double pc = rubato::bench::median(cpu[0]), c = rubato::bench::median(cpu[1]);
  std::printf(
      "%-7s median preload %.4f s, ratio %.3f to plain oneTBB in a child (%.4f s) (paired %.3f); cpu %.4f s, "
      "%+.0f ns per task (%.0f tasks)\n",
      which, w, w / p, p, paired_ratio(wall[1], wall[0]), c, (c - pc) / per_run_tasks * 1e9, per_run_tasks);
}

// A child of --preload (internal options): one workload, under the preload.
int child_main(int argc, char** argv) {
  try {
    const rubato::bench::Args args(argc, argv, {"child-fib", "child-coarse", "fib", "tasks", "steps", "threads"});
    const int threads = static_cast<int>(args.number("threads", 0));
    std::optional<tbb::global_control> limit;
    if (threads > 0) limit.emplace(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
    return run_child(argv[1] + 8, static_cast<int>(args.number("fib", 30)), static_cast<int>(args.number("tasks", 1)),
                     static_cast<std::uint64_t>(args.number("steps", 1)));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tbb_overhead child: %s\n", e.what());
    return 2;
  }
}

// Plain oneTBB, the floor and rubato::tbb's task_group in this process: prints
// their figures and the floor's counts. 1 when their results differ, else 0.
int linked_overhead(int runs, int n, int tasks, std::uint64_t steps) {
  long fib_result[kVariants] = {};
  const Series f = measure(runs, [&](Variant v) {
    if (v == kPlain) fib_result[v] = fib<tbb::task_group>(n);
    if (v == kFloor) fib_result[v] = fib<rubato::bench::floor::task_group>(n);
    if (v == kRubato) fib_result[v] = fib<rubato::tbb::task_group>(n);
  });
  std::uint64_t coarse_result[kVariants] = {};
  const Series c = measure(runs, [&](Variant v) {
    if (v == kPlain) coarse_result[v] = coarse<tbb::task_group>(tasks, steps);
    if (v == kFloor) coarse_result[v] = coarse<rubato::bench::floor::task_group>(tasks, steps);
    if (v == kRubato) coarse_result[v] = coarse<rubato::tbb::task_group>(tasks, steps);
  });
  print("fib", f, fib_tasks(n));
  print("coarse", c, tasks);
  const auto counted = rubato::bench::floor::totals();
  std::printf("floor counts: %lld pushes, %lld pops, %lld steals, %lld completed\n",
              static_cast<long long>(counted.pushes), static_cast<long long>(counted.pops),
              static_cast<long long>(counted.steals), static_cast<long long>(counted.completed));
  for (int v = kFloor; v < kVariants; ++v)
    if (fib_result[v] != fib_result[kPlain] || coarse_result[v] != coarse_result[kPlain]) {
      std::fprintf(stderr, "tbb_overhead: results differ between plain oneTBB and %s\n", kVariantName[v]);
      return 1;
    }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && (!std::strcmp(argv[1], "--child-fib") || !std::strcmp(argv[1], "--child-coarse")))
    return child_main(argc, argv);
  try {
    const rubato::bench::Args args(argc, argv, {"runs", "fib", "tasks", "task-ms", "threads", "preload"});
    const std::string preload = args.text("preload", "");
    const int runs = static_cast<int>(args.number("runs", 7));
    const int n = static_cast<int>(args.number("fib", 30));
    const int tasks = static_cast<int>(args.number("tasks", 400));
    const double task_ms = args.number("task-ms", 1);
    const int threads = static_cast<int>(args.number("threads", 0));
    if (runs < 1 || n < 2 || tasks < 1 || task_ms <= 0 || threads < 0) throw std::invalid_argument("bad option value");

    std::optional<tbb::global_control> limit;
    if (threads > 0) limit.emplace(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
    setenv("RUBATO_REPORT", "", 0);  // no report per run unless asked for
    const std::uint64_t steps = rubato::bench::calibrate_churn(task_ms * 1e-3);
    std::printf("tbb_overhead: %d rounds, fib(%d), coarse %d tasks x %.2f ms (%llu steps), %zu threads\n", runs, n,
                tasks, task_ms, static_cast<unsigned long long>(steps),
                tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism));
    if (const int rc = linked_overhead(runs, n, tasks, steps); rc != 0) return rc;
    if (!preload.empty()) {
      preload_overhead(preload, "fib", runs, n, tasks, steps, threads, fib_tasks(n));
      preload_overhead(preload, "coarse", runs, n, tasks, steps, threads, tasks);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tbb_overhead: %s\n", e.what());
    return 2;
  }
}
