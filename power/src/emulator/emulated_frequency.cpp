#include "rubato/power/emulator/emulated_frequency.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "rubato/power/session/operating_point.hpp"

namespace rubato {
namespace {

// The thread's CPU time is extrapolated from an exact reading at most this
// long: a safety net against what the switch watch misses (one system call
// per 10 ms of a busy thread).
constexpr std::uint64_t kMaxExtrapolationNs = 10'000'000;
// Where the switch watch does not see sleeps, a thread out of the emulator's
// sight longer than this (a long segment, a long gap between runs) may have
// slept meanwhile, and its CPU clock is read: at most one system call
// (~0.6 us) per 20 us. A shorter sleep goes unseen there.
constexpr std::uint64_t kUnseenLimitNs = 20'000;
// Consecutive wall reads in the burn loop come tens of ns apart; a longer gap
// means the thread was off its core (or interrupted) meanwhile.
constexpr std::uint64_t kGapNs = 2'000;

std::uint64_t since(std::uint64_t now, std::uint64_t then) noexcept { return now > then ? now - then : 0; }

void bump(std::atomic<std::uint64_t>& c, std::uint64_t by) noexcept {
  c.store(c.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
}

std::uint64_t get(const std::atomic<std::uint64_t>& c) noexcept { return c.load(std::memory_order_relaxed); }

// What one wall_ns() costs: the quickest of three rounds of 64 reads.
std::uint64_t wall_read_cost_ns(EmulatorClocks& clocks) noexcept {
  constexpr std::uint64_t kReads = 64;
  std::uint64_t best = ~std::uint64_t{0};
  for (int round = 0; round < 3; ++round) {
    const std::uint64_t start = clocks.wall_ns();
    for (std::uint64_t i = 1; i < kReads; ++i) (void)clocks.wall_ns();
    best = std::min(best, since(clocks.wall_ns(), start) / kReads);
  }
  return best;
}

// What one exact thread_cpu_ns() costs, in wall time (the quickest of three).
std::uint64_t cpu_read_cost_ns(EmulatorClocks& clocks) noexcept {
  std::uint64_t best = ~std::uint64_t{0};
  for (int round = 0; round < 3; ++round) {
    const std::uint64_t start = clocks.wall_ns();
    (void)clocks.thread_cpu_ns();
    best = std::min(best, since(clocks.wall_ns(), start));
  }
  return best;
}

}  // namespace

std::uint64_t emulated_stretch_ns(std::uint64_t duration_ns, double hz, double max_hz, double beta) noexcept {
  StretchCoefficients beta_only;
  beta_only.core = beta;
  return emulated_stretch_ns(duration_ns, hz, max_hz, beta_only);
}

EmulatedFrequency::EmulatedFrequency(double beta, double machine_max_hz, EmulatorClocks* clocks, EmulatedUncore uncore)
    : beta_(std::clamp(beta, 0.0, 1.0)),
      max_hz_(machine_max_hz),
      uncore_(uncore),
      follows_uncore_(uncore_may_stretch(uncore)),
      clocks_(clocks) {}

bool EmulatedFrequency::usable(std::string& why) {
  if (!(max_hz_ > 0)) {
    why = "no fastest frequency known (no profile and no cpufreq)";
    return false;
  }
  return true;
}

bool EmulatedFrequency::save(const DomainPlan& plan, std::string& why) {
  if (!usable(why)) return false;
  if (clocks_ == nullptr) {
    own_clocks_ = make_system_emulator_clocks();
    clocks_ = own_clocks_.get();
  }
  ladder_ = plan.ladder;
  read_cost_ns_ = wall_read_cost_ns(*clocks_);
  cpu_read_cost_ns_ = cpu_read_cost_ns(*clocks_);
  unseen_limit_ns_ = clocks_->switch_sight() == SwitchSight::every_switch ? kMaxExtrapolationNs : kUnseenLimitNs;
  workers_ = plan.max_workers;
  slots_ = std::make_unique<WorkerSlot[]>(workers_ == 0 ? 1 : workers_);
  for (std::size_t w = 0; w < std::max<std::size_t>(workers_, 1); ++w) slots_[w].coefficients.core = beta_;
  domains_.reset(plan.cpus_of_domain.size());
  return true;
}

void EmulatedFrequency::domain_level_changed(DomainId domain, Level level, double hz, std::uint64_t) noexcept {
  // An emulated change takes effect at the next segment end: nothing to wait for.
  domains_.apply_at_once(domain, level, hz);
}

// The thread's CPU time at wall time `wall`, from the last exact reading:
// while the thread stays on its core the two clocks advance together. Read
// again (a system call) when the thread may have left its core since, or was
// out of sight too long. `wall` may precede a reading just taken: by the
// reading's own cost (the thread's CPU time then was the reading's less that
// cost), or by more when the thread was switched out in between (time that
// is not the thread's CPU time).
std::uint64_t EmulatedFrequency::cpu_at(WorkerSlot& s, std::uint64_t wall) noexcept {
  const bool stale = s.anchor_wall_ns == 0 || since(wall, s.seen_wall_ns) > unseen_limit_ns_ ||
                     since(wall, s.anchor_wall_ns) > kMaxExtrapolationNs;
  if (stale || clocks_->switched_out()) read_cpu_clock(s);
  s.seen_wall_ns = std::max(s.seen_wall_ns, wall);
  if (wall >= s.anchor_wall_ns) return s.anchor_cpu_ns + (wall - s.anchor_wall_ns);
  return s.anchor_cpu_ns - std::min({s.anchor_cpu_ns, s.anchor_wall_ns - wall, cpu_read_cost_ns_});
}

// The watch starts after the CPU clock's system call returns: a switch inside
// that call (a preemption on its way out; under strace or a debugger, every
// system call) would otherwise trip the watch at once, and each reading would
// call for the next. Such a switch goes unseen instead, its wait after the
// reading taken as CPU time — rare and short outside a tracer.
//
// A thread's CPU time cannot run ahead of the wall time: a reading ahead of
// the extrapolation from the last one is the CPU clock jumping, not work. On
// the KVM guest this was measured on, CLOCK_THREAD_CPUTIME_ID jumps 5-300 us
// ahead of CLOCK_MONOTONIC within a microsecond about once in 1 000-4 000
// readings of a spinning thread (1 thread or 8 on 2 cores); taken as it is,
// such a jump would cut burns short. The jumps are set aside (cpu_offset_ns)
// and counted.
void EmulatedFrequency::read_cpu_clock(WorkerSlot& s) noexcept {
  const std::uint64_t kernel_cpu = clocks_->thread_cpu_ns();
  clocks_->watch_switches();
  const std::uint64_t wall = clocks_->wall_ns();
  std::uint64_t cpu = kernel_cpu - std::min(kernel_cpu, s.cpu_offset_ns);
  if (s.anchor_wall_ns != 0) {
    const std::uint64_t most = s.anchor_cpu_ns + since(wall, s.anchor_wall_ns);
    if (cpu > most) {
      bump(s.cpu_ahead_ns, cpu - most);
      s.cpu_offset_ns += cpu - most;
      cpu = most;
    }
  }
  s.anchor_cpu_ns = cpu;
  s.anchor_wall_ns = wall;
  bump(s.cpu_reads, 1);
}

void EmulatedFrequency::run_started(WorkerId w) noexcept {
  if (w >= workers_) return;
  WorkerSlot& s = slots_[w];
  const std::uint64_t start = clocks_->wall_ns();
  (void)cpu_at(s, start);
  // The run starts after this call's exact read, if it took one: that read,
  // and this call's wall read, are the emulator's own time, not the task's.
  const std::uint64_t wall = std::max(start, s.anchor_wall_ns);
  s.wall_mark_ns = wall;
  s.cpu_mark_ns = cpu_at(s, wall);
  s.carry_wall_ns = s.carry_cpu_ns = 0;
  // (At most the reads' cost: a switch between them is not the emulator's time.)
  const std::uint64_t own = std::min(wall - start, cpu_read_cost_ns_ + read_cost_ns_) + read_cost_ns_;
  bump(s.own_ns, own);
  bump(s.owed_ns, own);
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
std::uint64_t EmulatedFrequency::segment_cpu(WorkerSlot& s, std::uint64_t duration_ns, std::uint64_t wall_now,
                                             std::uint64_t cpu_now) noexcept {
  if (s.wall_mark_ns == 0) return duration_ns;
  std::uint64_t wall = since(wall_now, s.wall_mark_ns);
  std::uint64_t cpu = since(cpu_now, s.cpu_mark_ns);
  if (duration_ns > wall && s.carry_wall_ns > 0) {
    wall += s.carry_wall_ns;
    cpu += s.carry_cpu_ns;
  }
  const std::uint64_t part = std::min(duration_ns, wall);
  const double share = wall > 0 ? std::min(1.0, static_cast<double>(cpu) / static_cast<double>(wall)) : 0.0;
  const auto cpu_part = static_cast<std::uint64_t>(std::llround(static_cast<double>(part) * share));
  s.carry_wall_ns = wall - part;
  s.carry_cpu_ns = since(cpu, cpu_part);
  return cpu_part;
}

// Stretches the segment by its CPU time, as real DVFS would. Everything the
// worker spends here from `wall_in` on counts toward the stretch (the
// bookkeeping, an exact CPU clock read); what the emulator spent outside its
// timed window (run_started, the reads around this call) is owed, at the
// measured cost of a read, and taken off this burn or the next. Own time
// beyond a stretch stays owed: "unpaid" in the account.
bool EmulatedFrequency::segment_end(WorkerId w, std::uint64_t duration_ns, double hz, double) noexcept {
  if (w >= workers_) return false;
  WorkerSlot& s = slots_[w];
  if (follows_uncore_) follow_operating_point(s, duration_ns);
  const StretchCoefficients& c = s.coefficients;
  if (emulated_stretch_ns(duration_ns, hz, max_hz_, c) == 0) return false;
  const std::uint64_t wall_in = clocks_->wall_ns();
  const std::uint64_t cpu_in = cpu_at(s, wall_in);
  const std::uint64_t d_cpu = segment_cpu(s, duration_ns, wall_in, cpu_in);
  const std::uint64_t extra = emulated_stretch_ns(d_cpu, hz, max_hz_, c);
  if (extra == 0) {
    s.wall_mark_ns = std::max(wall_in, s.anchor_wall_ns);
    s.cpu_mark_ns = cpu_at(s, s.wall_mark_ns);
    return false;
  }
  // Outside this call's timed window: the read that opens it, and the
  // engine's clock read after the burn (it reads again when a segment was stretched).
  const std::uint64_t outside = 2 * read_cost_ns_;
  const std::uint64_t owed = get(s.owed_ns) + outside;
  const std::uint64_t paid = std::min(owed, extra);
  const std::uint64_t target = extra - paid;
  std::uint64_t burnt = 0;
  const std::uint64_t wall_out = burn_until(s, cpu_in + target, burnt);
  const std::uint64_t cpu_out = cpu_at(s, wall_out);
  const std::uint64_t spent = since(cpu_out, cpu_in);
  s.owed_ns.store(owed - paid + since(spent, target), std::memory_order_relaxed);
  bump(s.own_ns, since(spent, burnt) + outside);
  bump(s.burnt_ns, burnt);
  bump(s.segments, 1);
  bump(s.added_ns[ladder_.nearest_level(hz)], extra);
  if (c.uncore_extra != 0) {
    bump(s.uncore_added_ns, emulated_uncore_stretch_ns(d_cpu, c));
    bump(s.uncore_cpu_ns, d_cpu);
  }
  s.wall_mark_ns = wall_out;
  s.cpu_mark_ns = cpu_out;
  return true;
}

// The operating point as the controller thread left it: two relaxed loads
// of its rarely written line; the coefficients are made again only when it
// differs from the one they were made for (at most once per control interval).
void EmulatedFrequency::follow_operating_point(WorkerSlot& s, std::uint64_t duration_ns) noexcept {
  const OperatingPoint& point = *uncore_.point;
  const double uncore_hz = point.uncore_hz();
  // A plant's shares are the truth; else the emulator follows what min-energy decided with.
  const WorkSensitivity sensitivity = uncore_.plant ? uncore_.plant_shares : point.sensitivity();
  StretchCoefficients& c = s.coefficients;
  if (uncore_hz != c.seen_uncore_hz || sensitivity.core != c.seen_sensitivity.core ||
      sensitivity.uncore != c.seen_sensitivity.uncore) [[unlikely]]
    make_stretch_coefficients(c, uncore_hz, sensitivity, point.reference_uncore_hz(), beta_, max_hz_,
                              uncore_.memory_bandwidth_knee_hz, uncore_.uncore_exponent);
  if (c.uncore_mhz == 0) return;
  bump(s.uncore_timed_ns, duration_ns);
  bump(s.uncore_mhz_ns, duration_ns * c.uncore_mhz);
}

// Spins until the thread's CPU time reaches `cpu_deadline`, reading only the
// wall clock while the thread stays on its core; after a gap between two
// reads or a switch, the CPU clock is read and the loop goes on for the CPU
// time still missing. Returns the wall time at the end, and adds the CPU
// time spent spinning to `burnt_ns`.
std::uint64_t EmulatedFrequency::burn_until(WorkerSlot& s, std::uint64_t cpu_deadline,
                                            std::uint64_t& burnt_ns) noexcept {
  std::uint64_t wall = clocks_->wall_ns();
  std::uint64_t x = cpu_deadline | 1;
  for (;;) {
    const std::uint64_t cpu = cpu_at(s, wall);
    if (cpu >= cpu_deadline) break;
    const std::uint64_t begin = wall;
    const std::uint64_t until = wall + (cpu_deadline - cpu);
    bool gap = false;
    while (wall < until) {
      // A few dependent multiplies between reads keep the core's pipeline
      // occupied like computation would; a read every ~20 ns bounds the overshoot.
      for (int i = 0; i < 8; ++i) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        asm volatile("" : "+r"(x));
      }
      const std::uint64_t prev = wall;
      wall = clocks_->wall_ns();
      gap = gap || wall - prev > kGapNs;
    }
    if (!gap && !clocks_->switched_out()) {
      burnt_ns += wall - begin;
      s.seen_wall_ns = wall;  // the loop had the thread in sight all along (no gap)
      break;
    }
    read_cpu_clock(s);
    burnt_ns += since(s.anchor_cpu_ns, cpu);
    wall = s.anchor_wall_ns;
  }
  return wall;
}

// With an uncore to follow, every level: the uncore may be lowered at any time.
bool EmulatedFrequency::stretches_at(double hz, double) const noexcept {
  return follows_uncore_ || emulated_stretch_ns(1'000'000'000, hz, max_hz_, beta_) > 0;  // a second's segment
}

double EmulatedFrequency::added_busy_s(WorkerId w, Level level) const noexcept {
  if (w >= workers_ || level < 0 || level >= kMaxLevels) return 0;
  return static_cast<double>(get(slots_[w].added_ns[level])) * 1e-9;
}

EmulatorAccount EmulatedFrequency::account() const noexcept {
  EmulatorAccount a;
  double mhz_ns = 0;
  for (std::size_t w = 0; w < workers_; ++w) {
    const WorkerSlot& s = slots_[w];
    for (const auto& added : s.added_ns) a.asked_ns += get(added);
    a.segments += get(s.segments);
    a.burnt_ns += get(s.burnt_ns);
    a.own_ns += get(s.own_ns);
    a.unpaid_ns += get(s.owed_ns);
    a.cpu_clock_reads += get(s.cpu_reads);
    a.cpu_clock_ahead_ns += get(s.cpu_ahead_ns);
    a.uncore_asked_ns += get(s.uncore_added_ns);
    a.uncore_cpu_ns += get(s.uncore_cpu_ns);
    a.uncore_timed_ns += get(s.uncore_timed_ns);
    mhz_ns += static_cast<double>(get(s.uncore_mhz_ns));
  }
  if (a.uncore_timed_ns > 0) a.uncore_hz_time_weighted = mhz_ns / static_cast<double>(a.uncore_timed_ns) * 1e6;
  return a;
}

std::vector<std::string> EmulatedFrequency::run_notes() const {
  const EmulatorAccount a = account();
  if (clocks_ == nullptr) return {};
  std::vector<std::string> notes;
  if (a.segments > 0) notes.push_back(stretch_note(a));
  if (follows_uncore_ && (a.segments > 0 || a.uncore_timed_ns > 0)) notes.push_back(uncore_note(a));
  if (!notes.empty()) notes.push_back("emulator clocks: " + clocks_->describe());
  return notes;
}

std::string EmulatedFrequency::stretch_note(const EmulatorAccount& a) {
  const auto n = static_cast<double>(a.segments);
  char line[640];
  std::snprintf(line, sizeof line,
                "emulator: asked for %.6f s of stretch over %llu segments; held the workers %.6f s: %.6f s burnt, "
                "%.6f s its own work (%.0f ns a segment), %.6f s of which a shorter stretch could not absorb; "
                "thread CPU clock read %llu times (%.4f a segment), %.6f s of its readings ahead of the wall clock "
                "set aside",
                static_cast<double>(a.asked_ns) * 1e-9, static_cast<unsigned long long>(a.segments),
                static_cast<double>(a.burnt_ns + a.own_ns) * 1e-9, static_cast<double>(a.burnt_ns) * 1e-9,
                static_cast<double>(a.own_ns) * 1e-9, static_cast<double>(a.own_ns) / n,
                static_cast<double>(a.unpaid_ns) * 1e-9, static_cast<unsigned long long>(a.cpu_clock_reads),
                static_cast<double>(a.cpu_clock_reads) / n, static_cast<double>(a.cpu_clock_ahead_ns) * 1e-9);
  return line;
}

// What following min-energy's uncore level added; the numbers a check of
// the report reads (tests/ompt/emulator_uncore_check.cpp).
std::string EmulatedFrequency::uncore_note(const EmulatorAccount& a) const {
  char line[512];
  std::snprintf(line, sizeof line,
                "emulator uncore: %.9f s of the stretch asked came from the uncore, b_u*(g(f_u)-1) of %.9f s of "
                "segment CPU time; segments ran %.6f s at an uncore level set by min-energy, %.4f GHz "
                "time-weighted (reference %.4f GHz, memory-bandwidth knee %.4f GHz, modelled)",
                static_cast<double>(a.uncore_asked_ns) * 1e-9, static_cast<double>(a.uncore_cpu_ns) * 1e-9,
                static_cast<double>(a.uncore_timed_ns) * 1e-9, a.uncore_hz_time_weighted * 1e-9,
                uncore_.fastest_uncore_hz * 1e-9, uncore_.memory_bandwidth_knee_hz * 1e-9);
  return line;
}

}  // namespace rubato
