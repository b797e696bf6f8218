// Per-thread counting behind the papi, perf and proc sources: a target is one
// thread, or a whole process whose threads are listed from /proc/<pid>/task at
// every sample (threads come and go; one that ended keeps what it counted).
// Each thread has a reader of cumulative totals; a sample is, per target, the
// sum of its threads' increases since the previous sample.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rubato/core/counters/counter_sample.hpp"
#include "rubato/power/counters/counter_source.hpp"

namespace rubato::detail {

using MetricTotals = std::array<std::optional<double>, counters::kMetricCount>;

class ThreadReader {
 public:
  virtual ~ThreadReader() = default;
  // Cumulative totals since the reader was made; false when the thread is gone.
  virtual bool read(MetricTotals& totals) = 0;
};

// nullptr: this thread cannot be counted (it ended, or the kernel refused).
using ThreadReaderFactory = std::function<std::unique_ptr<ThreadReader>(int pid, int tid)>;

// The thread ids of process `pid` (empty when it is gone).
std::vector<int> threads_of_process(int pid);

class ThreadCounterTable {
 public:
  explicit ThreadCounterTable(ThreadReaderFactory open) : open_(std::move(open)) {}
  void track(const CounterTarget& target);
  void untrack(std::uint64_t id) { targets_.erase(id); }
  counters::CounterSample sample(double elapsed_s);

 private:
  struct Thread {
    std::unique_ptr<ThreadReader> reader;
    MetricTotals last{};
  };
  struct Target {
    CounterTarget target;
    std::map<int, Thread> threads;  // by tid
  };
  void open_thread(Target& t, int tid);

  ThreadReaderFactory open_;
  std::map<std::uint64_t, Target> targets_;
};

// A source that counts per thread through a ThreadCounterTable (papi, perf, proc).
class PerThreadSource : public CounterSource {
 public:
  std::string_view name() const noexcept override { return name_; }
  const counters::MetricAvailability& availability() const noexcept override { return availability_; }
  void track(const CounterTarget& t) override { table_.track(t); }
  void untrack(std::uint64_t id) override { table_.untrack(id); }
  counters::CounterSample sample(double elapsed_s) override;

 protected:
  PerThreadSource(std::string name, ThreadReaderFactory open) : name_(std::move(name)), table_(std::move(open)) {}
  // Without uncore access the chip's memory accesses are estimated as the
  // tracked threads' memory reads added up (other programs are not seen):
  // marked so when memory reads are available and the accesses are wanted.
  void estimate_chip_accesses(const std::vector<counters::Metric>& want);

  counters::MetricAvailability availability_;

 private:
  std::string name_;
  bool estimate_accesses_ = false;
  ThreadCounterTable table_;
};

}  // namespace rubato::detail
