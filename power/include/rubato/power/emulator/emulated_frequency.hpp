// The DVFS emulator (docs/design.md "Emulator"): where frequency cannot be changed,
// a worker at frequency f follows each task segment that ran d of CPU time
// with d·β·(f_max/f − 1) of busy CPU time on the same thread, so the program
// really runs slower and the scheduler really reacts. It is a model, and
// reports say so: energy comes from the power model, counting the stretched
// busy time at f.
//
// CPU time, not wall time: real DVFS slows the cycles a thread
// runs, not the time it waits for a core. A segment's wall time includes the
// time its thread was descheduled (8 threads on 2 cores, any preemption);
// stretching that, and burning by the wall clock (a burn preempted half the
// time burns half its CPU), made the burn take cores from the other threads,
// whose segments grew too: a feedback loop (a task fib at 8 threads on 2
// cores took 16 s instead of 1).
#pragma once

#include <atomic>
#include <memory>

#include "rubato/power/frequency/domain_records.hpp"
#include "rubato/power/frequency/frequency_control.hpp"

namespace rubato {

// The busy time (ns) that stretches a segment of `duration_ns` run at the
// fastest frequency `max_hz` into one at `hz`: d·β·(max_hz/hz − 1), 0 when hz >= max_hz.
std::uint64_t emulated_stretch_ns(std::uint64_t duration_ns, double hz, double max_hz, double beta) noexcept;

// This thread's CPU time (CLOCK_THREAD_CPUTIME_ID), ns.
std::uint64_t thread_cpu_ns() noexcept;
// Spins on the calling thread until it has run `ns` more of CPU time (busy,
// never sleeps; time it is descheduled does not count). `cpu_now`: the
// thread's CPU time now (thread_cpu_ns), if the caller has it. Returns the
// thread's CPU time at the end.
std::uint64_t burn_cpu_ns(std::uint64_t ns, std::uint64_t cpu_now) noexcept;
// What one thread_cpu_ns() costs here in CPU time (the quickest of a few
// rounds of 64 reads).
std::uint64_t cpu_clock_read_cost_ns() noexcept;

class EmulatedFrequency final : public FrequencyControl {
 public:
  // `machine_max_hz`: the machine's fastest frequency (the speed the host
  // really runs at), not the ladder's, so that `fixed:<f>` is slowed too.
  EmulatedFrequency(double beta, double machine_max_hz);

  std::string_view name() const noexcept override { return "emulated"; }
  bool usable(std::string& why) override;
  bool save(const DomainPlan& plan, std::string& why) override;
  RestoreOutcome restore() noexcept override { return {}; }
  bool changes_speed() const noexcept override { return true; }
  std::uint64_t applied_transitions(DomainId d) const noexcept override { return domains_.applied(d); }
  double added_busy_s(WorkerId w, Level level) const noexcept override;

  void domain_level_changed(DomainId domain, Level level, double hz, std::uint64_t now_ns) noexcept override;
  void run_started(WorkerId w) noexcept override;
  bool segment_end(WorkerId w, std::uint64_t duration_ns, double hz, double max_hz) noexcept override;
  bool stretches_at(double hz, double max_hz) const noexcept override;

  double beta() const noexcept { return beta_; }
  double machine_max_hz() const noexcept { return max_hz_; }

 private:
  // Written only by the worker itself; added_ns is read at the end of the run.
  struct alignas(kCacheLine) WorkerSlot {
    std::atomic<std::uint64_t> added_ns[kMaxLevels]{};
    // The mark: steady and thread CPU time at the run's start or at the end
    // of the last burn (wall_mark_ns 0: never marked).
    std::uint64_t wall_mark_ns = 0;
    std::uint64_t cpu_mark_ns = 0;
    // What the last segment_end measured but did not account: the rest of a
    // segment split by a level change, accounted by the call that follows.
    std::uint64_t carry_wall_ns = 0;
    std::uint64_t carry_cpu_ns = 0;
    std::uint64_t overhead_ns = 0;  // the emulator's own reads since the mark, taken off the next burn
  };

  double beta_;
  double max_hz_;
  TempoLadder ladder_{std::vector<double>{1e9}};
  std::size_t workers_ = 0;
  std::uint64_t read_cost_ns_ = 0;  // cpu_clock_read_cost_ns(), at save()
  std::unique_ptr<WorkerSlot[]> slots_;
  DomainRecords domains_;
};

}  // namespace rubato
