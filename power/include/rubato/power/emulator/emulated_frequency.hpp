// The DVFS emulator (docs/design.md "Emulator"): where frequency cannot be changed,
// a worker at frequency f follows each task segment that ran d of CPU time
// with d·β·(f_max/f − 1) of busy CPU time on the same thread, so the program
// really runs slower and the scheduler really reacts. Where min-energy moves a
// modelled uncore, the uncore-sensitive part of the work is stretched too:
// d·[b_c (f_max/f − 1) + b_u (g(f_u) − 1)] (emulated_uncore.hpp). It is a
// model, and reports say so: energy comes from the power model, counting the
// stretched busy time at f.
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

#include "rubato/power/emulator/emulated_uncore.hpp"
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
  std::uint64_t asked_ns = 0;            // the model's stretch, d·β·(f_max/f − 1) (+ the uncore part) summed
  std::uint64_t burnt_ns = 0;            // CPU time spent in the burn loop
  std::uint64_t own_ns = 0;              // the emulator's own time on the workers (clock reads, bookkeeping)
  std::uint64_t unpaid_ns = 0;           // own time it could not take off a stretch (shorter than it)
  std::uint64_t cpu_clock_reads = 0;     // exact reads of a thread's CPU clock (system calls)
  std::uint64_t cpu_clock_ahead_ns = 0;  // how far those readings ran ahead of the wall clock, set aside
  // Following min-energy's uncore level (emulated_uncore.hpp); 0 where it is not followed.
  std::uint64_t uncore_asked_ns = 0;   // the uncore's part of asked_ns, d·b_u·(g(f_u) − 1) summed
  std::uint64_t uncore_cpu_ns = 0;     // the CPU time d of the segments stretched with an uncore part
  std::uint64_t uncore_timed_ns = 0;   // segments' time (wall, as the engine timed them) with a level in force
  double uncore_hz_time_weighted = 0;  // the uncore level over that time (0: none)
};

class EmulatedFrequency final : public FrequencyControl {
 public:
  // `machine_max_hz`: the machine's fastest frequency (the speed the host
  // really runs at), not the ladder's, so that `fixed:<f>` is slowed too.
  // `clocks`: what it reads (tests pass a fake; must outlive the emulator);
  // nullptr: the system's, chosen at save().
  // `uncore`: min-energy's operating point to follow (emulated_uncore()); default: none.
  EmulatedFrequency(double beta, double machine_max_hz, EmulatorClocks* clocks = nullptr, EmulatedUncore uncore = {});

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
  // Whether segments are stretched by the uncore level in force (a point to
  // follow, and a ladder that slows work): then at every level, the fastest too.
  bool follows_uncore() const noexcept { return follows_uncore_; }
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
    // The stretch coefficients for the operating point last seen, and what
    // followed from them (follows_uncore() only).
    StretchCoefficients coefficients;
    std::atomic<std::uint64_t> uncore_added_ns{0};
    std::atomic<std::uint64_t> uncore_cpu_ns{0};
    std::atomic<std::uint64_t> uncore_timed_ns{0};
    std::atomic<std::uint64_t> uncore_mhz_ns{0};  // Σ segment time × f_u (MHz)
  };

  std::uint64_t cpu_at(WorkerSlot& s, std::uint64_t wall) noexcept;
  void read_cpu_clock(WorkerSlot& s) noexcept;
  std::uint64_t segment_cpu(WorkerSlot& s, std::uint64_t duration_ns, std::uint64_t wall, std::uint64_t cpu) noexcept;
  std::uint64_t burn_until(WorkerSlot& s, std::uint64_t cpu_deadline, std::uint64_t& burnt_ns) noexcept;
  void follow_operating_point(WorkerSlot& s, std::uint64_t duration_ns) noexcept;
  static std::string stretch_note(const EmulatorAccount& a);
  std::string uncore_note(const EmulatorAccount& a) const;

  double beta_;
  double max_hz_;
  EmulatedUncore uncore_;
  bool follows_uncore_ = false;  // uncore_may_stretch(uncore_)
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
