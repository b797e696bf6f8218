// The loads `rubato calibrate` measures (docs/calibrate.md): one thread per
// CPU, pinned there with sched_setaffinity, that runs a compute loop (an
// integer and floating-point dependency chain: core-bound work), a spin-wait
// loop (the pause loop a waiting OpenMP or oneTBB worker runs), or blocks
// (the CPU is idle and may sleep). Also the timing loop that sees when a CPU
// starts running at a new frequency.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace rubato {

enum class LoadKind { idle, compute, spin };
const char* to_string(LoadKind k) noexcept;  // "idle" | "compute" | "spin"

// One step of the compute loop: `iterations` rounds of the chain; returns the
// chain's value (so the work cannot be optimised away).
std::uint64_t compute_chunk(std::uint64_t seed, std::uint64_t iterations) noexcept;
// One spin-wait step: `n` pause instructions (yield on ARM).
void spin_pause(int n) noexcept;

class LoadThreads {
 public:
  LoadThreads();
  ~LoadThreads();
  LoadThreads(const LoadThreads&) = delete;
  LoadThreads& operator=(const LoadThreads&) = delete;

  // One thread per CPU in `cpus`, pinned, idle. false + why (none started).
  bool start(const std::vector<int>& cpus, std::string& why);
  // The first `k` threads run `kind`, the others block.
  void set(std::size_t k, LoadKind kind);
  // CPU time each thread has used so far, s (its thread CPU clock).
  std::vector<double> cpu_seconds() const;
  void stop() noexcept;

 private:
  struct Worker;
  void run(Worker& w);
  std::vector<std::unique_ptr<Worker>> workers_;
};

// A transition seen by the timing loop: `seconds` from just before `write`
// until the loop on `cpu` ran at (at least halfway to) `to_rate`, its
// iterations per second at the new frequency; < 0 when not seen within
// `timeout_s` or when the write failed.
double timed_transition(int cpu, const std::function<bool()>& write, double from_rate, double to_rate,
                        double timeout_s);
// The timing loop's rate on `cpu` over `seconds` of wall time, in iterations per
// second of the thread's CPU time (immune to preemption, not to frequency).
double loop_rate(int cpu, double seconds);
// Whether the timing loop follows the frequency: in every alternating pair of
// windows (at `fast_hz`, then at `slow_hz`) the loop ran at least half the
// frequency ratio faster. One pair is not enough on a shared host, where a
// window can run 1.5x slower than the next with the speed unchanged.
bool loop_follows_frequency(const std::vector<double>& fast_rates, const std::vector<double>& slow_rates,
                            double fast_hz, double slow_hz);

}  // namespace rubato
