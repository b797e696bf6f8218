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
//
// Cheaply: reading the thread's CPU clock at both ends of every segment (two
// system calls, ~1.2 us here) made the emulator's own cost larger than the
// stretch of a 1-2 us task (x7 where x1.7 was asked, BOTS uts). The thread's
// CPU time is extrapolated from its last exact reading by the wall clock for
// as long as the thread stays on its core (EmulatorClocks), and the
// emulator's own time on the worker is taken off the burns; what it burnt
// against what it was asked to burn is in the run's notes.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "rubato/power/emulator/emulator_clocks.hpp"
#include "rubato/power/frequency/domain_records.hpp"
#include "rubato/power/frequency/frequency_control.hpp"

namespace rubato {

// The busy time (ns) that stretches a segment of `duration_ns` run at the
// fastest frequency `max_hz` into one at `hz`: d·β·(max_hz/hz − 1), 0 when hz >= max_hz.
std::uint64_t emulated_stretch_ns(std::uint64_t duration_ns, double hz, double max_hz, double beta) noexcept;

// What the emulator was asked to do and what it did, summed over workers
// (the run's notes say it). burnt + own = asked + unpaid by construction, the
// own time being taken off the burns; apart only where a CPU clock reading
// mid-burn moved the thread's CPU time back (a switch, steal time).
struct EmulatorAccount {
  std::uint64_t segments = 0;            // stretched segments
  std::uint64_t asked_ns = 0;            // the model's stretch, d·β·(f_max/f − 1) summed
  std::uint64_t burnt_ns = 0;            // CPU time spent in the burn loop
  std::uint64_t own_ns = 0;              // the emulator's own time on the workers (clock reads, bookkeeping)
  std::uint64_t unpaid_ns = 0;           // own time it could not take off a stretch (shorter than it)
  std::uint64_t cpu_clock_reads = 0;     // exact reads of a thread's CPU clock (system calls)
  std::uint64_t cpu_clock_ahead_ns = 0;  // how far those readings ran ahead of the wall clock, set aside
};

class EmulatedFrequency final : public FrequencyControl {
 public:
  // `machine_max_hz`: the machine's fastest frequency (the speed the host
  // really runs at), not the ladder's, so that `fixed:<f>` is slowed too.
  // `clocks`: what it reads (tests pass a fake; must outlive the emulator);
  // nullptr: the system's, chosen at save().
  EmulatedFrequency(double beta, double machine_max_hz, EmulatorClocks* clocks = nullptr);

  std::string_view name() const noexcept override { return "emulated"; }
  bool usable(std::string& why) override;
  bool save(const DomainPlan& plan, std::string& why) override;
  RestoreOutcome restore() noexcept override { return {}; }
  bool changes_speed() const noexcept override { return true; }
  std::uint64_t applied_transitions(DomainId d) const noexcept override { return domains_.applied(d); }
  double added_busy_s(WorkerId w, Level level) const noexcept override;
  std::vector<std::string> run_notes() const override;

  void domain_level_changed(DomainId domain, Level level, double hz, std::uint64_t now_ns) noexcept override;
  void run_started(WorkerId w) noexcept override;
  bool segment_end(WorkerId w, std::uint64_t duration_ns, double hz, double max_hz) noexcept override;
  bool stretches_at(double hz, double max_hz) const noexcept override;

  double beta() const noexcept { return beta_; }
  double machine_max_hz() const noexcept { return max_hz_; }
  EmulatorAccount account() const noexcept;
  // The emulator's own reads outside its timed calls, per segment (ns): the
  // cost of one wall-clock read, measured at save().
  std::uint64_t read_cost_ns() const noexcept { return read_cost_ns_; }

 private:
  // Written only by the worker itself; the atomics are read at the end of the run.
  struct alignas(kCacheLine) WorkerSlot {
    std::atomic<std::uint64_t> added_ns[kMaxLevels]{};  // the model's stretch, per level
    std::atomic<std::uint64_t> segments{0};
    std::atomic<std::uint64_t> burnt_ns{0};
    std::atomic<std::uint64_t> own_ns{0};
    std::atomic<std::uint64_t> cpu_reads{0};
    std::atomic<std::uint64_t> owed_ns{0};  // own time not yet taken off a burn
    std::atomic<std::uint64_t> cpu_ahead_ns{0};
    // The thread's last exact CPU clock reading and the wall time just after
    // it (anchor_wall_ns 0: none yet); `seen_wall_ns`: when the emulator last
    // ran on the thread.
    std::uint64_t anchor_wall_ns = 0;
    std::uint64_t anchor_cpu_ns = 0;
    std::uint64_t seen_wall_ns = 0;
    std::uint64_t cpu_offset_ns = 0;  // the CPU clock's jumps ahead of the wall clock, set aside
    // The mark: wall and CPU time at the run's start or at the end of the
    // last burn (wall_mark_ns 0: never marked).
    std::uint64_t wall_mark_ns = 0;
    std::uint64_t cpu_mark_ns = 0;
    // What the last segment_end measured but did not account: the rest of a
    // segment split by a level change, accounted by the call that follows.
    std::uint64_t carry_wall_ns = 0;
    std::uint64_t carry_cpu_ns = 0;
  };

  std::uint64_t cpu_at(WorkerSlot& s, std::uint64_t wall) noexcept;
  void read_cpu_clock(WorkerSlot& s) noexcept;
  std::uint64_t segment_cpu(WorkerSlot& s, std::uint64_t duration_ns, std::uint64_t wall, std::uint64_t cpu) noexcept;
  std::uint64_t burn_until(WorkerSlot& s, std::uint64_t cpu_deadline, std::uint64_t& burnt_ns) noexcept;

  double beta_;
  double max_hz_;
  TempoLadder ladder_{std::vector<double>{1e9}};
  std::size_t workers_ = 0;
  std::unique_ptr<EmulatorClocks> own_clocks_;
  EmulatorClocks* clocks_ = nullptr;
  std::uint64_t read_cost_ns_ = 0;      // one wall_ns(), at save()
  std::uint64_t cpu_read_cost_ns_ = 0;  // one thread_cpu_ns(), at save()
  std::uint64_t unseen_limit_ns_ = 0;   // longer out of sight: the CPU clock is read exactly
  std::unique_ptr<WorkerSlot[]> slots_;
  DomainRecords domains_;
};

}  // namespace rubato
