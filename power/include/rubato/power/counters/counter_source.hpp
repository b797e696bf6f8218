// Counter sources (docs/design.md "Platform"): what the efs and affinity
// controllers read each control interval, per target (a worker thread, or a
// whole program of a --mix) and chip-wide. One interface; sources:
//
//   papi    PAPI's perf_event component, one event set attached per thread
//           (instructions, cycles, LLC misses, FP ops, memory reads), each
//           PAPI_add_named_event checked
//   likwid  likwid perfmon in direct mode (probed in a forked child first: the
//           access-daemon mode exit()s the process), per CPU, for bound targets
//   perf    perf_event_open: task-clock per thread (software, works in VMs),
//           hardware instructions / cycles / LLC misses where a PMU exists
//   proc    /proc/<pid>/task/<tid>/schedstat (or stat): CPU time only
//   replay  a recorded series (counter_series.hpp, docs/efs-affinity.md)
//
// They are registered in one ordered table, counter_sources()
// (plugin_table.hpp). RUBATO_COUNTERS=auto takes each metric from the first
// source of papi, likwid, perf, proc that has it here. Every metric is marked available or
// not, with the reason, so a policy can say at start what it lacks.
//
// All methods run on the one controlling thread (never a task's hot path).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rubato/core/counters/counter_sample.hpp"
#include "rubato/power/plugin_table.hpp"

namespace rubato {

struct CounterTarget {
  std::uint64_t id = 0;  // worker index, or program index in a --mix
  int pid = 0;           // its process
  int tid = 0;           // its thread; 0: the whole process (all its threads)
  int cpu = -1;          // the CPU it is bound to, -1: unbound (per-CPU sources need it)
};

class CounterSource {
 public:
  virtual ~CounterSource() = default;
  virtual std::string_view name() const noexcept = 0;
  // What this source counts here, each metric with why not. Fixed once made.
  virtual const counters::MetricAvailability& availability() const noexcept = 0;
  // Starts / stops counting a target (a target seen again is updated: new tid or cpu).
  virtual void track(const CounterTarget& target) = 0;
  virtual void untrack(std::uint64_t id) = 0;
  // What happened since the previous call (or since track), over `elapsed_s`.
  virtual counters::CounterSample sample(double elapsed_s) = 0;
  // A recording that has no more intervals (replay); live sources never end.
  virtual bool exhausted() const noexcept { return false; }
};

struct CounterSourceOptions {
  std::string replay_path;                   // for "replay"
  std::vector<counters::Metric> want;        // auto: the metrics the policies need (others are not set up)
  std::vector<std::string> auto_leaves_out;  // auto: sources not asked (named, they are used)
};

// The sources in auto-preference order: papi, likwid, perf, proc (in_auto);
// then replay, only when named. A maker gives nullptr and `why` when the
// source cannot be made here at all.
using CounterSourceEntry =
    PluginEntry<std::unique_ptr<CounterSource>(const CounterSourceOptions& options, std::string& why)>;
std::span<const CounterSourceEntry> counter_sources();

// One named source ("papi", "likwid", "perf", "proc", "replay"); nullptr and
// `why` when it cannot be made here at all (e.g. a replay file that does not parse).
std::unique_ptr<CounterSource> make_counter_source(std::string_view name, const CounterSourceOptions& options,
                                                   std::string& why);

// The sources RUBATO_COUNTERS names, combined: each metric from the first
// source that has it. For "auto" every live source is asked (papi, likwid,
// perf, proc) and kept if it gives a wanted metric no earlier one gives.
class CounterSet {
 public:
  // `setting`: auto | papi | likwid | perf | proc | replay:<file> | none.
  CounterSet(std::string_view setting, const CounterSourceOptions& options);

  const counters::MetricAvailability& availability() const noexcept { return availability_; }
  std::string names() const;  // "perf+proc", "replay", "none"
  void track(const CounterTarget& target);
  void untrack(std::uint64_t id);
  counters::CounterSample sample(double elapsed_s);
  bool exhausted() const noexcept;

 private:
  std::vector<std::unique_ptr<CounterSource>> sources_;
  counters::MetricAvailability availability_;
};

}  // namespace rubato
