// Emulator accuracy: requested vs achieved slowdown of a CPU-bound
// loop at three frequencies below f_max, through the real engine + emulator.
// "achieved" compares median segment times (robust to preemption on a shared
// machine), "cpu" median thread CPU time per repetition (immune to it: work
// and burn are both busy), "wall" median whole-repetition wall time.
// With more threads than cores, "wall" is the figure to watch:
// every thread is descheduled part of the time, segment times include those
// waits, and the emulator must stretch only the CPU time a segment ran.
//   emulator_accuracy [fmax-GHz (2.4)] [segment-iterations (200000)] [segments (50)] [reps (5)] [threads (1)]
#include <cstdio>
#include <cstdlib>
#include <initializer_list>

#include "rubato/power/emulator/emulator_accuracy.hpp"

int main(int argc, char** argv) {
  const double fmax = (argc > 1 ? std::atof(argv[1]) : 2.4) * 1e9;
  const auto iterations = static_cast<std::uint64_t>(argc > 2 ? std::atoll(argv[2]) : 200'000);
  const int segments = argc > 3 ? std::atoi(argv[3]) : 50;
  const int reps = argc > 4 ? std::atoi(argv[4]) : 5;
  const int threads = argc > 5 ? std::atoi(argv[5]) : 1;
  std::printf("threads %d\n", threads);
  std::printf("%-6s %-5s %-9s %-9s %-8s %-7s %-8s %-7s %-8s %-9s %-9s\n", "f GHz", "beta", "requested", "achieved",
              "error", "cpu", "error", "wall", "error", "ref/rep s", "emu/rep s");
  for (double beta : {1.0, 0.5}) {
    for (double ratio : {0.5, 2.0 / 3.0, 5.0 / 6.0}) {
      const double hz = fmax * ratio;
      const auto m = rubato::measure_emulated_slowdown(hz, fmax, beta, iterations, segments, reps, threads);
      auto error = [&](double x) { return 100.0 * (x - m.requested) / m.requested; };
      std::printf("%-6.3g %-5.2f %-9.4f %-9.4f %+6.2f%%  %-7.4f %+6.2f%%  %-7.4f %+6.2f%%  %-9.4f %-9.4f\n", hz / 1e9,
                  beta, m.requested, m.achieved, error(m.achieved), m.achieved_cpu, error(m.achieved_cpu),
                  m.achieved_total, error(m.achieved_total), m.reference_s, m.emulated_s);
    }
  }
  return 0;
}
