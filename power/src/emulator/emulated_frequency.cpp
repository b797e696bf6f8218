#include "rubato/power/emulator/emulated_frequency.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>

namespace rubato {
namespace {

std::uint64_t steady_ns() noexcept {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

}  // namespace

std::uint64_t emulated_stretch_ns(std::uint64_t duration_ns, double hz, double max_hz, double beta) noexcept {
  if (!(hz > 0) || !(hz < max_hz) || !(beta > 0)) return 0;
  const double extra = static_cast<double>(duration_ns) * beta * (max_hz / hz - 1.0);
  return extra >= 1.8e19 ? ~std::uint64_t{0} >> 1 : static_cast<std::uint64_t>(std::llround(extra));
}

// Cost of a read here (2-vCPU AMD EPYC VM, Linux, measured in thread CPU time
// over 10^6 reads): CLOCK_THREAD_CPUTIME_ID ~0.55-0.6 us (a
// system call: no vDSO path), CLOCK_MONOTONIC ~23 ns (vDSO). So a stretched
// segment reads the CPU clock once at its end (and once more at the start of
// a run, and at the end of a burn that was preempted), and the burn spins on
// the steady clock; a level that is not stretched reads neither.
std::uint64_t thread_cpu_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

std::uint64_t cpu_clock_read_cost_ns() noexcept {
  constexpr int kReads = 64;
  std::uint64_t best = ~std::uint64_t{0};
  for (int round = 0; round < 3; ++round) {  // the quickest of three rounds: one may be preempted
    const std::uint64_t start = thread_cpu_ns();
    for (int i = 1; i < kReads; ++i) (void)thread_cpu_ns();
    const std::uint64_t end = thread_cpu_ns();
    best = std::min(best, (end - start) / kReads);
  }
  return best;
}

// Spins by the steady clock (vDSO) for what is left of the CPU time to burn.
// While the thread runs, the two clocks advance together; a gap between two
// consecutive steady reads (they come every few tens of ns) longer than
// kGapNs means the thread was off its core (or interrupted) meanwhile: then
// the CPU clock is read (a system call) and the loop goes on for the CPU time
// still missing. Without such a gap the burn's CPU time is its wall time, and
// the CPU clock is not read at all: a burn costs no system call unless it was
// preempted. It never overshoots by more than a clock read: CPU time never
// runs ahead of wall time.
std::uint64_t burn_cpu_ns(std::uint64_t ns, std::uint64_t cpu_now) noexcept {
  constexpr std::uint64_t kGapNs = 2'000;
  std::uint64_t cpu = cpu_now != 0 ? cpu_now : thread_cpu_ns();
  if (ns == 0) return cpu;
  const std::uint64_t deadline = cpu + ns;
  // A few dependent multiplies between reads keep the core's pipeline
  // occupied like computation would.
  volatile std::uint64_t sink = 0;
  std::uint64_t x = ns | 1;
  while (cpu < deadline) {
    const std::uint64_t begin = steady_ns();
    const std::uint64_t until = begin + (deadline - cpu);
    std::uint64_t prev = begin;
    std::uint64_t now = begin;
    bool gap = false;
    while (now < until) {
      for (int i = 0; i < 32; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
      sink = x;
      now = steady_ns();
      gap = gap || now - prev > kGapNs;
      prev = now;
    }
    if (!gap) return cpu + (now - begin);
    cpu = thread_cpu_ns();
  }
  (void)sink;
  return cpu;
}

EmulatedFrequency::EmulatedFrequency(double beta, double machine_max_hz)
    : beta_(std::clamp(beta, 0.0, 1.0)), max_hz_(machine_max_hz) {}

bool EmulatedFrequency::usable(std::string& why) {
  if (!(max_hz_ > 0)) {
    why = "no fastest frequency known (no profile and no cpufreq)";
    return false;
  }
  return true;
}

bool EmulatedFrequency::save(const DomainPlan& plan, std::string& why) {
  if (!usable(why)) return false;
  ladder_ = plan.ladder;
  read_cost_ns_ = cpu_clock_read_cost_ns();
  workers_ = plan.max_workers;
  slots_ = std::make_unique<WorkerSlot[]>(workers_ == 0 ? 1 : workers_);
  domains_.reset(plan.cpus_of_domain.size());
  return true;
}

void EmulatedFrequency::domain_level_changed(DomainId domain, Level level, double hz, std::uint64_t) noexcept {
  // An emulated change takes effect at the next segment end: nothing to wait for.
  domains_.apply_at_once(domain, level, hz);
}

void EmulatedFrequency::run_started(WorkerId w) noexcept {
  if (w >= workers_) return;
  WorkerSlot& s = slots_[w];
  s.wall_mark_ns = steady_ns();
  s.cpu_mark_ns = thread_cpu_ns();
  s.carry_wall_ns = s.carry_cpu_ns = 0;
  s.overhead_ns = read_cost_ns_;  // this read: the emulator's, not the task's
}

// The segment's CPU time: the thread's CPU time since the mark (the run's
// start, or the end of the previous burn, from which a chained run goes on).
// A part of a segment (one split by a level change: the engine hands each
// part's wall time) gets the CPU time in proportion to its wall time; the
// rest of the interval is carried to the call for the next part, which comes
// at once (a part longer than the time since the last burn lies before it).
// A run that began at a level that is not stretched has no mark of its own:
// its first stretched part gets the thread's CPU share since the last mark
// (an estimate, for that part only). Never marked (a call without a run,
// as in a unit test): the wall time given.
bool EmulatedFrequency::segment_end(WorkerId w, std::uint64_t duration_ns, double hz, double) noexcept {
  if (w >= workers_ || emulated_stretch_ns(duration_ns, hz, max_hz_, beta_) == 0) return false;
  WorkerSlot& s = slots_[w];
  const std::uint64_t wall_now = steady_ns();
  const std::uint64_t cpu_now = thread_cpu_ns();
  std::uint64_t cpu_part = duration_ns;
  if (s.wall_mark_ns != 0) {
    std::uint64_t wall = wall_now > s.wall_mark_ns ? wall_now - s.wall_mark_ns : 0;
    std::uint64_t cpu = cpu_now > s.cpu_mark_ns ? cpu_now - s.cpu_mark_ns : 0;
    if (duration_ns > wall && s.carry_wall_ns > 0) {
      wall += s.carry_wall_ns;
      cpu += s.carry_cpu_ns;
    }
    const std::uint64_t part = std::min(duration_ns, wall);
    const double share = wall > 0 ? std::min(1.0, static_cast<double>(cpu) / static_cast<double>(wall)) : 0.0;
    cpu_part = static_cast<std::uint64_t>(std::llround(static_cast<double>(part) * share));
    s.carry_wall_ns = wall - part;
    s.carry_cpu_ns = cpu > cpu_part ? cpu - cpu_part : 0;
  }
  const std::uint64_t extra = emulated_stretch_ns(cpu_part, hz, max_hz_, beta_);
  // The emulator's own CPU clock reads (the run's start, this end) slow the
  // worker too, and real DVFS has none: the burn is shorter by their measured
  // cost, so that the segment takes d·(1 + stretch) in all.
  const std::uint64_t overhead = s.overhead_ns + read_cost_ns_;
  s.overhead_ns = 0;
  s.cpu_mark_ns = burn_cpu_ns(extra > overhead ? extra - overhead : 0, cpu_now);
  s.wall_mark_ns = steady_ns();
  if (extra == 0) return false;
  const Level lv = ladder_.nearest_level(hz);
  auto& counter = s.added_ns[lv];
  counter.store(counter.load(std::memory_order_relaxed) + extra, std::memory_order_relaxed);
  return true;
}

bool EmulatedFrequency::stretches_at(double hz, double) const noexcept {
  return emulated_stretch_ns(1'000'000'000, hz, max_hz_, beta_) > 0;  // a second's segment
}

double EmulatedFrequency::added_busy_s(WorkerId w, Level level) const noexcept {
  if (w >= workers_ || level < 0 || level >= kMaxLevels) return 0;
  return static_cast<double>(slots_[w].added_ns[level].load(std::memory_order_relaxed)) * 1e-9;
}

}  // namespace rubato
