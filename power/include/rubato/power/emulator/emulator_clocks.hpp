// The clocks the DVFS emulator reads on a stretched segment (docs/design.md
// "Emulator"). Its cost per segment must stay small against the stretch it
// adds, down to tasks of a microsecond, so the per-segment path reads only
// cheap ones: wall time (the TSC where it may stand in for CLOCK_MONOTONIC,
// else the vDSO's CLOCK_MONOTONIC, ~10 and ~25 ns a read on the 2-vCPU EPYC
// VM this was measured on) and whether the thread left its core (a load from
// the thread's rseq area). The thread's CPU clock (CLOCK_THREAD_CPUTIME_ID: a
// system call, no vDSO path, ~0.6 us there) is read only after the thread
// left its core, or when it was out of the emulator's sight too long.
// An interface so that tests count the reads and drive the emulator on a
// deterministic fake.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace rubato {

// This thread's CPU time (CLOCK_THREAD_CPUTIME_ID), ns: a system call.
std::uint64_t thread_cpu_ns() noexcept;

// What switched_out() can see.
enum class SwitchSight {
  none,          // nothing: the emulator goes by how long the thread was out of its sight
  preemption,    // the thread was preempted (or signalled) in user space, not a sleep in a system call
  every_switch,  // every context switch, sleeps included
};

class EmulatorClocks {
 public:
  virtual ~EmulatorClocks() = default;
  // Wall time, ns: read a few times per stretched segment and in the burn loop.
  virtual std::uint64_t wall_ns() noexcept = 0;
  // The calling thread's CPU time, ns: exact, and may be a system call.
  virtual std::uint64_t thread_cpu_ns() noexcept = 0;
  // Starts watching the calling thread for leaving its core.
  virtual void watch_switches() noexcept = 0;
  // Whether the calling thread left its core since its last watch_switches(),
  // as far as switch_sight() sees (SwitchSight::none: never says so).
  virtual bool switched_out() noexcept = 0;
  virtual SwitchSight switch_sight() const noexcept = 0;
  // One line for the run's notes: which clocks these are.
  virtual std::string describe() const = 0;
};

// The real ones: the process's SteadyClock (TSC or CLOCK_MONOTONIC),
// CLOCK_THREAD_CPUTIME_ID, and the rseq switch watch where glibc registered
// rseq (its sight probed once here, with one 50 us sleep).
std::unique_ptr<EmulatorClocks> make_system_emulator_clocks();

}  // namespace rubato
