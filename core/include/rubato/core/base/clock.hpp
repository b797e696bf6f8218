// Time source injected into the engine: the real monotonic clock for live runs,
// simulated time for the simulator.
#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace rubato {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual std::uint64_t now_ns() const noexcept = 0;
};

// std::chrono::steady_clock (CLOCK_MONOTONIC) in nanoseconds.
inline std::uint64_t steady_now_ns() noexcept {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

// How the process turns time-stamp counter ticks into steady_clock
// nanoseconds: ns = origin_ns + ((tsc - origin_tsc) * mult) >> 32.
struct TscScale {
  bool usable = false;  // false: read steady_clock instead
  std::uint64_t origin_tsc = 0;
  std::uint64_t origin_ns = 0;
  std::uint64_t mult = 0;  // nanoseconds per tick, 32.32 fixed point
};

// Whether the TSC may stand in for CLOCK_MONOTONIC: the CPU says its TSC is
// invariant (constant rate, runs in every C-state) and the kernel itself uses
// it as the clocksource — which the kernel keeps only while the TSCs of all
// CPUs are synchronised (its TSC sync check at CPU bring-up and its clocksource
// watchdog switch away otherwise). Then the vDSO's CLOCK_MONOTONIC is itself
// rdtsc on whatever CPU the thread runs, scaled: reading the TSC directly is
// exactly as correct across a migration, minus the vDSO's seqlock and three
// calls (~25-50 ns a read here, against ~8-17 ns). NTP slewing (≤ 500 ppm) is
// not followed; durations of a run do not need it.
bool tsc_can_stand_in(bool invariant_tsc, std::string_view kernel_clocksource) noexcept;

// The process-wide scale, decided and calibrated once, at first use (about a
// millisecond against steady_clock, see clock.cpp): every SteadyClock of the
// process shares one time base.
const TscScale& process_tsc_scale() noexcept;

// Calibrates a scale against steady_clock over `window_ns` (exposed for tests).
TscScale calibrate_tsc(std::uint64_t window_ns) noexcept;

// The monotonic clock of live runs, in steady_clock's nanoseconds. Read on
// every task event, so it is the TSC when that is safe (tsc_can_stand_in) and
// steady_clock otherwise.
class SteadyClock final : public Clock {
 public:
  SteadyClock() noexcept : scale_(process_tsc_scale()) {}
  explicit SteadyClock(const TscScale& scale) noexcept : scale_(scale) {}

  std::uint64_t now_ns() const noexcept override { return now(); }
  // The same, callable without a virtual call by code that holds a SteadyClock.
  std::uint64_t now() const noexcept {
#if defined(__x86_64__)
    if (scale_.usable) [[likely]] {
      // Signed: a read on a CPU whose TSC is a few ticks behind the one that
      // calibrated, right after calibration, gives a small negative offset.
      const auto ticks = static_cast<std::int64_t>(__rdtsc() - scale_.origin_tsc);
      return scale_.origin_ns + static_cast<std::uint64_t>((static_cast<__int128>(ticks) * scale_.mult) >> 32);
    }
#endif
    return steady_now_ns();
  }
  bool uses_tsc() const noexcept { return scale_.usable; }

 private:
  TscScale scale_;
};

// A clock the caller moves by hand (tests, simulator).
class ManualClock final : public Clock {
 public:
  std::uint64_t now_ns() const noexcept override { return now_; }
  void set(std::uint64_t ns) noexcept { now_ = ns; }
  void advance(std::uint64_t ns) noexcept { now_ += ns; }

 private:
  std::uint64_t now_ = 0;
};

}  // namespace rubato
