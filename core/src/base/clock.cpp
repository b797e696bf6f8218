#include "rubato/core/base/clock.hpp"

#include <algorithm>
#include <fstream>
#include <string>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace rubato {
namespace {

constexpr const char* kClocksourceFile = "/sys/devices/system/clocksource/clocksource0/current_clocksource";
// Long enough that the read error at both ends (tens of ns) is ~1e-4 of it —
// a rate error of 0.01 %, far below what segment and busy times need — and
// short enough to cost the tool's start-up little: it is a busy wait (1 ms
// before, a tenth of the tool's whole start-up on fib(2)).
constexpr std::uint64_t kCalibrationWindowNs = 250'000;

bool cpu_has_invariant_tsc() noexcept {
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0x80000000u, &a, &b, &c, &d) == 0 || a < 0x80000007u) return false;
  if (__get_cpuid(0x80000007u, &a, &b, &c, &d) == 0) return false;
  return (d & (1u << 8)) != 0;  // CPUID.80000007H:EDX[8], "invariant TSC"
#else
  return false;
#endif
}

std::string kernel_clocksource() {
  std::ifstream in(kClocksourceFile);
  std::string name;
  in >> name;
  return name;
}

#if defined(__x86_64__)
// One (tsc, ns) pair: steady_clock read between two TSC reads, the narrowest
// of a few tries (a try that was preempted or interrupted is wide).
struct Pair {
  std::uint64_t tsc = 0;
  std::uint64_t ns = 0;
  std::uint64_t width = ~std::uint64_t{0};
};

Pair read_pair() noexcept {
  Pair best;
  for (int i = 0; i < 8; ++i) {
    const std::uint64_t t1 = __rdtsc();
    const std::uint64_t ns = steady_now_ns();
    const std::uint64_t t2 = __rdtsc();
    if (t2 >= t1 && t2 - t1 < best.width) best = Pair{t1 + (t2 - t1) / 2, ns, t2 - t1};
  }
  return best;
}
#endif

}  // namespace

bool tsc_can_stand_in(bool invariant_tsc, std::string_view kernel_clocksource) noexcept {
  return invariant_tsc && kernel_clocksource == "tsc";
}

TscScale calibrate_tsc(std::uint64_t window_ns) noexcept {
  TscScale s;
#if defined(__x86_64__)
  const Pair a = read_pair();
  while (steady_now_ns() - a.ns < window_ns) {
  }
  const Pair b = read_pair();
  if (b.tsc <= a.tsc || b.ns <= a.ns) return s;
  const std::uint64_t ticks = b.tsc - a.tsc;
  const auto mult = static_cast<std::uint64_t>((static_cast<unsigned __int128>(b.ns - a.ns) << 32) / ticks);
  // Plausible TSC rates only (50 MHz .. 20 GHz), and pairs read without a long
  // interruption (each end within 20 µs): otherwise steady_clock it is.
  const double ns_per_tick = static_cast<double>(mult) / 4294967296.0;
  const double widest_ns = static_cast<double>(std::max(a.width, b.width)) * ns_per_tick;
  if (ns_per_tick < 0.05 || ns_per_tick > 20.0 || widest_ns > 20'000.0) return s;
  s.usable = true;
  s.origin_tsc = b.tsc;
  s.origin_ns = b.ns;
  s.mult = mult;
#else
  (void)window_ns;
#endif
  return s;
}

const TscScale& process_tsc_scale() noexcept {
  static const TscScale scale = [] {
    try {
      if (!tsc_can_stand_in(cpu_has_invariant_tsc(), kernel_clocksource())) return TscScale{};
    } catch (...) {
      return TscScale{};
    }
    return calibrate_tsc(kCalibrationWindowNs);
  }();
  return scale;
}

}  // namespace rubato
