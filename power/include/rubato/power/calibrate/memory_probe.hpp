// `rubato calibrate`'s built-in uncore probe (docs/calibrate.md): a streaming
// triad a[i] = b[i] + s · c[i] over arrays several times the last-level cache,
// one thread per measured CPU (pinned, each on its own slice, first-touched by
// its thread), so that its time is the memory system's: moving bytes through
// the uncore to DRAM and back. One timing is `passes` passes of every thread,
// started together: the CPU time of the slowest thread, which a neighbour
// that preempts it does not inflate (its wall time would: stalls on memory
// count as CPU time, waiting to run does not).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "rubato/power/machine/topology.hpp"

namespace rubato {

// The probe's arrays together: 4 × the largest cache `t` lists (else 32 MiB
// assumed), at least 64 MiB, at most 1 GiB and a quarter of MemAvailable.
std::size_t memory_probe_bytes(const Topology& t);

class MemoryProbe {
 public:
  MemoryProbe();
  ~MemoryProbe();
  MemoryProbe(const MemoryProbe&) = delete;
  MemoryProbe& operator=(const MemoryProbe&) = delete;

  // One thread per CPU, pinned, its slice of `bytes` allocated and touched.
  // false + why (nothing left running).
  bool start(const std::vector<int>& cpus, std::size_t bytes, std::string& why);
  // CPU seconds of the slowest thread for `passes` triad passes of every thread.
  double run(int passes);
  // The threads' ids (for the counters) and their CPUs, in start order.
  const std::vector<int>& tids() const noexcept { return tids_; }
  const std::vector<int>& cpus() const noexcept { return cpus_; }
  std::size_t bytes() const noexcept { return bytes_; }
  void stop() noexcept;

 private:
  struct Slice;
  void work(Slice& s);

  std::vector<std::unique_ptr<Slice>> slices_;
  std::vector<std::thread> threads_;
  std::vector<int> tids_, cpus_;
  std::size_t bytes_ = 0;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  long generation_ = 0;
  int passes_ = 0;
  std::size_t finished_ = 0;
  bool quit_ = false;
};

}  // namespace rubato
