// EFS starvation freedom ([EFS] §4.3, Eqs. 21–24). EFS may hold back a
// runnable thread (a parked worker, a paused process) while the bus is
// saturated; these rules bound how long. Times in seconds.
//
// A thread is starved when (1) its vruntime is the least among the threads
// waiting on its core (CFS would pick it next) and (2a) max vruntime on the core
// − its vruntime > t_local, or (2b) it has not run for more than t_global.
// The longest starved thread runs at once, whatever the resource usage, for a
// timeslice min(t_period(nc), max vruntime on the core − its vruntime).
//
// Reconstructed from the garbled PDF text:
//   Eq. 21  t_period(nc) = 18 ms if nc < 5, 4 ms · nc if nc ≥ 5   (nc: threads on the core)
//   Eq. 22  t_local  = cl · t_period(nc)
//   Eq. 23  t_global = cg · t_period(np)                           (np: threads on the chip)
//   Eq. 24  t_max    = np · t_period(np)                           (longest wait, all starved)
//   The paper runs cl = 20, cg = 5.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace rubato::efs {

struct StarvationParams {
  double latency_s = 0.018;      // Eq. 21: the period below `latency_threads`
  double granularity_s = 0.004;  // Eq. 21: per-thread period from `latency_threads` on
  int latency_threads = 5;
  double cl = 20;  // Eq. 22
  double cg = 5;   // Eq. 23
};

double period_s(int threads, const StarvationParams& p = {}) noexcept;                 // Eq. 21
double local_threshold_s(int core_threads, const StarvationParams& p = {}) noexcept;   // Eq. 22
double global_threshold_s(int chip_threads, const StarvationParams& p = {}) noexcept;  // Eq. 23
double max_wait_s(int chip_threads, const StarvationParams& p = {}) noexcept;          // Eq. 24

// One runnable thread as the scheduler sees it. For rubato's actuators a "core"
// is whatever queue the thread waits in (a worker is its own queue; processes of
// a --mix share one) and vruntime is the CPU time it has received.
struct RunnableThread {
  std::uint64_t id = 0;
  int core = 0;
  double vruntime_s = 0;
  double last_ran_s = 0;  // when it last stopped running (or became runnable)
  bool running = false;
};

struct StarvationVerdict {
  bool candidate = false;  // (1): least vruntime among the threads waiting on its core
  bool local = false;      // (2a)
  bool global = false;     // (2b)
  bool starved() const noexcept { return candidate && (local || global); }
};

// nc and np are counted from `threads` (all runnable threads of the chip).
StarvationVerdict starvation_of(std::span<const RunnableThread> threads, std::size_t index, double now_s,
                                const StarvationParams& p = {});
// Indices of the starved threads.
std::vector<std::size_t> starved_threads(std::span<const RunnableThread> threads, double now_s,
                                         const StarvationParams& p = {});
// The starved thread that has not run for the longest time.
std::optional<std::size_t> longest_starved(std::span<const RunnableThread> threads, double now_s,
                                           const StarvationParams& p = {});
// Its compensating timeslice: min(t_period(nc), max vruntime on its core − its vruntime).
// 0 when no thread on its core is ahead of it (e.g. alone in its queue): it then
// just runs its ordinary timeslice.
double starved_timeslice_s(std::span<const RunnableThread> threads, std::size_t index, const StarvationParams& p = {});

}  // namespace rubato::efs
