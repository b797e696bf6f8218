// How closely the emulator's achieved slowdown matches the requested one
// (the emulator's accuracy target: a CPU-bound loop at f_max/2 must take
// 2.0x ± 5%). The same
// measurement backs the tolerant test and benchmarks/emulator.
#pragma once

#include <cstdint>

namespace rubato {

struct SlowdownMeasurement {
  double requested = 0;       // 1 + β·(f_max/f − 1)
  double achieved = 0;        // median segment time at f / median at f_max (robust to preemption)
  double achieved_total = 0;  // median over repetitions of its time at f / at f_max (what a user sees; load-sensitive)
  double achieved_cpu = 0;    // the same in thread CPU time (immune to preemption: work and burn are busy)
  double reference_s = 0;     // median time of one repetition at f_max
  double emulated_s = 0;      // median time of one repetition at f
  double reference_segment_s = 0;  // median segment time at f_max (the task's length, with the engine's events)
  // The emulator's own account at f, over all repetitions (EmulatorAccount):
  double own_ns_per_segment = 0;     // its own time on the worker per stretched segment
  double cpu_reads_per_segment = 0;  // exact thread CPU clock reads (system calls) per segment
  double unpaid_share = 0;           // own time no stretch could absorb, as a share of the stretch asked
};

// Runs `segments` task segments of a CPU-bound loop (`iterations` dependent
// multiply-adds each) through a real Engine whose actuator is the emulator,
// once at f_max and once at `hz`, interleaved `repetitions` times. Each
// segment is timed from task_begin to the return of task_end (work + burn).
// `threads` > 1: that many threads, each a worker (its own clock domain)
// running `segments` segments at once; a repetition's time is the wall time
// until the last one ends, its CPU time the sum over threads. With more
// threads than cores every thread is descheduled part of the time, which the
// emulator must not stretch (it stretches CPU time only): "achieved_total" is then the
// figure to watch, as segment times include waits for a core.
SlowdownMeasurement measure_emulated_slowdown(double hz, double max_hz, double beta, std::uint64_t iterations,
                                              int segments, int repetitions, int threads = 1);

// How many iterations of the measured loop take about `ns` of CPU time on
// this machine (the quickest of a few timings: a preempted one runs longer).
std::uint64_t loop_iterations_for_ns(std::uint64_t ns);

}  // namespace rubato
