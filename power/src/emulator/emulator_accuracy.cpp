#include "rubato/power/emulator/emulator_accuracy.hpp"

#include <algorithm>
#include <atomic>
#include <time.h>

#include <chrono>
#include <thread>
#include <vector>

#include "rubato/core/base/clock.hpp"
#include "rubato/core/tempo/engine.hpp"
#include "rubato/power/emulator/emulated_frequency.hpp"
#include "calibrate/sample_median.hpp"

namespace rubato {
namespace {

// Keeps the loop from being optimised away; written by every measuring thread.
std::atomic<std::uint64_t> g_sink{0};

// `iterations` dependent multiply-adds. The empty asm makes x opaque to the
// optimiser at each step: without it clang folds runs of the recurrence into
// fewer steps, or the whole loop away, and the "work" takes no time at all.
void cpu_bound(std::uint64_t iterations) {
  std::uint64_t x = 88172645463325252ull;
  for (std::uint64_t i = 0; i < iterations; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    asm volatile("" : "+r"(x));
  }
  g_sink.store(x, std::memory_order_relaxed);
}

double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// One repetition: `segments` task segments on each of `threads` workers of an
// engine whose ladder is {hz}; the emulator burns after each (nothing when
// hz == max_hz). Returns the repetition's wall time.
double run_segments(double hz, double max_hz, double beta, std::uint64_t iterations, int segments, int threads,
                    std::vector<double>& segment_s, std::vector<double>& cpu_s, EmulatorAccount& account) {
  SteadyClock clock;
  EmulatedFrequency emulator(beta, max_hz);
  EngineOptions o;
  o.policy.tempo = TempoPolicy::fixed;
  o.policy.fixed_hz = hz;
  o.max_workers = static_cast<std::size_t>(threads);
  Engine engine(o, clock, emulator);
  DomainPlan plan;
  for (int t = 0; t < threads; ++t) plan.cpus_of_domain.push_back({t});
  plan.ladder = engine.ladder();
  plan.max_workers = static_cast<std::size_t>(threads);
  std::string why;
  emulator.save(plan, why);
  std::vector<std::vector<double>> segments_of(static_cast<std::size_t>(threads));
  std::vector<double> cpu_of(static_cast<std::size_t>(threads), 0.0);
  for (auto& times : segments_of) times.reserve(static_cast<std::size_t>(segments));
  auto worker = [&](int t) {
    const auto w = static_cast<WorkerId>(t);
    engine.worker_begin(w);
    const double cpu_start = thread_cpu_s();
    for (int s = 0; s < segments; ++s) {
      const auto t0 = std::chrono::steady_clock::now();
      engine.task_begin(w);
      cpu_bound(iterations);
      engine.task_end(w);
      segments_of[static_cast<std::size_t>(t)].push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    cpu_of[static_cast<std::size_t>(t)] = thread_cpu_s() - cpu_start;
  };
  const auto start = std::chrono::steady_clock::now();
  if (threads <= 1) {
    worker(0);
  } else {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back(worker, t);
    for (auto& th : pool) th.join();
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double cpu = 0;
  for (std::size_t t = 0; t < segments_of.size(); ++t) {
    segment_s.insert(segment_s.end(), segments_of[t].begin(), segments_of[t].end());
    cpu += cpu_of[t];
  }
  cpu_s.push_back(cpu);
  const EmulatorAccount a = emulator.account();
  account.segments += a.segments;
  account.asked_ns += a.asked_ns;
  account.own_ns += a.own_ns;
  account.unpaid_ns += a.unpaid_ns;
  account.cpu_clock_reads += a.cpu_clock_reads;
  return wall;
}

}  // namespace

SlowdownMeasurement measure_emulated_slowdown(double hz, double max_hz, double beta, std::uint64_t iterations,
                                              int segments, int repetitions, int threads) {
  threads = std::max(1, threads);
  std::vector<double> reference, emulated, reference_segments, emulated_segments, reference_cpu, emulated_cpu;
  EmulatorAccount none, account;
  for (int r = 0; r < std::max(1, repetitions); ++r) {
    reference.push_back(
        run_segments(max_hz, max_hz, beta, iterations, segments, threads, reference_segments, reference_cpu, none));
    emulated.push_back(
        run_segments(hz, max_hz, beta, iterations, segments, threads, emulated_segments, emulated_cpu, account));
  }
  SlowdownMeasurement m;
  m.requested = 1.0 + beta * (max_hz / hz - 1.0);
  m.reference_s = median_of(reference);
  m.emulated_s = median_of(emulated);
  std::vector<double> ratios;  // each repetition against the reference run just before it: load drifts cancel
  for (std::size_t r = 0; r < reference.size(); ++r) ratios.push_back(emulated[r] / reference[r]);
  m.achieved_total = median_of(ratios);
  m.reference_segment_s = median_of(reference_segments);
  m.achieved = median_of(emulated_segments) / m.reference_segment_s;
  m.achieved_cpu = median_of(emulated_cpu) / median_of(reference_cpu);
  if (account.segments > 0) {
    const auto n = static_cast<double>(account.segments);
    m.own_ns_per_segment = static_cast<double>(account.own_ns) / n;
    m.cpu_reads_per_segment = static_cast<double>(account.cpu_clock_reads) / n;
  }
  if (account.asked_ns > 0)
    m.unpaid_share = static_cast<double>(account.unpaid_ns) / static_cast<double>(account.asked_ns);
  return m;
}

std::uint64_t loop_iterations_for_ns(std::uint64_t ns) {
  constexpr std::uint64_t kProbe = 1'000'000;
  double best = 1e9;
  for (int round = 0; round < 5; ++round) {
    const double start = thread_cpu_s();
    cpu_bound(kProbe);
    best = std::min(best, thread_cpu_s() - start);
  }
  const double per_iteration_s = std::max(best, 1e-9) / static_cast<double>(kProbe);
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(static_cast<double>(ns) * 1e-9 / per_iteration_s));
}

}  // namespace rubato
