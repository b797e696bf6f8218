// Synthesised metrics of the affinity meta-scheduler ([META] §IV): from one
// interval's raw counts per thread, each thread's and each core's utilisation,
// shared-cache miss rate and FP intensity. Pure math: power/ counter sources
// (PAPI, likwid, /proc, replay) fill the samples.
//
//   utilisation  = busy cycles ÷ elapsed cycles at the core's current frequency
//                  (§IV.A), or busy time ÷ elapsed time when only /proc times
//                  exist; a core's is the sum over its threads, at most 1.
//   miss rate    = shared-cache misses ÷ instructions (§IV.B: per-core miss rates
//                  of the shared cache; per instruction so that a core running
//                  faster or longer is not mistaken for a contended one).
//   FP intensity = floating-point operations ÷ instructions (§IV.C).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace rubato::affinity {

// What one thread (or, across processes, one process) did during an interval.
struct ThreadSample {
  std::uint64_t id = 0;
  int core = 0;                       // the core it is bound to
  double busy_s = 0;                  // CPU time in the interval (/proc utime + stime)
  std::optional<double> busy_cycles;  // unhalted core cycles
  std::optional<double> llc_misses;   // shared (last-level) cache misses
  std::optional<double> instructions;
  std::optional<double> fp_ops;
};

struct IntervalSample {
  double elapsed_s = 0;
  std::vector<double> core_frequency_hz;  // one per core, the current frequency; 0 = unknown
  std::vector<ThreadSample> threads;      // threads bound outside [0, cores) are ignored
};

struct ThreadMetrics {
  std::uint64_t id = 0;
  int core = 0;
  double utilisation = 0;           // of its core, in [0, 1]
  std::optional<double> miss_rate;  // misses per instruction
  std::optional<double> misses_per_s;
  std::optional<double> fp_intensity;  // FP ops per instruction
};

struct CoreMetrics {
  double utilisation = 0;           // in [0, 1]
  std::optional<double> miss_rate;  // over the core's threads that report misses and instructions
  std::optional<double> fp_intensity;
  double frequency_hz = 0;
  int threads = 0;
};

struct IntervalMetrics {
  std::vector<CoreMetrics> cores;
  std::vector<ThreadMetrics> threads;
};

IntervalMetrics synthesise(const IntervalSample& sample);

}  // namespace rubato::affinity
